//! The run guards (issue 27): circuit breakers that pause a team that loops, and budgets that
//! stop one that spends too much. Every run asks [`Guard::check_start`] before it starts (the
//! three starting paths: a one-to-one message, a team delivery, a card task); a hand-off asks
//! [`Guard::check_handoff`]; while a run goes, [`RunWatch`] (inside the drive loop) counts its
//! repeated tool calls and asks [`Guard::check_spent`] after every model call is recorded — a
//! request the relay recorded, or a CLI's usage event — ending the run after the call that
//! spent its budget. What trips raises an Inbox request that says what it saw, with the
//! numbers; its answer comes back through [`Guard::approved`].
//!
//! Budgets read what the spend counts (`clawboo_spend`'s per-day totals, on the same local
//! days): a dollar budget sees every priced call through the relay, whatever the runtime; a run
//! on the user's own CLI sign-in counts toward token budgets only (never invented money).
//!
//! The breakers, their defaults (Settings › Limits):
//! - an agent starting more than [`Limits::runs_per_hour`] runs in an hour pauses the agent;
//! - a room with more than [`Limits::handoffs_per_ten_minutes`] hand-offs in ten minutes pauses
//!   the room;
//! - a run making the same tool call with the same input [`Limits::repeated_tool_calls`] times
//!   ends (cleanly, with a note) and pauses its agent;
//! - a routine failing [`Limits::routine_failures`] times in a row pauses itself (the routines'
//!   own rule, shown here beside the others).

pub mod budgets;
mod store;
mod watch;
mod words;

use std::sync::Arc;

use serde::{Deserialize, Serialize};

pub use budgets::{Budget, BudgetInput, BudgetPeriod, BudgetScope, BudgetUnit, WARN_PERCENT};
pub use watch::{Halt, RunWatch};

use crate::attention::{Attention, RequestKind, Source};
use crate::error::{Error, Result};
use crate::store::Store;
use crate::vocab::clock::{Clock, SystemClock};
use budgets::{next_day_start, period_days, period_end};
use words::refused;

/// Where the limits are kept in the settings table (JSON).
const LIMITS_KEY: &str = "run_limits";
const HOUR_MS: i64 = 3_600_000;
const TEN_MINUTES_MS: i64 = 600_000;

/// The circuit breakers' limits, editable in Settings › Limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct Limits {
    /// An agent starting more runs than this within an hour is paused (default 60).
    pub runs_per_hour: u32,
    /// A room with more hand-offs than this within ten minutes is paused (default 30).
    pub handoffs_per_ten_minutes: u32,
    /// A run making the same tool call with the same input this many times ends (default 5).
    pub repeated_tool_calls: u32,
    /// A routine failing this many times in a row pauses itself (fixed: the routines' rule).
    pub routine_failures: u32,
}

impl Limits {
    pub const DEFAULT: Limits = Limits {
        runs_per_hour: 60,
        handoffs_per_ten_minutes: 30,
        repeated_tool_calls: 5,
        // The scheduler's own rule: the figure shown is the one it pauses at.
        routine_failures: clawboo_routines::types::MAX_CONSECUTIVE_FAILURES,
    };
}

impl Default for Limits {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// What a breaker pauses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum ScopeKind {
    Agent,
    Room,
    /// A routine paused by its own rule (three failures in a row) or by the user.
    Routine,
}

impl ScopeKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ScopeKind::Agent => "agent",
            ScopeKind::Room => "room",
            ScopeKind::Routine => "routine",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        [ScopeKind::Agent, ScopeKind::Room, ScopeKind::Routine].into_iter().find(|k| k.as_str() == s)
    }
}

/// Which breaker tripped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum Breaker {
    RunsPerHour,
    Handoffs,
    RepeatedToolCall,
    RoutineFailures,
}

impl Breaker {
    pub fn as_str(self) -> &'static str {
        match self {
            Breaker::RunsPerHour => "runs_per_hour",
            Breaker::Handoffs => "handoffs",
            Breaker::RepeatedToolCall => "repeated_tool_call",
            Breaker::RoutineFailures => "routine_failures",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        [Breaker::RunsPerHour, Breaker::Handoffs, Breaker::RepeatedToolCall, Breaker::RoutineFailures]
            .into_iter()
            .find(|k| k.as_str() == s)
    }
}

