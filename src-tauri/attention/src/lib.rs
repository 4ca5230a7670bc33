//! `clawboo-attention`: requests for the user — questions, approvals, their audit and grants,
//! and the rules the tray and notifications follow. It may use `clawboo-vocab`, `clawboo-store`,
//! `clawboo-agents` and `clawboo-memory` (a scratch-note promotion nobody approved in time is
//! rejected there); the engine re-exports it as `clawboo_engine::attention`.
//!
//! What needs the user. Agents raise **questions** (`ask_user`, `@user` in team
//! chat); runs raise typed **approvals** (a runtime's permission request, a scratch-note
//! promotion). Every request is stored durably with its source and stays open until the user
//! answers it in the app; approvals expire (denied) after a configurable time. Every request,
//! answer and grant is in the audit.
//!
//! No self-approval: [`Attention::answer`] is the only way to answer, and it is reached only
//! from the shell's commands, that is, from the user acting in the app. No tool calls it; text
//! an agent writes (chat, peer room, tool result, card comment) is never read as an answer.

mod burst;
pub mod shell;
mod store;
pub mod tray;
pub mod types;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use tokio::sync::oneshot;

pub use burst::{BurstGate, Notice, BURST_WINDOW_MS};
pub use tray::{Arrival, Notification, Notifier, Viewing};
pub use types::*;

use clawboo_agents::Agents;
use clawboo_store::events::{EngineEvent, EventBus};
use clawboo_store::store::Store;
use clawboo_vocab::clock::now_ms;
use clawboo_vocab::error::{Error, Result};
use clawboo_vocab::permission::{PendingPermission, PermissionAnswer};

/// Who an audit line names when Clawboo itself acted (expiry, a grant, a run that ended).
const CLAWBOO: &str = "clawboo";
/// Who an audit line names when the user acted in the app.
const USER: &str = "you";

/// What raising an approval came to.
#[derive(Debug, Clone, PartialEq)]
pub enum Raised {
    /// Waiting for the user.
    Open(AttentionRequest),
    /// Let through by an earlier "Allow always" (kept in the history all the same).
    Granted(AttentionRequest),
}

pub struct Attention {
    store: Arc<Store>,
    agents: Arc<Agents>,
    events: EventBus,
    /// The runs' permission questions waiting for an answer, by request id.
    waiting: Mutex<HashMap<String, oneshot::Sender<PermissionAnswer>>>,
    /// Where an expired promotion is rejected.
    memory: Option<Arc<clawboo_memory::Memory>>,
}

impl Attention {
    pub fn new(store: Arc<Store>, agents: Arc<Agents>, events: EventBus) -> Self {
        Self { store, agents, events, waiting: Mutex::default(), memory: None }
    }

    /// A promotion nobody approved in time is rejected in this memory.
    pub fn with_memory(mut self, memory: Arc<clawboo_memory::Memory>) -> Self {
        self.memory = Some(memory);
        self
    }

    /// At start: approvals left open by an earlier app belong to runs that died with it.
    /// Questions stay open: they are answered into the chat or card, which outlives runs.
    pub fn recover(&self) -> Result<usize> {
        let now = now_ms();
        let count = self.store.write(|tx| {
            let open = store::open_where(tx, "r.kind = ?1", "permission")?;
            for request in &open {
                store::close(tx, &request.id, RequestStatus::Withdrawn, None, None, now)?;
                store::audit(
                    tx,
                    now,
                    Some(&request.id),
                    CLAWBOO,
                    AuditAction::Withdrawn,
                    "Clawboo was closed before an answer; the run that asked was cut off.",
                )?;
            }
            Ok(open.len())
        })?;
        if count > 0 {
            self.publish(None);
        }
        Ok(count)
    }

    // --- Raising -------------------------------------------------------------------------

