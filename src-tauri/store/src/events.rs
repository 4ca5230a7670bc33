//! The engine's typed event stream. The shell forwards these to the UI; tests subscribe directly.

use std::sync::Arc;

use tokio::sync::broadcast;

use clawboo_vocab::{AgentFileName, ChatMessage, GatewayHealth, PeerPost, RoomMessage, RunEventRecord, RunSummary};

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
    /// The connection to an agent's OpenClaw Gateway (one the user runs) changed state or
    /// latency: update that agent's health in place. Never carries a token.
    GatewayHealthChanged { health: GatewayHealth },
}

/// How many events the bus keeps for a slow subscriber; one further behind is told it lagged
/// (and refetches) rather than holding memory without bound. Sized for a runtime printing 10,000
/// events a second with the UI a moment behind (20 concurrent runs peaked at 26,388).
pub const CAPACITY: usize = 32 * 1024;

/// Cheap to clone; every clone publishes to the same subscribers.
///
/// The bus allocates every one of its slots up front and keeps them for the app's life, so a slot
/// holds a pointer to the event rather than the event itself: 32,768 slots of an `EngineEvent`
/// (288 bytes) took 10 MiB resident at idle; of an `Arc`, ~1 MiB.
#[derive(Debug, Clone)]
pub struct EventBus {
    sender: broadcast::Sender<Arc<EngineEvent>>,
}

impl EventBus {
    pub fn new() -> Self {
        Self::with_capacity(CAPACITY)
    }

    /// A bus keeping `capacity` events (a power of two) for a slow subscriber.
    pub fn with_capacity(capacity: usize) -> Self {
        let (sender, _) = broadcast::channel(capacity);
        Self { sender }
    }

    pub fn publish(&self, event: EngineEvent) {
        // No subscriber is not an error: nobody is listening yet.
        let _ = self.sender.send(Arc::new(event));
    }

    pub fn subscribe(&self) -> EventReceiver {
        EventReceiver { receiver: self.sender.subscribe() }
    }
}

impl Default for EventBus {
    fn default() -> Self {
        Self::new()
    }
}

/// One subscriber's place in the bus: each event once, in order, as tokio's broadcast receiver
/// gives them (same errors: `Lagged` when the bus dropped events this subscriber had not read).
#[derive(Debug)]
pub struct EventReceiver {
    receiver: broadcast::Receiver<Arc<EngineEvent>>,
}

impl EventReceiver {
    pub async fn recv(&mut self) -> Result<EngineEvent, broadcast::error::RecvError> {
        self.receiver.recv().await.map(own)
    }

    /// [`EventReceiver::recv`] for a thread outside the async runtime (it panics inside one).
    pub fn blocking_recv(&mut self) -> Result<EngineEvent, broadcast::error::RecvError> {
        self.receiver.blocking_recv().map(own)
    }

    pub fn try_recv(&mut self) -> Result<EngineEvent, broadcast::error::TryRecvError> {
        self.receiver.try_recv().map(own)
    }

    /// Events published and not yet read by this subscriber.
    pub fn len(&self) -> usize {
        self.receiver.len()
    }

    pub fn is_empty(&self) -> bool {
        self.receiver.is_empty()
    }
}

/// The last subscriber to read an event takes it without a copy (the bus has let go of it).
fn own(event: Arc<EngineEvent>) -> EngineEvent {
    Arc::unwrap_or_clone(event)
}
