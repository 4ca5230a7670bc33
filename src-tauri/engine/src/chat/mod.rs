//! One-to-one chats: each message starts a run on the agent's runtime, continuing the session
//! the previous turn saved. Every event of the run is stored (the Activity card replays them)
//! and published live; the reply is stored when the run ends.

mod actions;
mod boo_zero;
pub mod chats;
mod direct;
mod recall;
mod slots;
pub mod team;
mod types;

use std::sync::{Arc, Mutex};

pub use actions::{ReadThreadKind, UnreadThread};
pub use files::ChatRunContext;
pub use types::{ChatMessage, ChatPage, ChatRole, RunErrorCode, RunEventRecord, RunStatus, RunSummary, SendOutcome};

// Preparing a run is the run layer's (`run::prepare`); chat names its parts by their old paths.
pub(crate) use crate::run::prepare::{conversation as store, files, setup};

use crate::agents::{Agent, Agents};
use crate::error::{Error, Result};
use crate::events::{EngineEvent, EventBus};
use crate::run::prepare::{RunKind, RunRole};
use crate::run::{AgentSlots, RunServices};
use crate::runtimes::catalog::RuntimeCatalog;
use crate::runtimes::RuntimeRegistry;
use crate::store::Store;

/// The most messages one page of history may hold.
pub const MAX_PAGE: u32 = 500;

pub struct Chat {
    store: Arc<Store>,
    agents: Arc<Agents>,
    runtimes: RuntimeRegistry,
    catalog: Arc<RuntimeCatalog>,
    events: EventBus,
    handle: tokio::runtime::Handle,
    /// Each agent's one run slot (one-to-one and team runs alike).
    slots: AgentSlots,
    /// Its run tokens end with the run.
    relay: Option<Arc<crate::relay::Relay>>,
    /// Teams, for team chat (see [`team`]).
    teams: Option<Arc<crate::teams::Teams>>,
    /// Clawboo's tools for team runs; a run's token ends with the run.
    tools: Option<Arc<crate::tools::Tools>>,
    /// Shared memory: what turns recall, and what the memory tools act on (without it they
    /// answer a tool error).
    memory: Option<Arc<crate::memory::Memory>>,
    /// The Board: a hand-off makes a card there, and the Board tools act on it (without it
    /// hand-offs make no card and the tools answer a tool error).
    board: Option<Arc<crate::board::Board>>,
    /// Where runs' permission questions and agents' questions for the user go (without it a
    /// permission question is denied: nobody could answer it).
    attention: Option<Arc<crate::attention::Attention>>,
    /// The user's connectors: each run gets those shared with its agent.
    connectors: Option<Arc<crate::connectors::Connectors>>,
    /// The circuit breakers and budgets: every run is checked before it starts, and a
    /// hand-off before it is made.
    guard: Option<Arc<crate::guard::Guard>>,
    /// Team chat's queues, pending batches and live team runs.
    team: Mutex<team::TeamState>,
    /// The conversations carried for Native, kept between turns (each turn reads what is new).
    carried: crate::run::prepare::carried::CarriedTurns,
    /// Set when the app quits: runs stopped from then on were cut off by the quit, not stopped
    /// by the user.
    quitting: std::sync::atomic::AtomicBool,
}

impl Chat {
    pub fn new(
        store: Arc<Store>,
        agents: Arc<Agents>,
        runtimes: RuntimeRegistry,
        catalog: Arc<RuntimeCatalog>,
        events: EventBus,
        handle: tokio::runtime::Handle,
    ) -> Self {
        Self {
            store,
            agents,
            runtimes,
            catalog,
            events,
            slots: AgentSlots::new(handle.clone()),
            handle,
            relay: None,
            teams: None,
            tools: None,
            memory: None,
            board: None,
            attention: None,
            connectors: None,
            guard: None,
            team: Mutex::default(),
            carried: Default::default(),
            quitting: Default::default(),
        }
    }

    /// The user's connectors, given to the runs of the agents they are shared with.
    pub fn with_connectors(mut self, connectors: Arc<crate::connectors::Connectors>) -> Self {
        self.connectors = Some(connectors);
        self
    }

    /// Forgets what is kept only to make a conversation's next turn cheaper (its carried turns,
    /// Native's written messages) for the conversations no turn used since `cutoff`: the bytes
    /// given back.
    pub fn forget_unused_since(&self, cutoff: std::time::Instant) -> usize {
        self.carried.forget_unused_since(cutoff) + self.runtimes.forget_unused_since(cutoff)
    }