/// A scope paused now, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct PausedScope {
    pub scope: ScopeKind,
    pub scope_id: String,
    pub breaker: Breaker,
    /// What the breaker saw, with the numbers.
    pub reason: String,
    pub paused_at: i64,
    /// The Inbox request that offers Resume / Keep paused.
    pub request_id: Option<String>,
}

/// Whose run it is, for the breakers and the budgets.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RunScope {
    pub agent_id: String,
    pub team_id: Option<String>,
    pub room_id: Option<String>,
    pub routine_id: Option<String>,
}

impl RunScope {
    pub fn agent(agent_id: &str) -> Self {
        Self { agent_id: agent_id.to_owned(), ..Self::default() }
    }

    fn budget_scopes(&self) -> Vec<(BudgetScope, &str)> {
        let mut scopes = vec![(BudgetScope::Overall, ""), (BudgetScope::Agent, self.agent_id.as_str())];
        if let Some(team) = &self.team_id {
            scopes.push((BudgetScope::Team, team));
        }
        if let Some(routine) = &self.routine_id {
            scopes.push((BudgetScope::Routine, routine));
        }
        scopes
    }

    fn paused_scopes(&self) -> Vec<(ScopeKind, &str)> {
        let mut scopes = vec![(ScopeKind::Agent, self.agent_id.as_str())];
        if let Some(room) = &self.room_id {
            scopes.push((ScopeKind::Room, room));
        }
        scopes
    }

    fn source(&self) -> Source {
        Source {
            agent_id: self.agent_id.clone(),
            team_id: self.team_id.clone(),
            room_id: self.room_id.clone(),
            ..Source::default()
        }
    }
}

/// The breakers and the budgets over one store; the Inbox is told through attention.
pub struct Guard {
    store: Arc<Store>,
    attention: Option<Arc<Attention>>,
    clock: Arc<dyn Clock>,
}

impl Guard {
    pub fn new(store: Arc<Store>) -> Self {
        Self { store, attention: None, clock: Arc::new(SystemClock) }
    }

    /// The guards on another clock (tests at a day's boundary).
    pub fn with_clock(mut self, clock: Arc<dyn Clock>) -> Self {
        self.clock = clock;
        self
    }

    fn now(&self) -> i64 {
        self.clock.now()
    }

    /// What trips raises a request in this Inbox (without it, runs are refused all the same).
    pub fn with_attention(mut self, attention: Arc<Attention>) -> Self {
        self.attention = Some(attention);
        self
    }

    pub fn limits(&self) -> Result<Limits> {
        let stored = self.store.read(|c| crate::store::settings::get(c, LIMITS_KEY))?;
        let limits: Limits = stored.and_then(|json| serde_json::from_str(&json).ok()).unwrap_or_default();
        // The routines' rule is fixed: what was stored with an older figure says today's.
        Ok(Limits { routine_failures: Limits::DEFAULT.routine_failures, ..limits })
    }

    /// Sets the breakers' limits; each is at least 1 (the routines' rule stays as it is).
    pub fn set_limits(&self, limits: Limits) -> Result<Limits> {
        if limits.runs_per_hour == 0 || limits.handoffs_per_ten_minutes == 0 || limits.repeated_tool_calls < 2 {
            return Err(Error::InvalidInput(
                "Each limit is at least 1 (and a repeated tool call at least 2 times).".into(),
            ));
        }
        let limits = Limits { routine_failures: Limits::DEFAULT.routine_failures, ..limits };
        let json = serde_json::to_string(&limits).map_err(|e| Error::Internal(e.to_string()))?;
        self.store.write(|tx| crate::store::settings::put(tx, LIMITS_KEY, Some(&json)))?;
        Ok(limits)
    }

