//! Clawboo's engine: everything that runs agents. It never depends on Tauri; the desktop shell
//! turns its services into commands and its events into UI events.
//!
//! Its parts sit in layers whose imports point only down. Every layer under this crate's own
//! modules is a crate, so the compiler refuses an upward import: `clawboo-vocab`,
//! `clawboo-store` (the store, events, secrets, config, logs), `clawboo-context`, the domain —
//! `clawboo-board`, `clawboo-memory`, `clawboo-agents`, `clawboo-teams`, `clawboo-attention`,
//! `clawboo-routines` —, then `clawboo-tools` (loopback, Clawboo's tools, connectors),
//! `clawboo-runtimes` (the runtimes, their supervision and sandbox, the relay) and `clawboo-run`
//! (where every run is driven, recorded and ended). This crate keeps the services that start
//! work — Boo Zero, chat, onboarding, the task runner and the local API, whose order
//! `tests/layers.rs` checks — and `Engine`, which wires them all, giving lower layers the traits
//! they need from higher ones. See `src-tauri/ARCHITECTURE.md`.

// The lower layers are crates of their own, so none of them can import upward (the compiler
// refuses it); each is re-exported at its old path, so `crate::board::...` and
// `clawboo_engine::board::...` keep working.
pub use clawboo_agents as agents;
pub use clawboo_attention as attention;
pub use clawboo_board as board;
pub use clawboo_context as context;
pub use clawboo_history as history;
pub use clawboo_memory as memory;
pub use clawboo_routines as routines;
pub use clawboo_run::{guard, run};
pub use clawboo_runtimes::{models, relay, runtimes};
pub use clawboo_spend as spend;
pub use clawboo_store::{config, events, logs, preferences, secrets, store};
pub use clawboo_teams as teams;
pub use clawboo_tools::{connectors, loopback, tools};
pub use clawboo_vocab as vocab;
pub use clawboo_vocab::error;

// The services that start work, modules of the engine (their order is checked by tests/layers.rs).
pub mod api;
pub mod boo_zero;
pub mod chat;
pub mod gateway_links;
pub mod home;
pub mod idle;
pub mod links;
pub mod onboarding;
pub mod open_steps;
pub mod runner;
pub mod spending;

use std::sync::Arc;
use std::time::Duration;

pub use config::EngineConfig;
pub use error::{Error, ErrorCode, Result};
pub use events::{EngineEvent, EventBus, EventReceiver};
pub use open_steps::OpenSteps;

use agents::{Agents, FileWatcher, Workspaces};
use attention::{Attention, AttentionRequest, Decision, RequestKind, UserAnswer};
use board::Board;
use chat::Chat;
use memory::Memory;
use relay::Relay;
use runner::{Runner, RunnerParts};
use runtimes::catalog::RuntimeCatalog;
use secrets::Secrets;
use store::Store;
use teams::Teams;

pub struct Engine {
    config: EngineConfig,
    store: Arc<Store>,
    events: EventBus,
    agents: Arc<Agents>,
    secrets: Arc<Secrets>,
    catalog: Arc<RuntimeCatalog>,
    chat: Arc<Chat>,
    teams: Arc<Teams>,
    memory: Arc<Memory>,
    board: Arc<Board>,
    attention: Arc<Attention>,
    runner: Arc<Runner>,
    routines: Arc<routines::Routines>,
    /// The circuit breakers and budgets every run is checked against.
    guard: Arc<guard::Guard>,
    spawner: Arc<dyn runtimes::process::Spawner>,
    relay: Arc<Relay>,
    tools: Arc<tools::Tools>,
    local_api: api::LocalApi,
    connectors: Arc<connectors::Connectors>,
    /// The long-lived links to the OpenClaw Gateways agents run on, and their health.
    gateway_links: Arc<gateway_links::GatewayLinks>,
    /// The model lists providers offered (Native's model field).
    models: models::ModelLists,
    _watcher: FileWatcher,
    /// Runs, their processes and their streams live here, apart from the UI's runtime.
    runtime: Option<tokio::runtime::Runtime>,
    /// How long each step of opening took.
    open_steps: OpenSteps,
    /// Released last (fields drop in order), after shutdown stopped every process.
    _lock: config::DataDirLock,
}

