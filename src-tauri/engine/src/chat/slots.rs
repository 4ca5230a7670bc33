//! Deleting an agent and quitting, over the run layer's slots (`run::AgentSlots`): nothing runs
//! in a folder that is going away.

use std::time::Duration;

use super::Chat;
use crate::error::Result;

impl Chat {
    /// Deletes the agent: its run (if any) is cancelled and awaited (up to `limit`) first, and
    /// no new run can start meanwhile, so nothing runs in a folder that is going away.
    pub fn delete_agent(&self, agent_id: &str, limit: Duration) -> Result<()> {
        let _closing = self.slots.close(agent_id, limit)?;
        let deleted = self.agents.delete(agent_id);
        if deleted.is_ok() {
            // A Gateway's lasting relay token goes with its agent.
            if let Some(relay) = &self.relay {
                relay.release(agent_id);
            }
            // So does its lasting tools token.
            if let Some(tools) = &self.tools {
                tools.release(agent_id);
            }
        }
        deleted
    }

    /// Stops every run and waits (up to `limit`) for their processes to be gone, then whatever
    /// the adapters keep between turns. Called on exit.
    pub fn shutdown(&self, limit: Duration) {
        self.quitting.store(true, std::sync::atomic::Ordering::SeqCst);
        self.slots.stop_all(limit);
        self.runtimes.shutdown();
    }
}
