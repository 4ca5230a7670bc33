//! The engine's typed event stream. The shell forwards these to the UI; tests subscribe directly.

use tokio::sync::broadcast;

use crate::agents::AgentFileName;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EngineEvent {
    /// An agent was created, changed or deleted.
    AgentsChanged,
    /// An agent file changed on disk, by the app or by another program.
    AgentFileChanged { agent_id: String, name: AgentFileName },
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
        let (sender, _) = broadcast::channel(1024);
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