impl Engine {
    /// Opens the data directory, for this engine alone (a second open fails with
    /// `DataDirInUse`): process groups a crashed predecessor left running are stopped, then the
    /// database (migrated), agent workspaces (reconciled with the rows), the watcher on agent
    /// files, the chat service (runs cut off by a previous stop are marked as such) and the task
    /// runner (the cards those runs held go back to To do).
    pub fn open(config: EngineConfig) -> Result<Self> {
        Self::open_with(config, Vec::new())
    }

    /// Like [`Engine::open`], with adapters that replace the built-in ones of the same kind
    /// (tests use this to script a runtime).
    pub fn open_with(mut config: EngineConfig, replace: Vec<Arc<dyn runtimes::Runtime>>) -> Result<Self> {
        let mut timer = open_steps::StepTimer::start();
        config::prepare_data_dir(&config.data_dir)?;
        // Its real path: agents' sandboxes bind their folders by real path, and every path an
        // agent is given (its home, its temp) is derived from this one.
        if let Ok(real) = config.data_dir.canonicalize() {
            config.data_dir = real;
        }
        let lock = config::lock_data_dir(&config.data_dir)?;
        tracing::info!(data_dir = %config.data_dir.display(), version = env!("CARGO_PKG_VERSION"), "opening the engine");
        timer.step("data folder");
        let processes = Arc::new(runtimes::orphans::ProcessRegistry::new(&config.data_dir));
        for group in processes.sweep() {
            tracing::info!(pgid = group.pgid, program = %group.program, "stopped a process group left by an earlier run");
        }
        timer.step("orphan sweep");
        let spawner: Arc<dyn runtimes::process::Spawner> =
            Arc::new(runtimes::orphans::RecordedSpawner::new(processes.clone()));
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("clawboo-engine")
            .enable_all()
            .build()
            .map_err(|e| Error::io("Cannot start the engine's task runtime", e))?;
        timer.step("task runtime");
        let store = Arc::new(Store::open(&config.database_path())?);
        // Usage recorded before the spend tables existed is counted once, now.
        let backfilled = store.write(|tx| spend::backfill::backfill_if_pending(tx))?;
        if backfilled > 0 {
            tracing::info!(lines = backfilled, "counted the spend recorded before the spend tables");
        }
        timer.step("database (migrated)");
        let events = EventBus::new();
        let workspaces = Workspaces::new(config.agents_dir())?;
        let secrets = Arc::new(Secrets::new(config.keychain_service.clone(), store.clone()));
        let agents =
            Arc::new(Agents::new(store.clone(), workspaces.clone(), events.clone()).with_secrets(secrets.clone()));
        agents.reconcile_workspaces()?;
        timer.step("agent folders");
        let watcher = FileWatcher::start(workspaces, events.clone())?;
        timer.step("file watcher");
        let catalog = Arc::new(RuntimeCatalog::new(store.clone()));
        // Runtimes reach models through the relay: they get a token per run, never the key.
        let relay = Relay::start_with(store.clone(), secrets.clone(), runtime.handle(), config.server_limits)?;
        // Clawboo's own tools, served to the CLIs over loopback MCP; the chat service sets the host.
        let tools = tools::Tools::start_with(runtime.handle(), config.server_limits)?;
        timer.step("relay and tools servers");
        let adapters = runtimes::adapters(relay.clone(), catalog.clone(), secrets.clone(), spawner.clone());
        let registry = replace.into_iter().fold(adapters, |r, a| r.with(a));
        let gateway_links = gateway_links::GatewayLinks::start(
            registry.get(agents::RuntimeKind::Openclaw).and_then(|r| r.gateway_health().cloned()),
            agents.clone(),
            secrets.clone(),
            events.clone(),
            runtime.handle().clone(),
        );
        let connectors = Arc::new(connectors::Connectors::new(store.clone(), secrets.clone(), events.clone()));
        let teams = Arc::new(Teams::new(store.clone(), agents.clone(), events.clone()));
        let memory = Arc::new(Memory::new(store.clone(), events.clone()));
        let board = Arc::new(Board::new(store.clone(), events.clone()));
        let attention =
            Arc::new(Attention::new(store.clone(), agents.clone(), events.clone()).with_memory(memory.clone()));
        // Approvals left open by an earlier app died with its runs.
        attention.recover()?;
        timer.step("services, approvals recovered");
        let guard = Arc::new(guard::Guard::new(store.clone()).with_attention(attention.clone()));
        let chat = Arc::new(
            Chat::new(
                store.clone(),
                agents.clone(),
                registry.clone(),
                catalog.clone(),
                events.clone(),
                runtime.handle().clone(),
            )
            .with_relay(relay.clone())
            .with_tools(tools.clone())
            .with_memory(memory.clone())
            .with_board(board.clone())
            .with_attention(attention.clone())
            .with_teams(teams.clone())
            .with_connectors(connectors.clone())
            .with_guard(guard.clone()),
        );
        // What happens in a team and on its cards waits in the agents' inboxes (held weakly).
        let team_inbox = Arc::new(chat::team::TeamInbox(Arc::downgrade(&chat)));
        teams.watch(team_inbox.clone());
        board.watch(team_inbox);
        // The tools' one dispatcher, with every service it acts on; it holds the chat weakly.
        let team_chat = Arc::new(chat::team::TeamChat(Arc::downgrade(&chat)));
        tools.set_host(Arc::new(tools::Dispatcher::new(tools::Services {
            store: store.clone(),
            agents: agents.clone(),
            teams: teams.clone(),
            memory: memory.clone(),
            board: board.clone(),
            attention: attention.clone(),
            handoffs: team_chat.clone(),
            peer_rooms: team_chat,
        })));
        chat.recover_interrupted()?;
        timer.step("chat (runs cut off marked)");
        // After the chat service marked every run left running as cut off: the task runner
        // releases the cards those runs held.
        let runner = Arc::new(Runner::new(RunnerParts {
            store: store.clone(),
            agents: agents.clone(),
            board: board.clone(),
            memory: memory.clone(),
            runtimes: registry,
            catalog: catalog.clone(),
            events: events.clone(),
            handle: runtime.handle().clone(),
            spawner: spawner.clone(),
            relay: Some(relay.clone()),
            tools: Some(tools.clone()),
            connectors: Some(connectors.clone()),
            teams: teams.clone(),
            attention: attention.clone(),
            guard: Some(guard.clone()),
            worktrees: config.data_dir.join("worktrees"),
        }));
        // Boo Zero missing is no reason not to start: the app runs without its pin, and the next
        // start tries again.
        if let Err(e) = boo_zero::BooZero::new(store.clone(), agents.clone()).ensure(&secrets, &catalog) {
            tracing::warn!(error = %e, "Boo Zero could not be made");
        }
        timer.step("Boo Zero");
        runner.recover_cut_off()?;
        runner.sweep_worktrees();
        runner.watch_board();
        expire_approvals(&attention, runtime.handle());
        idle::forget_periodically(&chat, &relay, &store, runtime.handle());
        timer.step("task runner (cards released, worktrees swept)");
        let local_api = api::LocalApi::new(api::LocalApiParts {
            store: store.clone(),
            agents: agents.clone(),
            board: board.clone(),
            runner: runner.clone(),
            events: events.clone(),
            secrets: secrets.clone(),
            handle: runtime.handle().clone(),
            data_dir: config.data_dir.clone(),
            server_limits: config.server_limits,
            guard: Some(guard.clone()),
        });
        local_api.resume();
        timer.step("local API");
        let routines = Arc::new(routines::Routines::new(routines::RoutinesParts {
            store: store.clone(),
            events: events.clone(),
            agents: agents.clone(),
            teams: teams.clone(),
            board: board.clone(),
            attention: attention.clone(),
            work: Arc::new(RoutineRuns { runner: runner.clone(), chat: chat.clone() }),
        }));
        // After the runner released the cards of runs cut off: the scheduler sees how they ended.
        routines.recover()?;
        routines.start(runtime.handle());
        let models = models::ModelLists::new(secrets.clone());
        timer.step("routines");
        // What the open read (migrations, recoveries) is not what the app reads at idle.
        store.release_memory()?;
        Ok(Self {
            models,
            config,
            store,
            events,
            agents,
            secrets,
            catalog,
            chat,
            teams,
            memory,
            board,
            attention,
            runner,
            routines,
            guard,
            spawner,
            relay,
            tools,
            local_api,
            connectors,
            gateway_links,
            _watcher: watcher,
            runtime: Some(runtime),
            open_steps: timer.finish(),
            _lock: lock,
        })
    }