    /// An agent asks the user something. Empty or over [`MAX_QUESTION_CHARS`] is refused.
    pub fn raise_question(&self, source: &Source, text: &str) -> Result<AttentionRequest> {
        let text = text.trim();
        if text.is_empty() {
            return Err(Error::InvalidInput("The question is empty.".into()));
        }
        if text.chars().count() > MAX_QUESTION_CHARS {
            return Err(Error::InvalidInput(format!(
                "A question for the user has at most {MAX_QUESTION_CHARS} characters; ask it shorter."
            )));
        }
        self.raise(source, RequestKind::Question, text, None, None, None, None)
    }

    /// A run's runtime asks before using a tool. Allowed at once when the user chose "Allow
    /// always" for this agent and tool (for a shell tool: and a prefix this command starts with,
    /// see [`shell`]); otherwise open until answered, expired, or its run ends.
    pub fn ask_permission(&self, source: &Source, pending: PendingPermission) -> Result<Raised> {
        let input = pretty_input(&pending.input);
        let text = if pending.description.trim().is_empty() {
            format!("Use {}", pending.tool)
        } else {
            pending.description.trim().to_owned()
        };
        let granting =
            self.store.read(|c| store::granting(c, &source.agent_id, &pending.tool, Some(&pending.input)))?;
        // Let through by a grant: the request keeps the prefix that let it through; else the
        // prefix its "Allow always" would grant.
        let granted = granting.is_some();
        let prefix = granting.unwrap_or_else(|| shell::grant_prefix(&pending.tool, &pending.input));
        let id = new_id();
        // The reply waits under the request's id before the request exists anywhere: an answer
        // given the moment it shows (the event is published as it is stored) must find it, or
        // it would take the run for ended and withdraw the request.
        let reply = if granted {
            Some(pending.reply)
        } else {
            self.lock_waiting().insert(id.clone(), pending.reply);
            None
        };
        let raised = self.raise_with(
            &id,
            source,
            RequestKind::Permission,
            &text,
            Some(&pending.tool),
            Some(&input),
            Some(&pending.request_id),
            None,
            prefix.as_deref(),
            granted,
            None,
        );
        let request = match raised {
            Ok(request) => request,
            Err(e) => {
                self.lock_waiting().remove(&id); // dropping the reply denies
                return Err(e);
            }
        };
        match reply {
            Some(reply) => {
                let _ = reply.send(PermissionAnswer { allow: true });
                Ok(Raised::Granted(request))
            }
            None => Ok(Raised::Open(request)),
        }
    }

    /// An agent asks to copy a scratch note to a wider scope (`tool` is the tool it used).
    /// Granted at once after an "Allow always" for this agent and tool.
    /// Asking again for a promotion that still waits (the memory hands back the pending one)
    /// raises nothing new: the open request stands for it.
    pub fn raise_promotion(&self, source: &Source, promotion_id: &str, tool: &str, text: &str) -> Result<Raised> {
        if let Some(open) = self.store.read(|c| store::find_by_promotion(c, promotion_id))? {
            return Ok(Raised::Open(self.get(&open)?));
        }
        let granted = self.store.read(|c| store::is_granted(c, &source.agent_id, tool, None))?;
        let request = self.raise_with(
            &new_id(),
            source,
            RequestKind::Promotion,
            text,
            Some(tool),
            None,
            None,
            Some(promotion_id),
            None,
            granted,
            None,
        )?;
        Ok(if granted { Raised::Granted(request) } else { Raised::Open(request) })
    }

    /// A request about a routine (an agent's proposal, a routine that paused itself): an
    /// approval, never granted by an earlier "Allow always" (no tool is named, so none is made).
    /// `first` stores what the request is about under its id before anyone can see (and answer) it.
    pub fn raise_routine(
        &self,
        source: &Source,
        kind: RequestKind,
        text: &str,
        input: Option<&str>,
        first: impl FnOnce(&str) -> Result<()>,
    ) -> Result<AttentionRequest> {
        let id = new_id();
        first(&id)?;
        self.raise_with(&id, source, kind, text, None, input, None, None, None, false, None)
    }

