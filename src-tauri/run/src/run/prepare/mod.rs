//! Preparing a run: what every run is built from before it starts, whoever starts it. A caller
//! says *what* to run, by whom, *where* and in which role (a [`RunRequest`]);
//! [`Preparer::prepare`] decides the tools it is offered ([`offer`]), finds the agent's runtime
//! and reads its files for that folder, and hands back one [`PreparedRun`], which grants the
//! run its tools once it has an id ([`PreparedRun::grant`]). A run that goes on in a conversation (one-to-one chat, a team room) then
//! decides in the transaction that records it how its runtime session goes on
//! ([`PreparedRun::session`], a [`TurnSession`]). What the caller adds is its own: the context
//! it assembles (a team turn, a card's task, a one-to-one message), the rows it keeps beside the
//! run, and what to do with the run's end.
//!
//! The parts it is built from:
//! - [`offer`]: which of Clawboo's tools each kind of run and role is offered;
//! - [`conversation`]: a conversation's rows (its runtime session, messages and runs);
//! - [`setup`]: the session plan (how a turn goes on with the runtime session it finds);
//! - [`session`]: that plan decided for one turn, with the agent's files placed for the session;
//! - [`files`]: the agent's files for a run (the file plan's I/O, what a session holds, the
//!   runtime's slots, what a completed run leaves delivered);
//! - [`placement`]: where a turn's sections go for its runtime.

pub mod carried;
pub mod conversation;
pub mod files;
pub mod offer;
pub mod placement;
pub mod session;
pub mod setup;

use std::path::PathBuf;
use std::sync::Arc;

pub use files::AgentFilesForRun;
pub use offer::{InRoom, RunRole, ToolServices};
pub use placement::Placement;
pub use session::{SessionAsk, TurnSession};

use crate::agents::{Agent, Agents, RuntimeKind};
use crate::context::files::{FilePlan, FileSession};
use crate::context::ToolName;
use crate::error::{Error, Result};
use crate::runtimes::catalog::RuntimeCatalog;
use crate::runtimes::home::RuntimeHomes;
use crate::runtimes::{Capabilities, Runtime, RuntimeRegistry, TurnInput};
use crate::tools::{Caller, ToolGrant, Tools};

/// What is to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunKind {
    /// The user's message in a one-to-one chat.
    Message,
    /// A team turn: the user's message to a room's leader or a member they mentioned, or the
    /// results that came back to them.
    TeamTurn,
    /// A teammate's task handed off to it in a room.
    Handoff,
    /// A card's task on the Board.
    CardTask,
    /// A routine's run (in a room, or a card it made).
    Routine,
}

impl RunKind {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Message => "message",
            Self::TeamTurn => "team turn",
            Self::Handoff => "hand-off",
            Self::CardTask => "card task",
            Self::Routine => "routine",
        }
    }
}

/// Where a run works.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunFolder {
    /// The agent's own folder (where a runtime may discover its AGENTS.md itself).
    AgentWorkspace,
    /// A project folder or a card's worktree: the repository's own instructions go too. The
    /// agent's own folder given here counts as it.
    Project(PathBuf),
}

/// What a caller asks to run: what, by whom, where, in which role (which decides its tools).
#[derive(Debug, Clone)]
pub struct RunRequest {
    pub kind: RunKind,
    pub agent: Agent,
    pub folder: RunFolder,
    pub role: RunRole,
    /// A heartbeat routine's run: HEARTBEAT.md goes with it.
    pub heartbeat: bool,
}

/// The agent's runtime for a run: its adapter, what it can do, the program it starts.
pub struct AgentRuntime {
    pub runtime: Arc<dyn Runtime>,
    pub capabilities: Capabilities,
    /// The CLI to start (None: Native runs in-process).
    pub program: Option<PathBuf>,
    /// Where a turn's sections go for it.
    pub placement: Placement,
}

/// A run prepared to start: everything about it that does not depend on the conversation it
/// goes on in (see [`PreparedRun::session`] for that).
pub struct PreparedRun {
    pub kind: RunKind,
    pub agent: Agent,
    pub runtime: AgentRuntime,
    pub role: RunRole,
    /// Clawboo's tools it is offered (see [`offer`]).
    pub tools: Vec<ToolName>,
    /// The bridge its grant comes from (None: no tools to grant).
    bridge: Option<Arc<Tools>>,
    /// The agent's files, read for this run's folder.
    pub files: AgentFilesForRun,
    /// Where they go in a new session (its budgets checked): what a session starts with does
    /// not depend on the session, so its fingerprint is taken from this.
    pub new_session_files: FilePlan,
    /// The agent's own folder: its files and its runtimes' private homes.
    pub workspace: PathBuf,
    /// Where the runtime works.
    pub folder: PathBuf,
}

