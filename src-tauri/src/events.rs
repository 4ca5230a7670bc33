//! Engine events, forwarded to the UI as typed tauri-specta events.

use std::sync::Arc;

use clawboo_engine::agents::AgentFileName;
use clawboo_engine::chat::team::{PeerPost, RoomMessage};
use clawboo_engine::chat::{ChatMessage, RunEventRecord, RunSummary};
use clawboo_engine::{Engine, EngineEvent};
use serde::{Deserialize, Serialize};
use tauri::{AppHandle, Runtime};
use tauri_specta::Event;
use tokio::sync::broadcast;
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

/// A run of an agent's chat started or ended: update it in place.
#[derive(Debug, Clone, Serialize, specta::Type, Event)]
#[serde(rename_all = "camelCase")]
pub struct RunChanged {
    pub agent_id: String,
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

/// Forwards until the engine goes away.
pub fn forward<R: Runtime>(app: AppHandle<R>, engine: Arc<Engine>) {
    forward_from(app, engine.events().subscribe());
}

/// Forwards `events` until their bus closes. The bus keeps 32,768 events for a slow reader;
/// a reader further behind than that loses the oldest (a lag), and then the UI is told to
/// refetch everything it shows (see [`resync`]), so nothing is lost for good.
pub fn forward_from<R: Runtime>(app: AppHandle<R>, mut events: broadcast::Receiver<EngineEvent>) {
    tauri::async_runtime::spawn(async move {
        loop {
            let sent = match events.recv().await {
                Err(RecvError::Lagged(missed)) => {
                    eprintln!("clawboo: the UI fell {missed} events behind; it refetches what it shows");
                    resync(&app)
                }
                Ok(EngineEvent::AgentsChanged) => AgentsChanged.emit(&app),
                Ok(EngineEvent::TeamsChanged) => TeamsChanged.emit(&app),
                Ok(EngineEvent::AgentFileChanged { agent_id, name }) => AgentFileChanged { agent_id, name }.emit(&app),
                Ok(EngineEvent::RunEvent { agent_id, record }) => RunEventEmitted { agent_id, record }.emit(&app),
                Ok(EngineEvent::ChatMessageAdded { agent_id, message }) => {
                    ChatMessageAdded { agent_id, message }.emit(&app)
                }
                Ok(EngineEvent::RunChanged { agent_id, run }) => RunChanged { agent_id, run }.emit(&app),
                Ok(EngineEvent::RoomMessageAdded { team_id, message }) => {
                    RoomMessageAdded { team_id, message }.emit(&app)
                }
                Ok(EngineEvent::RoomRunChanged { team_id, room_id, run }) => {
                    RoomRunChanged { team_id, room_id, run }.emit(&app)
                }
                Ok(EngineEvent::PeerPostAdded { post }) => PeerPostAdded { post }.emit(&app),
                Ok(EngineEvent::MemoryChanged) => MemoryChanged.emit(&app),
                Ok(EngineEvent::BoardChanged { card_id }) => BoardChanged { card_id }.emit(&app),
                Ok(EngineEvent::AttentionChanged { raised }) => AttentionChanged { raised }.emit(&app),
                Ok(EngineEvent::RoutinesChanged) => RoutinesChanged.emit(&app),
                Ok(EngineEvent::ConnectorsChanged) => ConnectorsChanged.emit(&app),
                Err(RecvError::Closed) => break,
            };
            if let Err(e) = sent {
                eprintln!("clawboo: could not forward an event to the UI: {e}");
            }
        }
    });
}

/// After dropped events: AgentsChanged makes the UI refetch agents, files, each open chat's
/// newest page, rooms, teams, memory, the Board, the Inbox and connectors, and backfill each
/// open run's activity; RoutinesChanged covers the Routines page, which it does not.
fn resync<R: Runtime>(app: &AppHandle<R>) -> tauri::Result<()> {
    AgentsChanged.emit(app)?;
    RoutinesChanged.emit(app)
}