    /// A request of the run guards (a scope a circuit breaker paused, a budget at 80% or spent):
    /// an approval, decided each time, never by a grant. `first` stores what it is about under
    /// its id before anyone can see (and answer) it. A budget's line stands `until` its period
    /// ends (then it closes, denying nothing: the new period counts afresh).
    pub fn raise_guard(
        &self,
        source: &Source,
        kind: RequestKind,
        text: &str,
        until: Option<i64>,
        first: impl FnOnce(&str) -> Result<()>,
    ) -> Result<AttentionRequest> {
        let id = new_id();
        first(&id)?;
        self.raise_with(&id, source, kind, text, None, None, None, None, None, false, until)
    }

    /// An agent's `memory_save` to a wider scope (`tool` is the tool it used): `text` says where
    /// to, `fact` is the fact exactly as it is saved if the user allows it. Decided each time (no
    /// "Allow always"). `first` holds the fact under the request's id before anyone can see (and
    /// answer) it. The same fact from the same agent still waiting raises nothing new: the open
    /// request stands for it (returned with `false`: not raised now).
    pub fn raise_memory_save(
        &self,
        source: &Source,
        tool: &str,
        text: &str,
        fact: &str,
        first: impl FnOnce(&str) -> Result<()>,
    ) -> Result<(AttentionRequest, bool)> {
        let waiting = self
            .store
            .read(|c| store::open_where(c, "r.kind = 'memory_save' AND r.agent_id = ?1", &source.agent_id))?;
        if let Some(open) = waiting.into_iter().find(|r| r.text == text && r.input.as_deref() == Some(fact)) {
            return Ok((open, false));
        }
        let id = new_id();
        first(&id)?;
        let request = self.raise_with(
            &id,
            source,
            RequestKind::MemorySave,
            text,
            Some(tool),
            Some(fact),
            None,
            None,
            None,
            false,
            None,
        )?;
        Ok((request, true))
    }

    #[allow(clippy::too_many_arguments)]
    fn raise(
        &self,
        source: &Source,
        kind: RequestKind,
        text: &str,
        tool: Option<&str>,
        input: Option<&str>,
        runtime_request_id: Option<&str>,
        promotion_id: Option<&str>,
    ) -> Result<AttentionRequest> {
        self.raise_with(&new_id(), source, kind, text, tool, input, runtime_request_id, promotion_id, None, false, None)
    }

    /// Stores the request (closed at once as allowed when `granted`), audits it, tells the UI.
    #[allow(clippy::too_many_arguments)]
    fn raise_with(
        &self,
        id: &str,
        source: &Source,
        kind: RequestKind,
        text: &str,
        tool: Option<&str>,
        input: Option<&str>,
        runtime_request_id: Option<&str>,
        promotion_id: Option<&str>,
        command_prefix: Option<&str>,
        granted: bool,
        until: Option<i64>,
    ) -> Result<AttentionRequest> {
        let agent = self.agents.get(&source.agent_id)?;
        let id = id.to_owned();
        let now = now_ms();
        let expires_at = if kind.is_budget() {
            until
        } else if kind.is_approval() {
            let hours = self.settings()?.approval_expiry_hours;
            Some(now + i64::from(hours) * 3_600_000)
        } else {
            None
        };
        let actor = format!("@{}", agent.handle);
        let request = self.store.write(|tx| {
            store::insert(
                tx,
                source,
                &store::NewRequest {
                    id: &id,
                    kind,
                    agent_name: &agent.name,
                    agent_handle: &agent.handle,
                    text,
                    tool,
                    input,
                    runtime_request_id,
                    promotion_id,
                    command_prefix,
                    created_at: now,
                    expires_at,
                },
            )?;
            store::audit(tx, now, Some(&id), &actor, AuditAction::Raised, &describe(kind, text, tool, input))?;
            if granted {
                store::close(tx, &id, RequestStatus::Answered, Some(Decision::AllowAlways), None, now)?;
                store::audit(
                    tx,
                    now,
                    Some(&id),
                    CLAWBOO,
                    AuditAction::AllowedByGrant,
                    &format!(
                        "Allowed without asking: you chose \"Allow always\" for @{} and {}.",
                        agent.handle,
                        tool.map_or_else(|| "this".to_owned(), |tool| shell::label(tool, command_prefix))
                    ),
                )?;
            }
            store::get(tx, &id)
        })?;
        // Its kind and source only: the text is the agent's, and a tool's input may hold anything.
        tracing::info!(request_id = %request.id, kind = request.kind.as_str(), agent_id = %request.agent_id, granted, "a request for the user");
        self.publish(if granted { None } else { Some(request.id.clone()) });
        Ok(request)
    }