    /// How long each step of opening this engine took (the app's start-up report prints them).
    pub fn open_steps(&self) -> &OpenSteps {
        &self.open_steps
    }

    pub fn config(&self) -> &EngineConfig {
        &self.config
    }

    pub fn agents(&self) -> &Agents {
        &self.agents
    }

    pub fn secrets(&self) -> &Secrets {
        &self.secrets
    }

    /// Which OpenClaw Gateway an agent uses (whether its token is set, never the token).
    pub fn openclaw_gateway(&self, agent_id: &str) -> Result<agents::OpenclawGateway> {
        agents::gateway::status(&self.agents, &self.secrets, agent_id)
    }

    /// Points an OpenClaw agent at a Gateway the user runs, or back to one Clawboo starts.
    pub fn set_openclaw_gateway(
        &self,
        agent_id: &str,
        input: agents::OpenclawGatewayInput,
    ) -> Result<agents::OpenclawGateway> {
        let set = agents::gateway::set(&self.agents, &self.secrets, agent_id, input)?;
        // A new token with the same address changes no agent row: the link starts again here.
        self.gateway_links.sync();
        Ok(set)
    }

    /// The health of the link to each OpenClaw Gateway an agent runs on (one the user runs):
    /// connected / connecting / lost, latency, version, since when, the last error. No token.
    pub fn gateway_healths(&self) -> Vec<vocab::GatewayHealth> {
        self.gateway_links.healths()
    }

