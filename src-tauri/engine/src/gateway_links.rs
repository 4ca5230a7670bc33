//! Which long-lived Gateway links run (see `runtimes::openclaw::gateway_health`): one per
//! OpenClaw agent pointed at a Gateway the user runs (its address and the token from the
//! keychain), started when the engine opens and whenever agents change (one made, its Gateway
//! set or cleared, one deleted), stopped when no agent uses it. Each change of a link's health
//! is published as `EngineEvent::GatewayHealthChanged` (never with a token), and
//! [`GatewayLinks::healths`] is what the member list reads first.

use std::sync::Arc;

use crate::agents::{Agents, RuntimeKind};
use crate::runtimes::openclaw::gateway_health::{HealthBoard, LinkTarget};
use crate::secrets::Secrets;
use crate::vocab::GatewayHealth;
use crate::{EngineEvent, EventBus};

pub struct GatewayLinks {
    /// The OpenClaw adapter's board (none in a build or test without OpenClaw).
    board: Option<HealthBoard>,
    agents: Arc<Agents>,
    secrets: Arc<Secrets>,
    handle: tokio::runtime::Handle,
}

impl GatewayLinks {
    /// Starts the links agents use now, and keeps them in step with the agents and published
    /// for as long as `handle`'s runtime lives.
    pub fn start(
        board: Option<HealthBoard>,
        agents: Arc<Agents>,
        secrets: Arc<Secrets>,
        events: EventBus,
        handle: tokio::runtime::Handle,
    ) -> Arc<Self> {
        let links = Arc::new(Self { board, agents, secrets, handle: handle.clone() });
        let Some(board) = links.board.clone() else { return links };
        let mut changes = board.subscribe();
        let publish = events.clone();
        handle.spawn(async move {
            loop {
                match changes.recv().await {
                    Ok(health) => publish.publish(EngineEvent::GatewayHealthChanged { health }),
                    Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
                    Err(tokio::sync::broadcast::error::RecvError::Closed) => return,
                }
            }
        });
        let mut heard = events.subscribe();
        let weak = Arc::downgrade(&links);
        handle.spawn(async move {
            loop {
                let resync = match heard.recv().await {
                    Ok(EngineEvent::AgentsChanged) => true,
                    Ok(_) => false,
                    // Fell behind: whatever was missed may have changed an agent.
                    Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => true,
                    Err(tokio::sync::broadcast::error::RecvError::Closed) => return,
                };
                let Some(links) = weak.upgrade() else { return };
                if resync {
                    // Reads the keychain: off the runtime's workers.
                    let _ = tokio::task::spawn_blocking(move || links.sync()).await;
                }
            }
        });
        links.sync();
        links
    }

    /// Runs exactly the links the agents need now.
    pub fn sync(&self) {
        let Some(board) = &self.board else { return };
        let agents = match self.agents.list() {
            Ok(agents) => agents,
            Err(e) => {
                tracing::warn!(error = %e, "cannot list agents for their Gateway links");
                return;
            }
        };
        let mut wanted = Vec::new();
        for agent in agents.into_iter().filter(|a| a.runtime == RuntimeKind::Openclaw) {
            let Some(url) = agent.openclaw_gateway_url else { continue };
            match self.secrets.gateway_token(&agent.id) {
                Ok(Some(token)) => wanted.push(LinkTarget { agent_id: agent.id, url, token }),
                Ok(None) => {}
                Err(e) => tracing::warn!(agent_id = %agent.id, error = %e, "no Gateway link: the token cannot be read"),
            }
        }
        board.sync(&self.handle, wanted);
    }

    /// Every linked agent's Gateway health now.
    pub fn healths(&self) -> Vec<GatewayHealth> {
        self.board.as_ref().map(HealthBoard::all).unwrap_or_default()
    }

    pub fn stop(&self) {
        if let Some(board) = &self.board {
            board.stop_all();
        }
    }
}