    /// Whether a run of `scope` may start now: refused with `Paused` when its agent or room is
    /// paused, or when this run would be the agent's one too many this hour (which pauses it);
    /// refused with `BudgetExhausted` (and the figure) when a budget of its scope is spent.
    pub fn check_start(&self, scope: &RunScope) -> Result<()> {
        let now = self.now();
        let today = clawboo_spend::day_of(now);
        let limits = self.limits()?;
        let (paused, exhausted, runs) = self.store.read(|c| {
            let paused = store::paused_among(c, &scope.paused_scopes())?;
            if paused.is_some() {
                return Ok((paused, None, 0));
            }
            let budgets = store::budgets(c, Some(&scope.budget_scopes()), today)?;
            let exhausted = budgets.into_iter().find(|b| b.budget.exhausted(now));
            if exhausted.is_some() {
                return Ok((None, exhausted, 0));
            }
            let since = (now - HOUR_MS).max(store::resumed_at(c, ScopeKind::Agent, &scope.agent_id)?.unwrap_or(0));
            Ok((None, None, store::runs_since(c, &scope.agent_id, since)?))
        })?;
        if let Some(paused) = paused {
            return Err(refused(&paused));
        }
        if let Some(stored) = exhausted {
            let refusal = words::refused_for_budget(&self.spent_words(&stored.budget));
            self.budget_reached(scope, &stored, now);
            return Err(Error::BudgetExhausted(refusal));
        }
        if runs >= limits.runs_per_hour {
            let reason = words::too_many_runs(&self.agent_words(&scope.agent_id), runs + 1, limits.runs_per_hour);
            return Err(self.trip(scope, ScopeKind::Agent, &scope.agent_id, Breaker::RunsPerHour, reason));
        }
        Ok(())
    }

    /// Whether a run of `scope` may hand work off in its room now: refused when the room is
    /// paused, or when this would be one hand-off too many in ten minutes (which pauses it).
    pub fn check_handoff(&self, scope: &RunScope) -> Result<()> {
        let Some(room_id) = scope.room_id.as_deref() else { return Ok(()) };
        let now = self.now();
        let limits = self.limits()?;
        let (paused, made) = self.store.read(|c| {
            let paused = store::paused_among(c, &[(ScopeKind::Room, room_id)])?;
            let since = (now - TEN_MINUTES_MS).max(store::resumed_at(c, ScopeKind::Room, room_id)?.unwrap_or(0));
            Ok((paused, store::handoffs_since(c, room_id, since)?))
        })?;
        if let Some(paused) = paused {
            return Err(refused(&paused));
        }
        if made >= limits.handoffs_per_ten_minutes {
            let reason = words::too_many_handoffs(&self.room_words(room_id), made, limits.handoffs_per_ten_minutes);
            return Err(self.trip(scope, ScopeKind::Room, room_id, Breaker::Handoffs, reason));
        }
        Ok(())
    }

    /// A run made the same tool call with the same input `times` times: its agent is paused
    /// (the run itself is ended by the drive loop). Returns the note for the run.
    pub fn tool_call_repeated(&self, scope: &RunScope, tool: &str, times: u32) -> String {
        let reason = words::tool_call_repeated(&self.agent_words(&scope.agent_id), tool, times);
        let _ = self.trip(scope, ScopeKind::Agent, &scope.agent_id, Breaker::RepeatedToolCall, reason.clone());
        reason
    }

    /// After a model call of a run of `scope` was recorded (the relay's request, or a CLI's
    /// usage event, counted by the spend): its budgets as they stand now. A budget at 80% raises
    /// its Inbox line; a spent one its request. Returns the note when a budget of its scope is
    /// spent (the run is to end after this call).
    pub fn check_spent(&self, scope: &RunScope) -> Result<Option<String>> {
        let now = self.now();
        let today = clawboo_spend::day_of(now);
        let budgets = self.store.read(|c| store::budgets(c, Some(&scope.budget_scopes()), today))?;
        let mut note = None;
        for stored in &budgets {
            let (_, _, period_number) = period_days(stored.budget.period, today);
            if stored.budget.exhausted(now) {
                self.budget_reached(scope, stored, now);
                if note.is_none() {
                    note = Some(words::stopped_after_call(&self.spent_words(&stored.budget)));
                }
            } else if stored.budget.at_warning() && stored.warned_period != Some(period_number) {
                self.budget_warning(scope, stored, today);
            }
        }
        Ok(note)
    }

    /// Every scope paused now: the agents and rooms the breakers paused, then paused routines.
    pub fn paused(&self) -> Result<Vec<PausedScope>> {
        self.store.read(|c| {
            let mut paused = store::paused(c)?;
            for (id, name, reason, at, request_id) in store::paused_routines(c)? {
                paused.push(PausedScope {
                    scope: ScopeKind::Routine,
                    scope_id: id,
                    breaker: Breaker::RoutineFailures,
                    reason: reason.unwrap_or_else(|| format!("The routine \"{name}\" was paused.")),
                    paused_at: at,
                    request_id,
                });
            }
            Ok(paused)
        })
    }