    // --- Answering: the user, in the app -------------------------------------------------

    /// The user's answer to request `id`, given in the app. The only way any request is
    /// answered. A question takes text, an approval a decision; a request no longer open is a
    /// `Conflict`. For a permission whose run has ended, the request is withdrawn (if it was not
    /// yet) and the answer refused (`RunNotActive`). Delivering a question's answer to its source is the
    /// engine's business (see `Engine::answer_attention`); call [`Attention::check_answer`]
    /// first so nothing is delivered for a request that cannot be answered.
    pub fn answer(&self, id: &str, answer: &UserAnswer) -> Result<AttentionRequest> {
        self.answer_with(id, answer, |_| Ok(()))
    }

    /// [`Attention::answer`], doing `also` in the transaction that stores an approval's decision:
    /// what the decision brings about happens if and only if the answer is stored (a memory save
    /// allowed saves its fact there). For a question, `also` is not called.
    pub fn answer_with(
        &self,
        id: &str,
        answer: &UserAnswer,
        also: impl FnOnce(&rusqlite::Transaction) -> Result<()>,
    ) -> Result<AttentionRequest> {
        let request = self.check_answer(id, answer)?;
        let now = now_ms();
        match (request.kind, answer) {
            (RequestKind::Question, UserAnswer::Text { text }) => {
                let text = text.trim();
                self.close_as_user(
                    &request,
                    RequestStatus::Answered,
                    None,
                    Some(text),
                    AuditAction::Answered,
                    text,
                    now,
                )
            }
            (RequestKind::Permission, UserAnswer::Decision { decision }) => {
                let reply = self.lock_waiting().remove(&request.id);
                let Some(reply) = reply.filter(|r| !r.is_closed()) else {
                    self.withdraw(&request, "The run that asked has ended; nothing is waiting for this answer.")?;
                    return Err(Error::RunNotActive(
                        "The run that asked has already ended, so it no longer waits for this answer.".into(),
                    ));
                };
                // Stored first, told second: a run told first may end at once, and its end would
                // withdraw the request before the answer is stored.
                match self.decide(&request, *decision, now, also) {
                    Ok(answered) => {
                        let _ = reply.send(PermissionAnswer { allow: decision.allows() });
                        Ok(answered)
                    }
                    Err(e) => {
                        if !reply.is_closed() {
                            self.lock_waiting().insert(request.id.clone(), reply);
                        }
                        Err(e)
                    }
                }
            }
            (
                RequestKind::Promotion
                | RequestKind::RoutineProposal
                | RequestKind::RoutinePaused
                | RequestKind::MemorySave
                | RequestKind::ScopePaused
                | RequestKind::BudgetWarning
                | RequestKind::BudgetReached,
                UserAnswer::Decision { decision },
            ) => self.decide(&request, *decision, now, also),
            _ => unreachable!("check_answer matched the answer to the kind"),
        }
    }