    /// Teams of agents, their rules, brief, About you and rooms.
    pub fn teams(&self) -> &Arc<Teams> {
        &self.teams
    }

    /// Shared memory: facts, saved notes, scratch notes and promotions.
    pub fn memory(&self) -> &Arc<Memory> {
        &self.memory
    }

    /// The Board: task cards, their moves, claims, dependencies, comments and runs.
    pub fn board(&self) -> &Arc<Board> {
        &self.board
    }

    /// The task runner: runs Board cards for their assignees.
    pub fn runner(&self) -> &Arc<Runner> {
        &self.runner
    }

    /// Routines: work on a schedule, their runs and the scheduler.
    pub fn routines(&self) -> &Arc<routines::Routines> {
        &self.routines
    }

    /// The circuit breakers and budgets (Settings › Limits, the budgets, the paused scopes).
    pub fn guard(&self) -> &Arc<guard::Guard> {
        &self.guard
    }

    /// The models `provider` offers (its `GET /v1/models`, with the key from the keychain), kept
    /// from the last time unless `refresh`.
    pub fn provider_models(&self, provider: secrets::Provider, refresh: bool) -> Result<models::ProviderModels> {
        self.block_on(self.models.list(provider, refresh))
    }

    /// Home: the runs in progress, the open requests, the blocked cards, the routines due next.
    pub fn home_summary(&self) -> Result<home::HomeSummary> {
        home::summary(&self.store, self.attention.open()?)
    }

    /// Search everything (the ⌘/Ctrl+K palette): agents, teams, rooms, chats, cards, routines
    /// and facts by name, then messages by their words, best first. Any text is a valid query.
    pub fn search(&self, query: &str) -> Result<Vec<history::Found>> {
        self.store.read(|c| history::everything::search(c, query))
    }

    /// `agent_id`'s one-to-one chats: pinned first, then the most recently used.
    pub fn chats_of(&self, agent_id: &str) -> Result<Vec<history::chats::ChatSummary>> {
        self.chat.chats(agent_id)
    }

    /// A chat, a team room or a card's runs, rendered to save (see [`history::export`]).
    pub fn export(&self, target: &history::ExportTarget, format: history::ExportFormat) -> Result<history::Export> {
        self.store.read(|c| history::export::export(c, target, format, vocab::now_ms()))
    }

    /// A link from a reply, when it may open in the browser (http, https, mailto).
    pub fn checked_link(&self, url: &str) -> Result<String> {
        links::checked_link(url)
    }

    /// A path from a reply made canonical, when it is inside an agent's folder, a card's
    /// worktree or a project folder; a relative one is taken inside `agent_id`'s folder.
    pub fn checked_path(&self, path: &str, agent_id: Option<&str>) -> Result<std::path::PathBuf> {
        let base = match agent_id {
            Some(id) => Some(self.agents.workspaces().dir(&self.agents.get(id)?.id)),
            None => None,
        };
        let folders = links::OpenableFolders {
            agents_dir: self.config.agents_dir(),
            worktrees_dir: self.config.data_dir.join("worktrees"),
        };
        folders.check(&self.store, path, base.as_deref())
    }