impl PreparedRun {
    /// The runtimes' private homes, in the agent's own folder.
    pub fn homes(&self) -> RuntimeHomes {
        RuntimeHomes::for_agent_dir(&self.workspace)
    }

    /// Run `run_id`'s grant of its tools in conversation `conversation_id`, bound to the agent,
    /// and to its team and room; None when it is offered nothing to call (no tools, and no
    /// connectors to host: `hosts`). The grant ends with the run (`RunServices::end_grants`).
    pub fn grant(&self, run_id: &str, conversation_id: &str, hosts: bool) -> Option<ToolGrant> {
        let bridge = self.bridge.as_ref().filter(|_| !self.tools.is_empty() || hosts)?;
        let mut grant = bridge.grant(Caller {
            run_id: run_id.to_owned(),
            agent_id: self.agent.id.clone(),
            agent_handle: self.agent.handle.clone(),
            team_id: self.role.team_id().to_owned(),
            room_id: self.role.room_id().to_owned(),
            conversation_id: conversation_id.to_owned(),
            tools: self.tools.clone(),
        });
        grant.on_request = offer::on_request(&self.role).iter().copied().filter(|t| self.tools.contains(t)).collect();
        Some(grant)
    }

    /// The runtime's input for the run `run_id` of `message`, with what was prepared: who runs
    /// it, where, with which program and approval policy. The caller adds what is its own: what
    /// it placed in the slots, the session the turn goes on in, the tools and connectors granted.
    pub fn input(&self, run_id: &str, message: String) -> TurnInput {
        TurnInput {
            run_id: run_id.to_owned(),
            agent: self.agent.clone(),
            workspace: self.folder.clone(),
            homes: self.homes(),
            message,
            persona: None,
            setup: None,
            preamble: None,
            tools: None,
            connectors: Vec::new(),
            resume_session: None,
            fork_session: false,
            transcript: Default::default(),
            approval: self.agent.approval_policy,
            program: self.runtime.program.clone(),
        }
    }
}

/// What preparing reads from: the agents and their files, the runtimes' adapters and where
/// their programs are, and what tools the engine can serve.
#[derive(Clone, Copy)]
pub struct Preparer<'a> {
    pub agents: &'a Agents,
    pub runtimes: &'a RuntimeRegistry,
    pub catalog: &'a RuntimeCatalog,
    pub tools: ToolServices<'a>,
}

impl Preparer<'_> {
    /// Prepares `request`: the agent's runtime found, its files read for the folder.
    pub fn prepare(&self, request: RunRequest) -> Result<PreparedRun> {
        let runtime = self.runtime(&request.agent)?;
        self.prepare_on(request, runtime)
    }

    /// The agent's runtime, or why it cannot run: no adapter in this build, its CLI is not
    /// found, or the runtime refuses it now (`Runtime::ready`). A caller that must know this before it does anything else (the task runner, before
    /// it makes a card's worktree) asks first and prepares with [`Self::prepare_on`].
    pub fn runtime(&self, agent: &Agent) -> Result<AgentRuntime> {
        let runtime = self.runtimes.get(agent.runtime).ok_or_else(|| {
            Error::RuntimeNotFound(format!("No adapter for {} in this build.", agent.runtime.as_str()))
        })?;
        let program = match agent.runtime {
            RuntimeKind::Native => None,
            kind => Some(self.catalog.locate(kind)?),
        };
        // An agent whose runtime cannot take a run now (an OpenClaw Gateway the user runs,
        // lost) is refused before anything is stored or waits.
        runtime.ready(agent)?;
        let capabilities = runtime.capabilities();
        let placement = placement::of(&capabilities);
        Ok(AgentRuntime { runtime, capabilities, program, placement })
    }

    /// Prepares `request` on the runtime found already.
    pub fn prepare_on(&self, request: RunRequest, runtime: AgentRuntime) -> Result<PreparedRun> {
        let RunRequest { kind, agent, folder, role, heartbeat } = request;
        let tools = self.tools.offered(kind, &role);
        let bridge = self.tools.bridge.cloned();
        tracing::debug!(agent_id = %agent.id, kind = kind.as_str(), "preparing a run");
        let workspace = self.agents.workspaces().dir(&agent.id);
        let folder = match folder {
            RunFolder::AgentWorkspace => workspace.clone(),
            RunFolder::Project(folder) => folder,
        };
        // A runtime discovers the agent's AGENTS.md only when it works in the agent's own folder;
        // elsewhere (a project folder or worktree) the repository's own instructions go too.
        let in_workspace = folder == workspace;
        let mut files = AgentFilesForRun::read(self.agents, &agent, in_workspace, &tools)?.with_heartbeat(heartbeat);
        if !in_workspace {
            files = files.in_project(&folder);
        }
        let new_session_files = files.plan(&FileSession::New)?;
        Ok(PreparedRun { kind, agent, runtime, role, tools, bridge, files, new_session_files, workspace, folder })
    }
}
