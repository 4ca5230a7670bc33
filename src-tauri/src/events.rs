//! Engine events, forwarded to the UI as typed tauri-specta events.

use std::sync::Arc;
use std::time::{Duration, Instant};

use clawboo_engine::agents::AgentFileName;
use clawboo_engine::chat::team::{PeerPost, RoomMessage};
use clawboo_engine::chat::{ChatMessage, RunEventRecord, RunSummary};
use clawboo_engine::vocab::GatewayHealth;
use clawboo_engine::{Engine, EngineEvent, EventReceiver};
use serde::{Deserialize, Serialize};
use tauri::{AppHandle, Runtime};
use tauri_specta::Event;
use tokio::sync::broadcast::error::RecvError;

/// Agents were created, changed or deleted, or events were dropped: refetch agents and their files.
#[derive(Debug, Clone, Serialize, Deserialize, specta::Type, Event)]
pub struct AgentsChanged;

/// Teams were created, changed or deleted: refetch teams.
#[derive(Debug, Clone, Serialize, Deserialize, specta::Type, Event)]
pub struct TeamsChanged;

/// An agent file changed on disk (saved by the app or edited elsewhere).
#[derive(Debug, Clone, Serialize, Deserialize, specta::Type, Event)]
#[serde(rename_all = "camelCase")]
pub struct AgentFileChanged {
    pub agent_id: String,
    pub name: AgentFileName,
}

/// A run reported something: append it to the run's activity.
#[derive(Debug, Clone, Serialize, specta::Type, Event)]
#[serde(rename_all = "camelCase")]
pub struct RunEventEmitted {
    pub agent_id: String,
    pub record: RunEventRecord,
}

/// A message was stored in an agent's chat: append it.
#[derive(Debug, Clone, Serialize, specta::Type, Event)]
#[serde(rename_all = "camelCase")]
pub struct ChatMessageAdded {
    pub agent_id: String,
    pub message: ChatMessage,
}

/// A retry or an edit replaced these messages of an agent's chat: refetch it (they stay, folded).
#[derive(Debug, Clone, Serialize, specta::Type, Event)]
#[serde(rename_all = "camelCase")]
pub struct ChatMessagesSuperseded {
    pub agent_id: String,
    pub message_ids: Vec<String>,
}

/// The user read a chat or a room: refetch the unread marks.
#[derive(Debug, Clone, Serialize, Deserialize, specta::Type, Event)]
pub struct ReadMarksChanged;

/// A run of an agent's chat started or ended: update it in place.
#[derive(Debug, Clone, Serialize, specta::Type, Event)]
#[serde(rename_all = "camelCase")]
pub struct RunChanged {
    pub agent_id: String,
    /// The chat (conversation) the run is in.
    pub chat_id: String,
    pub run: RunSummary,
}

/// A room message was added, or changed (a hand-off card got its teammate's run): upsert it.
#[derive(Debug, Clone, Serialize, specta::Type, Event)]
#[serde(rename_all = "camelCase")]
pub struct RoomMessageAdded {
    pub team_id: String,
    pub message: RoomMessage,
}

/// A team run started or ended: upsert it in the room's runs.
#[derive(Debug, Clone, Serialize, specta::Type, Event)]
#[serde(rename_all = "camelCase")]
pub struct RoomRunChanged {
    pub team_id: String,
    pub room_id: String,
    pub run: RunSummary,
}

/// An agent posted in its team's peer room.
#[derive(Debug, Clone, Serialize, specta::Type, Event)]
#[serde(rename_all = "camelCase")]
pub struct PeerPostAdded {
    pub post: PeerPost,
}

/// A fact, saved note, scratch note or promotion changed: refetch what the Memory view shows.
#[derive(Debug, Clone, Serialize, Deserialize, specta::Type, Event)]
pub struct MemoryChanged;

/// A card was created, changed, moved, commented on or deleted: refetch the Board, and the card
/// `cardId` when it is open (`null`: several cards changed).
#[derive(Debug, Clone, Serialize, Deserialize, specta::Type, Event)]
#[serde(rename_all = "camelCase")]
pub struct BoardChanged {
    pub card_id: Option<String>,
}

/// A routine was created, changed, paused, resumed or deleted, or one of its runs started or
/// ended: refetch the Routines page.
#[derive(Debug, Clone, Serialize, Deserialize, specta::Type, Event)]
pub struct RoutinesChanged;

/// An attention request was raised, answered, cleared, expired or withdrawn, or a grant or the
/// expiry changed: refetch the inbox and the badge. `raised`: a new open request's id.
#[derive(Debug, Clone, Serialize, Deserialize, specta::Type, Event)]
#[serde(rename_all = "camelCase")]
pub struct AttentionChanged {
    pub raised: Option<String>,
}

/// The user picked a request in the tray menu or clicked its notification: show it.
#[derive(Debug, Clone, Serialize, Deserialize, specta::Type, Event)]
#[serde(rename_all = "camelCase")]
pub struct OpenAttention {
    pub request_id: Option<String>,
}

/// The window was closed while agents work: Clawboo keeps running in the tray. `first`: the
/// first time, which the UI explains.
#[derive(Debug, Clone, Serialize, Deserialize, specta::Type, Event)]
#[serde(rename_all = "camelCase")]
pub struct KeptInTray {
    pub first: bool,
}

/// A connector was added, changed, shared or deleted, or one of its secrets set or cleared.
#[derive(Debug, Clone, Serialize, Deserialize, specta::Type, Event)]
pub struct ConnectorsChanged;