    /// Answers a runtime's permission request of run `run_id` (the buttons in a chat's or a
    /// card's run), whichever service runs it: one path for every approval.
    pub fn answer_permission(&self, run_id: &str, request_id: &str, decision: Decision) -> Result<AttentionRequest> {
        self.attention.answer_permission(run_id, request_id, decision)
    }

    /// Whether agents are working: a chat or team run going or waiting, a card's task running or
    /// queued, a routine active. (Closing the window then keeps Clawboo in the tray.)
    pub fn has_work(&self) -> bool {
        let (running, queued) = self.runner.active();
        self.chat.has_work() || !running.is_empty() || !queued.is_empty() || self.routines.has_work()
    }

    /// True the first time it is asked for `what` (kept in the settings), false ever after:
    /// for things the app says once ("Clawboo keeps running in the tray").
    pub fn first_time(&self, what: &str) -> Result<bool> {
        let key = format!("once.{what}");
        self.store.write(|tx| store::settings::set_once(tx, &key))
    }

    /// How much the app logs (a setting; the shell applies it to its subscriber).
    pub fn log_level(&self) -> Result<logs::LogLevel> {
        logs::level(&self.store)
    }

    pub fn set_log_level(&self, level: logs::LogLevel) -> Result<logs::LogLevel> {
        logs::set_level(&self.store, level)
    }

    /// The theme and the place the window showed last (see [`preferences`]).
    pub fn window_preferences(&self) -> Result<preferences::WindowPreferences> {
        preferences::get(&self.store)
    }

    pub fn set_theme(&self, theme: preferences::Theme) -> Result<preferences::Theme> {
        preferences::set_theme(&self.store, theme)
    }

    pub fn set_last_place(&self, place: Option<&str>) -> Result<()> {
        preferences::set_last_place(&self.store, place)
    }

    /// The log's last `lines` lines (bounded: see [`logs::recent_lines`]), for an error's
    /// "Copy details".
    pub fn recent_log_lines(&self, lines: u32) -> Result<Vec<String>> {
        logs::recent_lines(&self.config.log_dir(), lines as usize)
    }

    /// Requests for the user and approvals: the inbox, the tray, grants, the audit.
    pub fn attention(&self) -> &Arc<Attention> {
        &self.attention
    }

    /// The user's answer to an attention request, given in the app: the only way one is
    /// answered. A question's answer goes back where it came from first (the team chat as the
    /// user's message to the agent, its one-to-one chat, or its card as a comment, with the card
    /// run again); only then is the request closed, so a failed delivery loses nothing. A
    /// promotion's decision is applied to the note; an allowed memory save saves its fact.
    pub fn answer_attention(&self, id: &str, answer: UserAnswer) -> Result<AttentionRequest> {
        let request = self.attention.check_answer(id, &answer)?;
        match (&request.kind, &answer) {
            (RequestKind::Question, UserAnswer::Text { text }) => {
                if let Err(e) = self.deliver_answer(&request, text.trim()) {
                    if !matches!(e, Error::NotFound(_)) {
                        return Err(e);
                    }
                    // Where the answer was to go (its team, card or chat) was deleted: nobody
                    // can ever get it, so the request leaves the inbox instead of staying there.
                    let why = format!("Its answer could not be delivered: {e}.");
                    self.attention.withdraw_question(id, &why)?;
                    return Err(Error::NotFound(format!(
                        "Where this question came from is gone ({e}), so it was closed unanswered."
                    )));
                }
                self.attention.answer(id, &answer)
            }
            (RequestKind::Promotion, UserAnswer::Decision { decision }) => {
                let answered = self.attention.answer(id, &answer)?;
                if let Some(promotion) = &request.promotion_id {
                    self.memory.decide_promotion(promotion, decision.allows())?;
                }
                Ok(answered)
            }
            (RequestKind::MemorySave, UserAnswer::Decision { decision }) => {
                // Allowed: the fact is saved, exactly as held, in the transaction that stores the
                // answer (both or neither: a fact that cannot be saved leaves the request open).
                let allowed = decision.allows();
                let answered = self.attention.answer_with(id, &answer, |tx| {
                    if allowed {
                        memory::save_held(tx, id)?;
                    }
                    Ok(())
                })?;
                if allowed {
                    self.memory.changed();
                }
                Ok(answered)
            }
            (
                RequestKind::ScopePaused | RequestKind::BudgetWarning | RequestKind::BudgetReached,
                UserAnswer::Decision { decision },
            ) => {
                // Allowed: the scope resumes (or a spent budget lets runs go on until tomorrow)
                // first, so an answer that cannot be carried out leaves the request open.
                if decision.allows() {
                    self.guard.approved(&request.id)?;
                }
                self.attention.answer(id, &answer)
            }
            (RequestKind::RoutineProposal | RequestKind::RoutinePaused, UserAnswer::Decision { decision }) => {
                // Allowed: the routine is created (or resumed) first, so an answer that cannot be
                // carried out leaves the request open, to deny.
                if decision.allows() {
                    self.routines.approved(&request)?;
                }
                self.attention.answer(id, &answer)
            }
            _ => self.attention.answer(id, &answer),
        }
    }