    /// The request `id`, if the user can answer it with `answer`.
    pub fn check_answer(&self, id: &str, answer: &UserAnswer) -> Result<AttentionRequest> {
        let request = self.get(id)?;
        if request.status == RequestStatus::Withdrawn {
            // The same answer whether the run's end was noticed before this answer or by it.
            return Err(Error::RunNotActive(
                "The run that asked has already ended, so it no longer waits for this answer.".into(),
            ));
        }
        if request.status != RequestStatus::Open {
            return Err(Error::Conflict(format!(
                "This request was already {}.",
                match request.status {
                    RequestStatus::Answered => "answered",
                    RequestStatus::Cleared => "cleared by your reply in the team chat",
                    RequestStatus::Expired => "denied when it expired",
                    RequestStatus::Open | RequestStatus::Withdrawn => unreachable!(),
                }
            )));
        }
        match (request.kind, answer) {
            (RequestKind::Question, UserAnswer::Text { text }) => {
                if text.trim().is_empty() {
                    return Err(Error::InvalidInput("The answer is empty.".into()));
                }
                if text.chars().count() > MAX_ANSWER_CHARS {
                    return Err(Error::InvalidInput(format!("An answer has at most {MAX_ANSWER_CHARS} characters.")));
                }
            }
            (RequestKind::Question, UserAnswer::Decision { .. }) => {
                return Err(Error::InvalidInput("A question is answered with text, not Allow or Deny.".into()))
            }
            (RequestKind::MemorySave, UserAnswer::Decision { decision: Decision::AllowAlways }) => {
                return Err(Error::InvalidInput(
                    "A save to shared memory is allowed one fact at a time: allow it or deny it.".into(),
                ))
            }
            (RequestKind::Permission, UserAnswer::Decision { decision: Decision::AllowAlways })
                if !request.allow_always =>
            {
                return Err(Error::InvalidInput(
                    "This command cannot be allowed always: it chains commands, or its program runs other commands. \
                     Allow it once or deny it."
                        .into(),
                ))
            }
            (_, UserAnswer::Text { .. }) => {
                return Err(Error::InvalidInput(
                    "An approval is answered with Allow once, Allow always or Deny.".into(),
                ))
            }
            (_, UserAnswer::Decision { .. }) => {}
        }
        Ok(request)
    }

    /// Answers the permission question `runtime_request_id` of run `run_id` (the Allow/Deny
    /// buttons in a chat's timeline and a card's run).
    pub fn answer_permission(
        &self,
        run_id: &str,
        runtime_request_id: &str,
        decision: Decision,
    ) -> Result<AttentionRequest> {
        let id = self
            .store
            .read(|c| store::find_by_runtime_request(c, run_id, runtime_request_id))?
            .ok_or_else(|| Error::NotFound(format!("Permission request {runtime_request_id}")))?;
        self.answer(&id, &UserAnswer::Decision { decision })
    }

    /// A promotion decided on the Memory page: its approval is answered the same way.
    pub fn promotion_decided(&self, promotion_id: &str, approve: bool) -> Result<()> {
        let Some(id) = self.store.read(|c| store::find_by_promotion(c, promotion_id))? else { return Ok(()) };
        let request = self.get(&id)?;
        let decision = if approve { Decision::AllowOnce } else { Decision::Deny };
        self.decide(&request, decision, now_ms(), |_| Ok(())).map(|_| ())
    }

    fn decide(
        &self,
        request: &AttentionRequest,
        decision: Decision,
        now: i64,
        also: impl FnOnce(&rusqlite::Transaction) -> Result<()>,
    ) -> Result<AttentionRequest> {
        let (action, detail) = match decision {
            Decision::AllowOnce => (AuditAction::Allowed, format!("Allowed once: {}", request.text)),
            Decision::AllowAlways => (
                AuditAction::AllowedAlways,
                format!(
                    "Allowed, and from now on @{} may use {} without asking.",
                    request.agent_handle,
                    request.tool.as_deref().map_or_else(
                        || "this".to_owned(),
                        |tool| shell::label(tool, request.command_prefix.as_deref())
                    )
                ),
            ),
            Decision::Deny => (AuditAction::Denied, format!("Denied: {}", request.text)),
        };
        let grant = (decision == Decision::AllowAlways && request.allow_always).then(|| request.tool.clone()).flatten();
        let request = self.close_with(
            request,
            RequestStatus::Answered,
            Some(decision),
            None,
            USER,
            action,
            &detail,
            now,
            |tx| {
                if let Some(tool) = &grant {
                    // A deleted agent cannot be granted anything; its answer still stands.
                    if tx.query_row("SELECT 1 FROM agents WHERE id = ?1", [&request.agent_id], |_| Ok(())).is_ok() {
                        let prefix = request.command_prefix.as_deref();
                        store::add_grant(tx, &new_id(), &request.agent_id, tool, prefix, &request.id, now)?;
                    }
                }
                also(tx)
            },
        )?;
        Ok(request)
    }

