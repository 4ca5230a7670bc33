//! A card's comments as its next run's waiting items: the only inbox items a task run gets.
//! The words are here, one function, so the golden task snapshots use exactly what production
//! sends (as `chat::team::notices` does for team turns).

use crate::board::Actor;
use crate::context::{WaitingItem, WaitingKind};

/// The comment `id` by `author`, as the card's next run receives it: the user's is addressed to
/// the agent; another agent's (or Clawboo's) is information, quoted so nothing in it passes for
/// Clawboo's framing.
pub fn waiting_item(id: &str, author: &Actor, text: &str) -> WaitingItem {
    let (kind, from, text) = match author {
        Actor::User => (WaitingKind::Alert, None, format!("The user commented on this card:\n{}", text.trim())),
        Actor::Agent { handle, .. } => {
            (WaitingKind::Notice, Some(handle.clone()), format!("A comment on this card:{}", quoted(text)))
        }
        Actor::Clawboo => (WaitingKind::Notice, None, format!("Clawboo noted on this card:{}", quoted(text))),
    };
    WaitingItem { id: id.to_owned(), kind, from, text }
}

/// `text` quoted line by line (`> `), each line on a new line.
fn quoted(text: &str) -> String {
    text.trim().lines().map(|line| if line.is_empty() { "\n>".to_owned() } else { format!("\n> {line}") }).collect()
}