    /// What preparing a run reads from (`run::prepare`).
    pub(crate) fn preparer(&self) -> crate::run::prepare::Preparer<'_> {
        crate::run::prepare::Preparer {
            agents: &self.agents,
            runtimes: &self.runtimes,
            catalog: &self.catalog,
            tools: crate::run::prepare::ToolServices {
                bridge: self.tools.as_ref(),
                memory: self.memory.is_some(),
                board: self.board.is_some(),
                attention: self.attention.is_some(),
            },
        }
    }

    pub(crate) fn run_connectors(&self, agent_id: &str) -> crate::connectors::RunConnectors {
        self.connectors.as_ref().map(|c| c.for_run(agent_id)).unwrap_or_default()
    }

    /// The context's connectors slot for this agent (turns the user reads).
    pub(crate) fn connectors_slot(&self, agent_id: &str) -> Option<crate::context::Connectors> {
        self.connectors.as_ref().and_then(|c| c.context_for(agent_id))
    }

    /// Runs are checked against the breakers and budgets before they start.
    pub fn with_guard(mut self, guard: Arc<crate::guard::Guard>) -> Self {
        self.guard = Some(guard);
        self
    }

    /// Whether a run of `scope` may start now (`Paused`, `BudgetExhausted` when not).
    pub(crate) fn check_guard(&self, scope: &crate::guard::RunScope) -> Result<()> {
        self.guard.as_ref().map_or(Ok(()), |guard| guard.check_start(scope))
    }

    /// Permission questions and questions for the user become attention requests.
    pub fn with_attention(mut self, attention: Arc<crate::attention::Attention>) -> Self {
        self.attention = Some(attention);
        self
    }

    /// Team chat over these teams.
    pub fn with_teams(mut self, teams: Arc<crate::teams::Teams>) -> Self {
        self.teams = Some(teams);
        self
    }

    /// Revokes each run's relay tokens when the run ends.
    pub fn with_relay(mut self, relay: Arc<crate::relay::Relay>) -> Self {
        self.relay = Some(relay);
        self
    }

    /// Clawboo's tools bridge: runs get a grant from it and lose it when they end.
    pub fn with_tools(mut self, tools: Arc<crate::tools::Tools>) -> Self {
        self.tools = Some(tools);
        self
    }

    /// Shared memory, which the memory tools act on.
    pub fn with_memory(mut self, memory: Arc<crate::memory::Memory>) -> Self {
        self.memory = Some(memory);
        self
    }

    /// The Board, where hand-offs make cards and the Board tools act.
    pub fn with_board(mut self, board: Arc<crate::board::Board>) -> Self {
        self.board = Some(board);
        self
    }

    /// Marks runs that a previous process left `running` as cut off. Called once at start.
    pub fn recover_interrupted(&self) -> Result<usize> {
        let runs = self.store.write(|tx| store::mark_interrupted(tx, now_ms()))?.len();
        // Chats deleted before a quit had their Undo window end with the app.
        self.purge_deleted_chats(i64::MAX)?;
        self.recover_team_work()?;
        Ok(runs)
    }

    /// Up to `limit` messages before `before_seq` (the newest when `None`), oldest first, with
    /// the runs they refer to and the run in progress. Indexed reads only: the cost of a page
    /// does not grow with the chat.
    pub fn history_page(&self, agent_id: &str, before_seq: Option<i64>, limit: u32) -> Result<ChatPage> {
        self.history_page_in(agent_id, None, before_seq, limit)
    }

    /// A page of one of the agent's chats (`None`: its most recently used one; none yet: an
    /// empty page).
    pub fn history_page_in(
        &self,
        agent_id: &str,
        chat_id: Option<&str>,
        before_seq: Option<i64>,
        limit: u32,
    ) -> Result<ChatPage> {
        if limit == 0 || limit > MAX_PAGE {
            return Err(Error::InvalidInput(format!("A page holds 1 to {MAX_PAGE} messages, not {limit}.")));
        }
        self.agents.get(agent_id)?;
        self.store.read(|c| {
            let conversation = match chat_id {
                Some(chat_id) => Some(store::chat(c, agent_id, chat_id)?),
                None => store::latest_chat(c, agent_id)?,
            };
            let Some(conversation) = conversation else {
                return Ok(ChatPage {
                    conversation_id: None,
                    messages: Vec::new(),
                    has_older: false,
                    runs: Vec::new(),
                    active_run: None,
                });
            };
            let (messages, has_older) = store::page(c, &conversation, before_seq, limit)?;
            let mut runs: Vec<RunSummary> = Vec::new();
            for run_id in messages.iter().filter_map(|m| m.run_id.as_deref()) {
                if !runs.iter().any(|r| r.id == run_id) {
                    runs.extend(store::run(c, run_id)?);
                }
            }
            let active_run = store::latest_run(c, &conversation.id)?.filter(|run| run.status == RunStatus::Running);
            Ok(ChatPage { conversation_id: Some(conversation.id.clone()), messages, has_older, runs, active_run })
        })
    }

    pub fn run(&self, run_id: &str) -> Result<RunSummary> {
        self.store.read(|c| store::run(c, run_id))?.ok_or_else(|| Error::NotFound(format!("Run {run_id}")))
    }

    /// Exactly what a one-to-one run was given ("What this agent saw"): its instruction slot,
    /// the text in front of the message, and where each agent file went.
    pub fn chat_run_context(&self, run_id: &str) -> Result<ChatRunContext> {
        self.store
            .read(|c| files::context(c, run_id))?
            .ok_or_else(|| Error::NotFound(format!("What run {run_id} was given")))
    }

    /// How each of the agent's files reaches its runtime in a one-to-one chat, with its budget
    /// (the editor's meter).
    pub fn file_routes(&self, agent_id: &str) -> Result<Vec<crate::context::files::FileRouteInfo>> {
        let agent = self.agents.get(agent_id)?;
        let tools = self.preparer().tools.offered(RunKind::Message, &RunRole::Solo);
        Ok(files::AgentFilesForRun::routes(&agent, true, &tools))
    }

    pub fn run_activity(&self, run_id: &str) -> Result<Vec<RunEventRecord>> {
        self.store.read(|c| {
            store::run(c, run_id)?.ok_or_else(|| Error::NotFound(format!("Run {run_id}")))?;
            store::events(c, run_id)
        })
    }

    pub fn cancel(&self, run_id: &str) -> Result<()> {
        self.slots.cancel(run_id)
    }

    /// Whether any chat run (one-to-one or team) is going, or team work waits to start.
    pub fn has_work(&self) -> bool {
        !self.slots.is_empty() || team::has_queued(self)
    }

    /// What a chat run deals with while it goes, and gives its grants back to when it ends.
    fn run_services(&self) -> RunServices<'_> {
        RunServices {
            attention: self.attention.as_deref(),
            relay: self.relay.as_deref(),
            tools: self.tools.as_deref(),
            guard: self.guard.as_deref(),
        }
    }

    /// The chat a run is in (a one-to-one run; `None` for a team or task run, or no such run).
    pub fn chat_of_run(&self, run_id: &str) -> Result<Option<String>> {
        self.store.read(|c| {
            Ok(rusqlite::OptionalExtension::optional(c.query_row(
                "SELECT c.id FROM runs r JOIN conversations c ON c.id = r.conversation_id
                 WHERE r.id = ?1 AND c.kind = 'direct' AND c.deleted_at IS NULL",
                [run_id],
                |r| r.get(0),
            ))?)
        })
    }

    /// `/new`: a new chat, opened by a notice; the agent's next message there starts a runtime
    /// session of its own.
    fn start_new_chat(&self, agent: &Agent) -> Result<SendOutcome> {
        let now = now_ms();
        let message = self.store.write(|tx| {
            let conversation = store::new_chat(tx, &agent.id, now)?;
            store::add_message(
                tx,
                &conversation,
                ChatRole::Notice,
                "New chat: the agent starts fresh here, with your saved notes. Your other chats stay in the list.",
                None,
                conversation.epoch,
                now,
            )
        })?;
        self.events.publish(EngineEvent::ChatMessageAdded { agent_id: agent.id.clone(), message: message.clone() });
        Ok(SendOutcome { message, run: None })
    }

    fn reset(&self, agent: &Agent, chat_id: Option<&str>) -> Result<SendOutcome> {
        let now = now_ms();
        let message = self.store.write(|tx| {
            let conversation = match chat_id {
                Some(chat_id) => store::chat(tx, &agent.id, chat_id)?,
                None => store::current_chat(tx, &agent.id, now)?,
            };
            let epoch = store::reset(tx, &conversation.id)?;
            store::add_message(
                tx,
                &conversation,
                ChatRole::Notice,
                "Conversation reset: the agent starts fresh from the next message. Earlier messages stay here.",
                None,
                epoch,
                now,
            )
        })?;
        self.events.publish(EngineEvent::ChatMessageAdded { agent_id: agent.id.clone(), message: message.clone() });
        Ok(SendOutcome { message, run: None })
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

pub use crate::vocab::clock::now_ms;