    /// A scratch-note promotion decided on the Memory page: its approval is answered too.
    pub fn decide_promotion(&self, id: &str, approve: bool) -> Result<memory::Promotion> {
        let promotion = self.memory.decide_promotion(id, approve)?;
        self.attention.promotion_decided(id, approve)?;
        Ok(promotion)
    }

    fn deliver_answer(&self, request: &AttentionRequest, text: &str) -> Result<()> {
        match request.origin {
            attention::Origin::Team => {
                let team_id = request
                    .team_id
                    .as_deref()
                    .ok_or_else(|| Error::Internal("a team request without its team".into()))?;
                self.chat.answer_in_team(team_id, request.room_id.as_deref(), &request.agent_id, &request.text, text)
            }
            attention::Origin::Chat => {
                // The answer goes to the chat the question came from.
                let chat_id = match request.run_id.as_deref() {
                    Some(run_id) => self.chat.chat_of_run(run_id)?,
                    None => None,
                };
                self.chat.send_in(&request.agent_id, chat_id.as_deref(), text).map(|_| ()).map_err(|e| match e {
                    Error::Conflict(_) | Error::RunNotActive(_) => Error::Conflict(format!(
                        "{} is still working in its chat; answer again when its run has ended.",
                        request.agent_name
                    )),
                    other => other,
                })
            }
            attention::Origin::Card => {
                let card_id = request
                    .card_id
                    .as_deref()
                    .ok_or_else(|| Error::Internal("a card request without its card".into()))?;
                let comment = format!("Answer to \"{}\":\n\n{text}", request.text);
                self.board.comment(board::Actor::User, card_id, board::CommentKind::Comment, &comment, None)?;
                // The next run reads the answer (comments since its last run wait for it). A card
                // already running, or one that cannot run now, keeps the comment for later.
                let card = self.board.get(card_id)?;
                if card.claimed_by_run.is_none() && card.assignee_id.is_some() {
                    if matches!(
                        card.status,
                        board::CardStatus::Blocked | board::CardStatus::InReview | board::CardStatus::Done
                    ) {
                        let _ = self.board.move_card(board::Actor::User, card_id, board::CardStatus::Todo, None, None);
                    }
                    let _ = self.runner.start(card_id, runner::StartOptions::default());
                }
                Ok(())
            }
        }
    }

    pub fn chat(&self) -> &Arc<Chat> {
        &self.chat
    }

    /// Deletes an agent after stopping its run (awaited), so nothing runs in a folder that
    /// is going away. Its teams and rooms lose it (the store cascades), so teams changed too,
    /// and so did the Board (its cards are left unassigned).
    pub fn delete_agent(&self, id: &str) -> Result<()> {
        self.store.read(|c| agents::check_deletable(c, id))?;
        // Its task runs end first: nothing may run in a folder that is going away.
        self.runner.stop_agent(id, Duration::from_secs(10))?;
        self.chat.delete_agent(id, Duration::from_secs(10))?;
        // Its one-to-one questions went with its chat.
        if let Err(e) = self.attention.agent_deleted(id) {
            tracing::warn!(agent_id = %id, error = %e, "a deleted agent's questions stay open");
        }
        self.events.publish(EngineEvent::TeamsChanged);
        // Its cards lost their assignee (the store sets it to none).
        self.events.publish(EngineEvent::BoardChanged { card_id: None });
        Ok(())
    }

    /// Boo Zero, the user's own coordinator: its agent, rules and the global brief.
    pub fn boo_zero(&self) -> boo_zero::BooZero {
        boo_zero::BooZero::new(self.store.clone(), self.agents.clone())
    }