/// The link to an agent's OpenClaw Gateway (one the user runs) changed state or latency: update
/// that agent's health in place. Never a token.
#[derive(Debug, Clone, Serialize, specta::Type, Event)]
#[serde(rename_all = "camelCase")]
pub struct GatewayHealthChanged {
    pub health: GatewayHealth,
}

/// Forwards until the engine goes away.
pub fn forward<R: Runtime>(app: AppHandle<R>, engine: Arc<Engine>) {
    forward_from(app, engine.events().subscribe());
}

/// Forwards `events` until their bus closes. The bus keeps 32,768 events for a slow reader;
/// a reader further behind than that loses the oldest (a lag), and then the UI is told to
/// refetch everything it shows (see [`resync`]), so nothing is lost for good.
pub fn forward_from<R: Runtime>(app: AppHandle<R>, mut events: EventReceiver) {
    tauri::async_runtime::spawn(async move {
        let mut resyncs = Resyncs::default();
        loop {
            // A refetch held back by the throttle is sent when its time comes, even if the bus
            // goes quiet: the UI must never stay behind.
            let received = match resyncs.owed_at() {
                Some(due) => tokio::select! {
                    received = events.recv() => Some(received),
                    _ = tokio::time::sleep_until(due.into()) => None,
                },
                None => Some(events.recv().await),
            };
            let sent = match received {
                None => {
                    resyncs.sent(Instant::now());
                    resync(&app)
                }
                Some(Err(RecvError::Lagged(missed))) => {
                    tracing::warn!(missed, "the UI fell behind on events; it refetches what it shows");
                    if !resyncs.lagged(Instant::now()) {
                        continue;
                    }
                    resync(&app)
                }
                Some(Ok(event)) => emit(&app, event),
                Some(Err(RecvError::Closed)) => break,
            };
            if let Err(e) = sent {
                tracing::warn!(error = %e, "could not forward an event to the UI");
            }
        }
    });
}

fn emit<R: Runtime>(app: &AppHandle<R>, event: EngineEvent) -> tauri::Result<()> {
    match event {
        EngineEvent::AgentsChanged => AgentsChanged.emit(app),
        EngineEvent::TeamsChanged => TeamsChanged.emit(app),
        EngineEvent::AgentFileChanged { agent_id, name } => AgentFileChanged { agent_id, name }.emit(app),
        EngineEvent::RunEvent { agent_id, record } => RunEventEmitted { agent_id, record }.emit(app),
        EngineEvent::ChatMessageAdded { agent_id, message } => ChatMessageAdded { agent_id, message }.emit(app),
        EngineEvent::ChatMessagesSuperseded { agent_id, message_ids } => {
            ChatMessagesSuperseded { agent_id, message_ids }.emit(app)
        }
        EngineEvent::ReadMarksChanged => ReadMarksChanged.emit(app),
        EngineEvent::RunChanged { agent_id, chat_id, run } => RunChanged { agent_id, chat_id, run }.emit(app),
        EngineEvent::RoomMessageAdded { team_id, message } => RoomMessageAdded { team_id, message }.emit(app),
        EngineEvent::RoomRunChanged { team_id, room_id, run } => RoomRunChanged { team_id, room_id, run }.emit(app),
        EngineEvent::PeerPostAdded { post } => PeerPostAdded { post }.emit(app),
        EngineEvent::MemoryChanged => MemoryChanged.emit(app),
        EngineEvent::BoardChanged { card_id } => BoardChanged { card_id }.emit(app),
        EngineEvent::AttentionChanged { raised } => AttentionChanged { raised }.emit(app),
        EngineEvent::RoutinesChanged => RoutinesChanged.emit(app),
        EngineEvent::ConnectorsChanged => ConnectorsChanged.emit(app),
        EngineEvent::GatewayHealthChanged { health } => GatewayHealthChanged { health }.emit(app),
    }
}

/// At most one full refetch per `RESYNC_GAP`: under a flood the bus can report a lag hundreds of
/// times a second, and each refetch reloads every open page. A lag inside the gap is owed, not
/// dropped: one refetch follows when the gap ends.
pub const RESYNC_GAP: Duration = Duration::from_millis(250);

#[derive(Debug, Default)]
pub struct Resyncs {
    last: Option<Instant>,
    owed: bool,
}

impl Resyncs {
    /// A lag was reported at `now`: true when the refetch is to be sent now (then counted as sent).
    pub fn lagged(&mut self, now: Instant) -> bool {
        if self.last.is_some_and(|last| now.duration_since(last) < RESYNC_GAP) {
            self.owed = true;
            return false;
        }
        self.sent(now);
        true
    }

    /// When a held-back refetch is due, if one is owed.
    pub fn owed_at(&self) -> Option<Instant> {
        self.owed.then(|| self.last.map_or_else(Instant::now, |last| last + RESYNC_GAP))
    }

    pub fn sent(&mut self, now: Instant) {
        self.last = Some(now);
        self.owed = false;
    }
}

/// After dropped events: AgentsChanged makes the UI refetch agents, files, each open chat's
/// newest page, rooms, teams, memory, the Board, the Inbox and connectors, and backfill each
/// open run's activity; RoutinesChanged covers the Routines page, which it does not.
fn resync<R: Runtime>(app: &AppHandle<R>) -> tauri::Result<()> {
    AgentsChanged.emit(app)?;
    RoutinesChanged.emit(app)
}