    #[allow(clippy::too_many_arguments)]
    fn close_as_user(
        &self,
        request: &AttentionRequest,
        status: RequestStatus,
        decision: Option<Decision>,
        answer: Option<&str>,
        action: AuditAction,
        detail: &str,
        now: i64,
    ) -> Result<AttentionRequest> {
        self.close_with(request, status, decision, answer, USER, action, detail, now, |_| Ok(()))
    }

    /// Closes `request` (a `Conflict` if someone closed it first), audits, and tells the UI.
    #[allow(clippy::too_many_arguments)]
    fn close_with(
        &self,
        request: &AttentionRequest,
        status: RequestStatus,
        decision: Option<Decision>,
        answer: Option<&str>,
        actor: &str,
        action: AuditAction,
        detail: &str,
        now: i64,
        also: impl FnOnce(&rusqlite::Transaction) -> Result<()>,
    ) -> Result<AttentionRequest> {
        let closed = self.store.write(|tx| {
            if !store::close(tx, &request.id, status, decision, answer, now)? {
                return Err(Error::Conflict("This request was answered meanwhile.".into()));
            }
            store::audit(tx, now, Some(&request.id), actor, action, detail)?;
            also(tx)?;
            store::get(tx, &request.id)
        })?;
        self.publish(None);
        Ok(closed)
    }

    fn withdraw(&self, request: &AttentionRequest, why: &str) -> Result<()> {
        match self.close_with(
            request,
            RequestStatus::Withdrawn,
            None,
            None,
            CLAWBOO,
            AuditAction::Withdrawn,
            why,
            now_ms(),
            |_| Ok(()),
        ) {
            Ok(_) | Err(Error::Conflict(_)) => Ok(()),
            Err(e) => Err(e),
        }
    }

    // --- Clearing, ending, expiring ------------------------------------------------------

    /// The user wrote in team `team_id`'s chat: the open questions asked in that chat are
    /// cleared (approvals are not: they take a decision; nor are questions of the team's cards:
    /// their answers go to the card). Returns how many.
    pub fn clear_team_questions(&self, team_id: &str) -> Result<usize> {
        let now = now_ms();
        let cleared = self.store.write(|tx| {
            let open = store::open_where(tx, "r.kind = 'question' AND r.origin = 'team' AND r.team_id = ?1", team_id)?;
            for request in &open {
                store::close(tx, &request.id, RequestStatus::Cleared, None, None, now)?;
                store::audit(tx, now, Some(&request.id), USER, AuditAction::Cleared, "You replied in the team chat.")?;
            }
            Ok(open.len())
        })?;
        if cleared > 0 {
            self.publish(None);
        }
        Ok(cleared)
    }

    /// Question `id` can no longer be answered (where its answer would go was deleted): it is
    /// withdrawn, saying `why`.
    pub fn withdraw_question(&self, id: &str, why: &str) -> Result<()> {
        let request = self.get(id)?;
        if request.kind != RequestKind::Question {
            return Err(Error::InvalidInput("Only a question is withdrawn this way.".into()));
        }
        self.withdraw(&request, why)
    }

    /// Whether run `run_id` has a permission question waiting for the user (a run that waits
    /// for an answer is not silent). False when the store cannot tell.
    pub fn waits_for_user(&self, run_id: &str) -> bool {
        self.store
            .read(|c| store::open_where(c, "r.kind = 'permission' AND r.run_id = ?1", run_id))
            .is_ok_and(|open| !open.is_empty())
    }