    /// Resumes an agent or a room a breaker paused (its breaker counts from now on).
    pub fn resume(&self, scope: ScopeKind, id: &str) -> Result<()> {
        if scope == ScopeKind::Routine {
            return Err(Error::InvalidInput("A routine is resumed on its own page.".into()));
        }
        let now = self.now();
        if !self.store.write(|tx| store::resume(tx, scope, id, now))? {
            return Err(Error::NotFound(format!("A paused {} {id}", scope.as_str())));
        }
        Ok(())
    }

    /// Every budget, with what its period spent so far.
    pub fn budgets(&self) -> Result<Vec<Budget>> {
        let today = clawboo_spend::day_of(self.now());
        Ok(self.store.read(|c| store::budgets(c, None, today))?.into_iter().map(|b| b.budget).collect())
    }

    /// Sets (or raises) a budget; a run refused for it may start again at once.
    pub fn set_budget(&self, input: BudgetInput) -> Result<Budget> {
        if input.amount == 0 {
            return Err(Error::InvalidInput("A budget is more than zero (remove it to have none).".into()));
        }
        if (input.scope == BudgetScope::Overall) != input.scope_id.is_empty() {
            return Err(Error::InvalidInput("The overall budget names no scope; any other names its own.".into()));
        }
        let now = self.now();
        let scope = [(input.scope, input.scope_id.as_str())];
        let stored = self.store.write(|tx| {
            store::set_budget(tx, &input, now)?;
            store::budgets(tx, Some(&scope), clawboo_spend::day_of(now))
        })?;
        stored
            .into_iter()
            .map(|b| b.budget)
            .find(|b| b.period == input.period)
            .ok_or_else(|| Error::Internal("a budget just set is missing".into()))
    }

    pub fn remove_budget(&self, scope: BudgetScope, id: &str, period: BudgetPeriod) -> Result<()> {
        if !self.store.write(|tx| store::remove_budget(tx, scope, id, period))? {
            return Err(Error::NotFound(format!("A {} budget", period.adjective())));
        }
        Ok(())
    }

    /// Lets runs past a spent budget go on until the next local day starts.
    pub fn allow_until_tomorrow(&self, scope: BudgetScope, id: &str, period: BudgetPeriod) -> Result<()> {
        let until = next_day_start(self.now());
        if !self.store.write(|tx| store::allow_until(tx, scope, id, period, until))? {
            return Err(Error::NotFound(format!("A {} budget", period.adjective())));
        }
        Ok(())
    }

    /// The user allowed a request of the guards: a paused scope resumes; a spent budget lets
    /// runs go on until tomorrow; a warning is only read. Other requests are none of its business.
    pub fn approved(&self, request_id: &str) -> Result<()> {
        let Some(about) = self.store.read(|c| store::request(c, request_id))? else {
            return Err(Error::NotFound(format!("What request {request_id} is about")));
        };
        match about.kind.as_str() {
            "paused" => {
                let scope = ScopeKind::parse(&about.scope_kind)
                    .ok_or_else(|| Error::Internal(format!("a paused scope {}", about.scope_kind)))?;
                match self.resume(scope, &about.scope_id) {
                    // Resumed meanwhile (from Settings): nothing left to do.
                    Err(Error::NotFound(_)) => Ok(()),
                    other => other,
                }
            }
            "budget_reached" => {
                let (Some(scope), Some(period)) =
                    (BudgetScope::parse(&about.scope_kind), about.period.as_deref().and_then(BudgetPeriod::parse))
                else {
                    return Err(Error::Internal(format!("a budget request about {}", about.scope_kind)));
                };
                self.allow_until_tomorrow(scope, &about.scope_id, period)
            }
            _ => Ok(()),
        }
    }

