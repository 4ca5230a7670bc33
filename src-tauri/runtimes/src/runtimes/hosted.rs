//! A run's connectors, hosted by Clawboo whatever the runtime: started when the run starts with
//! Clawboo's own MCP client ([`crate::runtimes::mcp_client`]; a stdio server through the engine's
//! [`Spawner`]), their tools named `<connector>__<tool>`, every call under the agent's approval
//! policy, and stopped when the run ends.
//!
//! Native calls them in-process; a CLI reaches them only through its run's tools bridge
//! ([`crate::tools`]), beside Clawboo's own tools and under the run's token. So no connector's
//! config, secret or process is ever in an agent's reach: the values go to the server's own
//! environment (or the HTTP connector's headers, sent by Clawboo), and the server is Clawboo's
//! child, not the CLI's.
//!
//! The policy is applied here, for every runtime alike: "allow all" calls; "read only" calls
//! only a tool its server marks `readOnlyHint: true` and `openWorldHint: false`; "ask" asks the
//! user first (an approval in the Inbox, through the run's permission channel). A CLI's own
//! permission step is therefore not asked about these tools (each adapter lets the bridge's
//! tools through): it would be a second question about the same call.

use std::sync::{Arc, Mutex};

use serde_json::Value;
use tokio::sync::{mpsc, oneshot, watch};

use super::process::Spawner;
use super::{ApprovalPolicy, PendingPermission, PermissionAnswer, RunChannels, RunEvent, TurnInput};
use crate::runtimes::mcp_client::{http_client, OfferedTool, Session};
use crate::tools::{HostedSpec, HostedTools, ToolFuture, ToolGrant, ToolOutput};

/// How a runtime reaches its run's connectors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reach {
    /// Native: calls them in-process.
    InProcess,
    /// A CLI: through the run's tools bridge, which needs the run's grant.
    Bridge,
}

/// What a read-only agent is told when a connector's tool may not run.
pub const READ_ONLY_REFUSAL: &str = "denied: this agent is read-only, and only a connector's tools that its server \
     marks read-only (readOnlyHint) and closed-world (openWorldHint false) run for it";

/// A run's connectors, started.
pub struct HostedConnectors {
    /// Taken out when the run stops them; a call after that is refused.
    session: Mutex<Option<Session>>,
    offered: Vec<OfferedTool>,
    policy: ApprovalPolicy,
    events: mpsc::UnboundedSender<RunEvent>,
    permissions: mpsc::UnboundedSender<PendingPermission>,
    cancel: watch::Receiver<bool>,
    /// How many of its questions wait for the user (a CLI awaits the call in silence meanwhile).
    asking: watch::Sender<usize>,
}

/// Counts one question waiting for the user while it lives.
struct Asking<'a>(&'a watch::Sender<usize>);

impl<'a> Asking<'a> {
    fn new(count: &'a watch::Sender<usize>) -> Self {
        count.send_modify(|n| *n += 1);
        Self(count)
    }
}

impl Drop for Asking<'_> {
    fn drop(&mut self) {
        self.0.send_modify(|n| *n = n.saturating_sub(1));
    }
}

/// The run's hosting: ends with the run. [`Hosting::stop`] closes each connector's session and
/// ends its process; dropped, it ends them all the same.
#[derive(Default)]
pub struct Hosting {
    host: Option<Arc<HostedConnectors>>,
    grant: Option<ToolGrant>,
}

/// Starts the run's connectors (none: nothing to do) and, for a CLI, serves their tools from
/// the run's bridge. Each connector that does not start is a warning on the run. `None` when
/// the user stopped the run while they started (whatever started is stopped).
pub async fn start(
    input: &TurnInput,
    channels: &RunChannels,
    spawner: &Arc<dyn Spawner>,
    reach: Reach,
) -> Option<Hosting> {
    if input.connectors.is_empty() {
        return Some(Hosting::default());
    }
    let grant = input.tools.clone();
    if reach == Reach::Bridge && grant.is_none() {
        for connector in &input.connectors {
            channels.emit(RunEvent::Warning {
                message: format!(
                    "Connector '{}' did not start: Clawboo's tools bridge does not serve this run.",
                    connector.name
                ),
            });
        }
        return Some(Hosting::default());
    }
    let mut cancel = channels.cancel.clone();
    let client = http_client();
    let (session, warnings) = tokio::select! {
        started = Session::start(&input.connectors, spawner, &input.workspace, &client) => started,
        // Stopped while they start: whatever started is dropped, and with it its process.
        () = crate::runtimes::native::http::cancelled(&mut cancel) => return None,
    };
    for message in warnings {
        channels.emit(RunEvent::Warning { message });
    }
    let host = Arc::new(HostedConnectors {
        offered: session.offered().to_vec(),
        session: Mutex::new(Some(session)),
        policy: input.approval,
        events: channels.events.clone(),
        permissions: channels.permissions.clone(),
        cancel: channels.cancel.clone(),
        asking: watch::channel(0).0,
    });
    let grant = grant.filter(|_| reach == Reach::Bridge && !host.offered.is_empty());
    if let Some(grant) = &grant {
        grant.host(host.clone());
    }
    Some(Hosting { host: Some(host), grant })
}

impl Hosting {
    /// The connectors' tools (none when nothing is hosted).
    pub fn offered(&self) -> &[OfferedTool] {
        self.host.as_deref().map(|h| h.offered.as_slice()).unwrap_or_default()
    }

