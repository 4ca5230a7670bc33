//! The engine's typed event stream. The shell forwards these to the UI; tests subscribe directly.

use tokio::sync::broadcast;

use clawboo_vocab::{AgentFileName, ChatMessage, PeerPost, RoomMessage, RunEventRecord, RunSummary};

#[derive(Debug, Clone, PartialEq)]
pub enum EngineEvent {
    /// An agent was created, changed or deleted.
    AgentsChanged,
    /// A team, its members, rules, brief, About you or rooms changed (or a team was created or
    /// deleted): refetch teams.
    TeamsChanged,
    /// An agent file changed on disk, by the app or by another program.
    AgentFileChanged { agent_id: String, name: AgentFileName },
    /// A run reported something (stored before or just after this is published).
    RunEvent { agent_id: String, record: RunEventRecord },
    /// A message was stored in an agent's chat (published after the commit).
    ChatMessageAdded { agent_id: String, message: ChatMessage },
    /// A retry or an edit replaced these messages of an agent's chat: they stay, folded away
    /// (published after the commit).
    ChatMessagesSuperseded { agent_id: String, message_ids: Vec<String> },
    /// The user read a chat or a room up to its newest message: refetch the unread marks.
    ReadMarksChanged,
    /// A run of an agent's chat started or ended (published after the commit); `chat_id` is
    /// the chat (conversation) it runs in.
    RunChanged { agent_id: String, chat_id: String, run: RunSummary },
    /// A room message was added or changed (a hand-off card got its teammate's run).
    RoomMessageAdded { team_id: String, message: RoomMessage },
    /// A team run started or ended.
    RoomRunChanged { team_id: String, room_id: String, run: RunSummary },
    /// An agent posted in its team's peer room.
    PeerPostAdded { post: PeerPost },
    /// A fact, saved note, scratch note or promotion was added or changed: refetch memory.
    MemoryChanged,
    /// A card was created, changed, moved, commented on or deleted (published after the
    /// commit): refetch the Board, and the card when it is open. `None`: several cards.
    BoardChanged { card_id: Option<String> },
    /// An attention request was raised, answered, cleared, expired or withdrawn, or a grant or
    /// the expiry setting changed: refetch the inbox and the tray. `raised`: the id of a new
    /// open request (what a notification announces).
    AttentionChanged { raised: Option<String> },
    /// A routine was created, changed, paused, resumed or deleted, or one of its runs started
    /// or ended: refetch the routines.
    RoutinesChanged,
    /// A connector was added, changed, shared or deleted, or a secret of one set or cleared.
    ConnectorsChanged,
}

/// Cheap to clone; every clone publishes to the same subscribers.
#[derive(Debug, Clone)]
pub struct EventBus {
    sender: broadcast::Sender<EngineEvent>,
}

impl EventBus {
    pub fn new() -> Self {
        // Events are small notifications; a slow subscriber that falls this far behind is told
        // it lagged (and refetches) rather than holding memory without bound.
        // Sized for a runtime printing 10,000 events a second with the UI a moment behind.
        let (sender, _) = broadcast::channel(32 * 1024);
        Self { sender }
    }

    pub fn publish(&self, event: EngineEvent) {
        // No subscriber is not an error: nobody is listening yet.
        let _ = self.sender.send(event);
    }

    pub fn subscribe(&self) -> broadcast::Receiver<EngineEvent> {
        self.sender.subscribe()
    }
}

impl Default for EventBus {
    fn default() -> Self {
        Self::new()
    }
}