    /// Pauses a scope and raises its request (once: a scope already paused raises nothing new).
    /// Returns the refusal for the run or hand-off that tripped it.
    fn trip(&self, scope: &RunScope, kind: ScopeKind, id: &str, breaker: Breaker, reason: String) -> Error {
        let now = self.now();
        let paused = PausedScope {
            scope: kind,
            scope_id: id.to_owned(),
            breaker,
            reason: reason.clone(),
            paused_at: now,
            request_id: None,
        };
        let newly = self.store.write(|tx| {
            if store::paused_among(tx, &[(kind, id)])?.is_some() {
                return Ok(false);
            }
            store::pause(tx, &paused)?;
            Ok(true)
        });
        match newly {
            Ok(true) => {
                tracing::warn!(
                    scope = kind.as_str(),
                    id,
                    breaker = breaker.as_str(),
                    "a circuit breaker paused a scope"
                );
                let text = words::paused_request(&reason);
                let about = store::GuardRequest {
                    kind: "paused".into(),
                    scope_kind: kind.as_str().into(),
                    scope_id: id.to_owned(),
                    period: None,
                };
                self.raise(scope, RequestKind::ScopePaused, &text, None, &about, |tx, request_id| {
                    store::set_pause_request(tx, kind, id, request_id)
                });
            }
            Ok(false) => {}
            Err(e) => tracing::warn!(error = %e, "a circuit breaker could not pause its scope"),
        }
        refused(&paused)
    }

    /// A budget is spent: its request (Allow until tomorrow / Keep stopped) is raised once per period.
    fn budget_reached(&self, scope: &RunScope, stored: &store::StoredBudget, now: i64) {
        let today = clawboo_spend::day_of(now);
        let (_, _, period_number) = period_days(stored.budget.period, today);
        if stored.reached_period == Some(period_number) {
            return;
        }
        let budget = &stored.budget;
        let first = self.store.write(|tx| {
            let fresh = store::budgets(tx, Some(&[(budget.scope, budget.scope_id.as_str())]), today)?;
            let again =
                fresh.iter().any(|b| b.budget.period == budget.period && b.reached_period == Some(period_number));
            if !again {
                store::mark_reached(tx, budget, period_number)?;
            }
            Ok(!again)
        });
        if !matches!(first, Ok(true)) {
            return;
        }
        let text = words::reached_request(&self.spent_words(budget));
        let about = store::GuardRequest {
            kind: "budget_reached".into(),
            scope_kind: budget.scope.as_str().into(),
            scope_id: budget.scope_id.clone(),
            period: Some(budget.period.as_str().into()),
        };
        // It stands until its period ends (a new period counts afresh) or it is answered.
        let until = period_end(budget.period, today);
        self.raise(scope, RequestKind::BudgetReached, &text, Some(until), &about, |_, _| Ok(()));
    }

    /// A budget reached 80%: a line in the Inbox (and its notification), once per period.
    fn budget_warning(&self, scope: &RunScope, stored: &store::StoredBudget, today: clawboo_spend::Date) {
        let budget = &stored.budget;
        let (_, _, period_number) = period_days(budget.period, today);
        if self.store.write(|tx| store::mark_warned(tx, budget, period_number)).is_err() {
            return;
        }
        let text = words::warning_line(&self.budget_words(budget), budget);
        let about = store::GuardRequest {
            kind: "budget_warning".into(),
            scope_kind: budget.scope.as_str().into(),
            scope_id: budget.scope_id.clone(),
            period: Some(budget.period.as_str().into()),
        };
        // A line to read: it stands until its period ends (or is dismissed), never "denied".
        let until = period_end(budget.period, today);
        self.raise(scope, RequestKind::BudgetWarning, &text, Some(until), &about, |_, _| Ok(()));
    }

    fn raise(
        &self,
        scope: &RunScope,
        kind: RequestKind,
        text: &str,
        until: Option<i64>,
        about: &store::GuardRequest,
        also: impl FnOnce(&rusqlite::Transaction, &str) -> Result<()>,
    ) {
        let Some(attention) = &self.attention else { return };
        let raised = attention.raise_guard(&scope.source(), kind, text, until, |request_id| {
            self.store.write(|tx| {
                store::insert_request(tx, request_id, about)?;
                also(tx, request_id)
            })
        });
        if let Err(e) = raised {
            tracing::warn!(kind = kind.as_str(), error = %e, "a run guard could not raise its Inbox request");
        }
    }

    /// The routine a run belongs to, if any (for its budget).
    pub fn routine_of_run(&self, run_id: &str, card_id: Option<&str>) -> Option<String> {
        self.store.read(|c| store::routine_of_run(c, run_id, card_id)).ok().flatten()
    }

    /// The routine a team routine's message belongs to.
    pub fn routine_of_routine_run(&self, routine_run_id: &str) -> Option<String> {
        self.store.read(|c| store::routine_of_routine_run(c, routine_run_id)).ok().flatten()
    }
}

#[cfg(test)]
mod tests;