    /// How many questions about its connectors' calls wait for the user (for the supervisor's
    /// silence rule); None when nothing is hosted.
    pub fn asking(&self) -> Option<watch::Receiver<usize>> {
        self.host.as_ref().map(|h| h.asking.subscribe())
    }

    /// The hosted connectors, for Native's calls.
    pub fn host(&self) -> Option<&HostedConnectors> {
        self.host.as_deref()
    }

    /// Ends the hosting: the bridge stops serving the tools, each session closes, each server's
    /// process group is ended.
    pub async fn stop(mut self) {
        if let Some(grant) = self.grant.take() {
            grant.unhost();
        }
        if let Some(session) = self.take_session() {
            session.stop().await;
        }
    }
}

impl Hosting {
    fn take_session(&mut self) -> Option<Session> {
        let host = self.host.take()?;
        let mut session = host.session.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        session.take()
    }
}

impl Drop for Hosting {
    fn drop(&mut self) {
        if let Some(grant) = self.grant.take() {
            grant.unhost();
        }
        // Dropped, a session kills its servers' processes.
        drop(self.take_session());
    }
}

impl HostedConnectors {
    pub fn offered(&self) -> &[OfferedTool] {
        &self.offered
    }

    /// The connector tool a call names, if any.
    pub fn tool(&self, name: &str) -> Option<&OfferedTool> {
        self.offered.iter().find(|t| t.name == name)
    }

    /// Calls a connector's tool under the agent's policy. `Err` is a tool error for the model
    /// (denied, failed); `None` when the user stopped the run meanwhile.
    pub async fn run_tool(&self, name: &str, input: &Value) -> Option<Result<String, String>> {
        let Some(tool) = self.tool(name) else {
            return Some(Err(format!("There is no tool named {name}.")));
        };
        let allowed = match self.policy {
            ApprovalPolicy::AllowAll => true,
            ApprovalPolicy::ReadOnly if tool.read_only => true,
            ApprovalPolicy::ReadOnly => return Some(Err(READ_ONLY_REFUSAL.into())),
            ApprovalPolicy::Ask => {
                let description = format!("Use the tool {name}");
                let channels = RunChannels {
                    events: self.events.clone(),
                    permissions: self.permissions.clone(),
                    cancel: self.cancel.clone(),
                };
                let _asking = Asking::new(&self.asking);
                ask_user(&channels, name, input, description).await?
            }
        };
        if !allowed {
            return Some(Err(DENIED.into()));
        }
        let call = {
            let session = self.session.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            match session.as_ref() {
                Some(session) => session.call(name, input),
                None => return Some(Err("This run has ended; its connectors are closed.".into())),
            }
        };
        let mut cancel = self.cancel.clone();
        tokio::select! {
            output = call => Some(output),
            () = crate::runtimes::native::http::cancelled(&mut cancel) => None,
        }
    }
}

impl HostedTools for HostedConnectors {
    fn specs(&self) -> Vec<HostedSpec> {
        self.offered
            .iter()
            .map(|t| HostedSpec {
                name: t.name.clone(),
                description: t.description.clone(),
                input_schema: t.schema.clone(),
                annotations: t.annotations.clone(),
            })
            .collect()
    }

    fn call<'a>(&'a self, name: &'a str, args: Value) -> ToolFuture<'a> {
        Box::pin(async move {
            match self.run_tool(name, &args).await {
                Some(Ok(text)) => ToolOutput::ok(text),
                Some(Err(text)) => ToolOutput::error(text),
                None => ToolOutput::error("Stopped by the user."),
            }
        })
    }
}

/// How a run ends when the user stopped it while its connectors started.
pub fn cancelled() -> super::RunResult {
    super::RunResult::with_outcome(super::RunOutcome::Cancelled, "Stopped by the user.")
}

/// What the model is told when the user did not allow a call.
pub const DENIED: &str = "denied: the user did not allow this";

/// Asks the user whether a tool call may run (the run's permission channel, answered in the
/// Inbox): the request and its answer are on the run's Activity. `Some(allowed)`; `None` when
/// the run was stopped while it waited. Nobody to answer denies rather than hangs.
pub async fn ask_user(channels: &RunChannels, tool: &str, input: &Value, description: String) -> Option<bool> {
    let request_id = uuid::Uuid::new_v4().to_string();
    channels.emit(RunEvent::PermissionRequest {
        request_id: request_id.clone(),
        tool: tool.to_owned(),
        input: input.clone(),
        description: description.clone(),
    });
    let (reply, answer) = oneshot::channel();
    let pending = PendingPermission {
        request_id: request_id.clone(),
        tool: tool.to_owned(),
        input: input.clone(),
        description,
        reply,
    };
    let allowed = if channels.permissions.send(pending).is_err() {
        false
    } else {
        let mut cancel = channels.cancel.clone();
        tokio::select! {
            answer = answer => answer.unwrap_or(PermissionAnswer { allow: false }).allow,
            () = crate::runtimes::native::http::cancelled(&mut cancel) => {
                channels.emit(RunEvent::PermissionResolved { request_id, allowed: false });
                return None;
            }
        }
    };
    channels.emit(RunEvent::PermissionResolved { request_id, allowed });
    Some(allowed)
}