    /// First run: whether it is one, what this machine offers, the starter team.
    pub fn onboarding(&self) -> onboarding::Onboarding {
        onboarding::Onboarding::new(
            self.store.clone(),
            self.agents.clone(),
            self.teams.clone(),
            self.secrets.clone(),
            self.catalog.clone(),
        )
    }

    /// Forgets what conversations no turn used since `cutoff` keep between turns (see
    /// [`idle`]; the engine does it on its own for those quiet for [`idle::UNUSED_FOR`]): the
    /// bytes given back.
    pub fn forget_unused_since(&self, cutoff: std::time::Instant) -> usize {
        idle::forget_unused_since(&self.chat, &self.relay, &self.store, cutoff)
    }

    /// The model relay: what each run sent to a model ([`Relay::requests`]).
    pub fn relay(&self) -> &Arc<Relay> {
        &self.relay
    }

    /// Clawboo's tools bridge (its MCP server and the runs' tokens).
    pub fn tools(&self) -> &Arc<tools::Tools> {
        &self.tools
    }

    /// The local API for the user's scripts: on or off, its port, its token.
    pub fn local_api(&self) -> &api::LocalApi {
        &self.local_api
    }

    /// MCP servers the user plugs in and shares with chosen agents.
    pub fn connectors(&self) -> &Arc<connectors::Connectors> {
        &self.connectors
    }

    pub fn runtimes(&self) -> &RuntimeCatalog {
        &self.catalog
    }

    /// How the engine starts processes: recorded for the sweep at the next start.
    pub fn spawner(&self) -> Arc<dyn runtimes::process::Spawner> {
        self.spawner.clone()
    }

    pub fn events(&self) -> &EventBus {
        &self.events
    }

    /// Runs async engine work to completion from a plain (non-async) thread.
    pub fn block_on<F: std::future::Future>(&self, work: F) -> F::Output {
        self.runtime.as_ref().expect("engine runtime present until drop").block_on(work)
    }

    /// Stops every run and waits for its processes to end. Called when the app quits.
    pub fn shutdown(&self) {
        tracing::info!("stopping every run");
        // No script starts a run while the runs are being stopped.
        self.local_api.stop();
        // Task runs first: each marks itself cut off and puts its card back in To do.
        self.runner.shutdown(Duration::from_secs(8));
        self.chat.shutdown(Duration::from_secs(8));
        // No run is left to call a model: the keys read this session leave memory.
        self.secrets.forget_keys();
        self.gateway_links.stop();
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        self.shutdown();
        if let Some(runtime) = self.runtime.take() {
            // Dropping a runtime may happen inside another runtime's task (tests, the shell).
            runtime.shutdown_background();
        }
    }
}

/// Denies approvals nobody answered in time, checking every 30 seconds for as long as the
/// engine's runtime lives.
fn expire_approvals(attention: &Arc<Attention>, handle: &tokio::runtime::Handle) {
    let attention = Arc::downgrade(attention);
    handle.spawn(async move {
        let mut tick = tokio::time::interval(Duration::from_secs(30));
        loop {
            tick.tick().await;
            let Some(attention) = attention.upgrade() else { return };
            if let Err(e) = attention.expire_due(chat::now_ms()) {
                tracing::error!(error = %e, "expiring approvals failed");
            }
        }
    });
}

/// Routines' work, run by the task runner (an agent's routine: its card) and team chat (a
/// team's routine: a message to its room).
struct RoutineRuns {
    runner: Arc<runner::Runner>,
    chat: Arc<chat::Chat>,
}

impl routines::RoutineWork for RoutineRuns {
    fn start_card(&self, card_id: &str) -> Result<String> {
        Ok(self.runner.start(card_id, runner::StartOptions::default())?.run_id)
    }

    fn send_to_team(&self, room_id: &str, prompt: &str, tag: vocab::routine::RoutineTag) -> Result<()> {
        self.chat.send_routine(room_id, prompt, tag)
    }

    fn run_status(&self, run_id: &str) -> Option<(vocab::RunStatus, Option<String>)> {
        self.chat.run(run_id).ok().map(|run| (run.status, run.error))
    }

    fn team_message_waiting(&self, routine_run_id: &str) -> bool {
        self.chat.routine_waiting(routine_run_id)
    }
}