    /// Agent `agent_id` was deleted: the questions it asked in its one-to-one chat can no
    /// longer be answered (that chat is gone with it), so they are withdrawn. Its team and card
    /// questions stay: their answers go to the team chat or the card. Returns how many.
    pub fn agent_deleted(&self, agent_id: &str) -> Result<usize> {
        let open = self.store.read(|c| {
            store::open_where(c, "r.kind = 'question' AND r.origin = 'chat' AND r.agent_id = ?1", agent_id)
        })?;
        for request in &open {
            let why = format!("@{} was deleted, and its chat with it: nobody is left to answer.", request.agent_handle);
            self.withdraw(request, &why)?;
        }
        Ok(open.len())
    }

    /// Run `run_id` ended: the approvals it waited on can no longer be answered. Its
    /// questions stay open (their answers go to its chat or card).
    pub fn run_ended(&self, run_id: &str) -> Result<usize> {
        let open = self.store.read(|c| store::open_where(c, "r.kind = 'permission' AND r.run_id = ?1", run_id))?;
        for request in &open {
            self.lock_waiting().remove(&request.id);
            self.withdraw(request, "The run ended before an answer.")?;
        }
        Ok(open.len())
    }

    /// Approvals unanswered past their expiry are denied, and their runs told so. Returns how
    /// many expired. Called every minute by the engine, and by tests with their own clock.
    pub fn expire_due(&self, now: i64) -> Result<usize> {
        let due: Vec<AttentionRequest> =
            self.store.read(store::open)?.into_iter().filter(|r| r.expires_at.is_some_and(|at| at <= now)).collect();
        for request in &due {
            if request.kind.is_budget() {
                // Its period ended: the line no longer stands, and nothing is denied.
                let detail = "Its budget period ended, so the line was cleared: the new period counts afresh.";
                let closed = self.close_with(
                    request,
                    RequestStatus::Expired,
                    None,
                    None,
                    CLAWBOO,
                    AuditAction::Expired,
                    detail,
                    now,
                    |_| Ok(()),
                );
                match closed {
                    Ok(_) | Err(Error::Conflict(_)) => continue,
                    Err(e) => return Err(e),
                }
            }
            let reply = self.lock_waiting().remove(&request.id);
            let detail = "Nobody answered in time, so it was denied.";
            // Stored first, told second (see `answer`); dropping the reply denies all the same.
            match self.close_with(
                request,
                RequestStatus::Expired,
                Some(Decision::Deny),
                None,
                CLAWBOO,
                AuditAction::Expired,
                detail,
                now,
                |_| Ok(()),
            ) {
                Ok(_) => {
                    // Denied, as the request now says: the note is not copied later either.
                    if let (Some(memory), Some(promotion)) = (&self.memory, &request.promotion_id) {
                        if let Err(e) = memory.decide_promotion(promotion, false) {
                            tracing::warn!(%promotion, error = %e, "an expired promotion stays pending");
                        }
                    }
                }
                Err(Error::Conflict(_)) => {}
                Err(e) => return Err(e),
            }
            if let Some(reply) = reply {
                let _ = reply.send(PermissionAnswer { allow: false });
            }
        }
        Ok(due.len())
    }

    // --- Reading -------------------------------------------------------------------------

    pub fn get(&self, id: &str) -> Result<AttentionRequest> {
        self.store.read(|c| store::get(c, id))
    }

    /// Open requests, newest first.
    pub fn open(&self) -> Result<Vec<AttentionRequest>> {
        self.store.read(store::open)
    }

    /// Every request, newest first (`limit` at most, 1..=500), after request `before` (the
    /// last of the previous page).
    pub fn history(&self, before: Option<&str>, limit: u32) -> Result<Vec<AttentionRequest>> {
        self.store.read(|c| store::history(c, before, limit.clamp(1, 500)))
    }

