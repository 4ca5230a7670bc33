//! What the engine gives back once conversations go quiet. A conversation's turns keep a few
//! things between them so the next turn is cheap: its carried turns, Native's written messages,
//! the relay's last request body (each bounded; together up to tens of MiB after long chats).
//! None is needed by a conversation nobody has used for a while, and an idle desktop app should
//! not hold them: each is forgotten after [`UNUSED_FOR`] without a turn (its next turn reads or
//! writes it afresh: milliseconds, once), and then SQLite's page caches are given back too. The
//! app's heap trim returns the freed pages to the system.

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::chat::Chat;
use crate::relay::Relay;
use crate::store::Store;

/// How long a conversation's kept state outlives its last turn.
pub const UNUSED_FOR: Duration = Duration::from_secs(10 * 60);
/// How often the engine looks.
const EVERY: Duration = Duration::from_secs(60);

/// Forgets what no turn used since `cutoff`; when anything went, gives back SQLite's page caches
/// too (the chats that filled them went quiet). The bytes given back (SQLite's not counted).
pub(crate) fn forget_unused_since(chat: &Chat, relay: &Relay, store: &Store, cutoff: Instant) -> usize {
    let given_back = chat.forget_unused_since(cutoff) + relay.forget_unused_since(cutoff);
    if given_back > 0 {
        if let Err(e) = store.release_memory() {
            tracing::warn!(error = %e, "SQLite's page caches could not be given back");
        }
        tracing::debug!(kib = given_back / 1024, "gave back what quiet conversations kept");
    }
    given_back
}

/// Looks every minute for as long as the engine lives (it holds the parts weakly).
pub(crate) fn forget_periodically(
    chat: &Arc<Chat>,
    relay: &Arc<Relay>,
    store: &Arc<Store>,
    handle: &tokio::runtime::Handle,
) {
    let (chat, relay, store) = (Arc::downgrade(chat), Arc::downgrade(relay), Arc::downgrade(store));
    handle.spawn(async move {
        let mut tick = tokio::time::interval(EVERY);
        tick.tick().await;
        loop {
            tick.tick().await;
            let (Some(chat), Some(relay), Some(store)) = (chat.upgrade(), relay.upgrade(), store.upgrade()) else {
                return;
            };
            if let Some(cutoff) = Instant::now().checked_sub(UNUSED_FOR) {
                forget_unused_since(&chat, &relay, &store, cutoff);
            }
        }
    });
}