    /// The audit, newest first; of one request when given.
    pub fn audit(&self, request_id: Option<&str>, before: Option<i64>, limit: u32) -> Result<Vec<AuditEntry>> {
        self.store.read(|c| store::audit_page(c, request_id, before, limit.clamp(1, 1_000)))
    }

    /// What the tray shows.
    pub fn tray_state(&self) -> Result<TrayState> {
        let open = self.open()?;
        let approvals = open.iter().filter(|r| r.kind.is_approval()).count() as u32;
        let count = open.len() as u32;
        let newest = open
            .iter()
            .take(TRAY_ITEMS)
            .map(|r| TrayItem { request_id: r.id.clone(), label: tray::menu_label(r) })
            .collect();
        Ok(TrayState { open: count, questions: count - approvals, approvals, tooltip: tray::tooltip(count), newest })
    }

    // --- Grants and settings -------------------------------------------------------------

    /// "Allow always" grants, newest first.
    pub fn grants(&self) -> Result<Vec<Grant>> {
        self.store.read(store::grants)
    }

    pub fn revoke_grant(&self, id: &str) -> Result<()> {
        let now = now_ms();
        self.store.write(|tx| {
            let (agent_id, tool, prefix) = store::remove_grant(tx, id)?;
            let handle: String = tx
                .query_row("SELECT handle FROM agents WHERE id = ?1", [&agent_id], |r| r.get(0))
                .unwrap_or_else(|_| agent_id.clone());
            store::audit(
                tx,
                now,
                None,
                USER,
                AuditAction::GrantRevoked,
                &format!("@{handle} must ask again before using {}.", shell::label(&tool, prefix.as_deref())),
            )
        })?;
        self.publish(None);
        Ok(())
    }

    pub fn settings(&self) -> Result<AttentionSettings> {
        self.store.read(store::settings)
    }

    pub fn set_settings(&self, settings: AttentionSettings) -> Result<AttentionSettings> {
        if !(1..=MAX_EXPIRY_HOURS).contains(&settings.approval_expiry_hours) {
            return Err(Error::InvalidInput(format!(
                "Approvals expire after 1 to {MAX_EXPIRY_HOURS} hours (30 days)."
            )));
        }
        self.store.write(|tx| store::put_settings(tx, &settings))?;
        self.publish(None);
        Ok(settings)
    }

    fn publish(&self, raised: Option<String>) {
        self.events.publish(EngineEvent::AttentionChanged { raised });
    }

    fn lock_waiting(&self) -> MutexGuard<'_, HashMap<String, oneshot::Sender<PermissionAnswer>>> {
        self.waiting.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// `r-` and 10 hex digits: short enough to read, random so it is never guessed or reused.
fn new_id() -> String {
    format!("r-{}", &uuid::Uuid::new_v4().simple().to_string()[..10])
}

/// A tool's input as stored: pretty JSON, whole. The user allows what they see, so none of it
/// is cut (a hostile agent could hide the part that matters past any cut).
fn pretty_input(input: &serde_json::Value) -> String {
    serde_json::to_string_pretty(input).unwrap_or_else(|_| input.to_string())
}

fn describe(kind: RequestKind, text: &str, tool: Option<&str>, input: Option<&str>) -> String {
    match (kind, tool) {
        (RequestKind::Question, _) => format!("Asked: {text}"),
        (RequestKind::Permission, Some(tool)) => format!("Asked to use {tool}: {text}"),
        (RequestKind::Promotion, _) => format!("Asked to promote a scratch note: {text}"),
        (RequestKind::RoutineProposal, _) => format!("Proposed a routine: {text}"),
        (
            RequestKind::RoutinePaused
            | RequestKind::ScopePaused
            | RequestKind::BudgetWarning
            | RequestKind::BudgetReached,
            _,
        ) => text.to_owned(),
        (RequestKind::MemorySave, _) => format!("Asked: {text} The fact: {}", input.unwrap_or_default()),
        (_, None) => text.to_owned(),
    }
}
