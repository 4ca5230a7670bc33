//! What the guards say: the reasons a breaker gives, the notes and refusals of a spent budget,
//! and the text of their Inbox requests — with the names and figures that make them readable.
//! Kept apart from the rules in `mod.rs` so the wording can be read (and changed) in one place.

use super::budgets::{Budget, BudgetScope, BudgetUnit};
use super::{Guard, PausedScope};
use crate::error::Error;

/// The refusal for a run or hand-off in a paused scope: code `paused`, the reason.
pub(super) fn refused(paused: &PausedScope) -> Error {
    Error::Paused(format!("{} Resume it from its Inbox request (or Settings › Limits).", paused.reason))
}

/// A run refused for a spent budget (code `budget_exhausted`): the figure, and the ways on.
pub(super) fn refused_for_budget(spent: &str) -> String {
    format!("{spent} New runs are stopped: raise the budget, or allow runs until tomorrow from the Inbox.")
}

/// The note of a run a budget stopped after its model call (in its chat or on its card).
pub(super) fn stopped_after_call(spent: &str) -> String {
    format!("{spent} This run was stopped after its model call; what it did so far is kept.")
}

pub(super) fn too_many_runs(who: &str, run: u32, limit: u32) -> String {
    format!(
        "{who} was about to start run {run} within an hour (the limit is {limit} runs an hour), so Clawboo paused it."
    )
}

pub(super) fn too_many_handoffs(room: &str, made: u32, limit: u32) -> String {
    format!(
        "{room} had {made} hand-offs in the last 10 minutes (the limit is {limit}): its agents may be handing \
         work back and forth. Clawboo paused the room."
    )
}

pub(super) fn tool_call_repeated(who: &str, tool: &str, times: u32) -> String {
    format!(
        "{who} made the same call to {tool} with the same input {times} times in one run (the limit is {times}): \
         it looks like a loop. Clawboo ended that run (what it did so far is kept) and paused {who}."
    )
}

/// The Inbox request of a paused scope.
pub(super) fn paused_request(reason: &str) -> String {
    format!("{reason} No new run starts there until you resume it. Resume lets it run again; Keep paused leaves it stopped.")
}

/// The Inbox request of a spent budget.
pub(super) fn reached_request(spent: &str) -> String {
    format!(
        "{spent} New runs there are stopped, and a run going stops after its current model call (nothing is \
         lost). Raise the budget, allow runs until tomorrow, or keep them stopped."
    )
}

/// The Inbox line of a budget at 80%: "@ada's daily money budget is at 83%: $0.83 of $1.00
/// today. At 100% new runs there stop."
pub(super) fn warning_line(budget_words: &str, budget: &Budget) -> String {
    format!(
        "{budget_words} is at {}%: {} of {} {}. At 100% new runs there stop.",
        budget.spent.saturating_mul(100) / budget.amount.max(1),
        budget.unit.figure(budget.spent),
        budget.unit.figure(budget.amount),
        budget.period.now_words()
    )
}

impl Guard {
    /// "@ada's daily token budget (10,000 tokens) is spent: 10,250 tokens today."
    pub(super) fn spent_words(&self, budget: &Budget) -> String {
        format!(
            "{} ({}) is spent: {} {}.",
            self.budget_words(budget),
            budget.unit.figure(budget.amount),
            budget.unit.figure(budget.spent),
            budget.period.now_words()
        )
    }

    /// "@ada's daily token budget", "The overall monthly money budget".
    pub(super) fn budget_words(&self, budget: &Budget) -> String {
        let what = match budget.unit {
            BudgetUnit::Tokens => "token",
            BudgetUnit::Usd => "money",
        };
        let whose = match budget.scope {
            BudgetScope::Overall => return format!("The overall {} {what} budget", budget.period.adjective()),
            BudgetScope::Agent => self.agent_words(&budget.scope_id),
            BudgetScope::Team => {
                self.name_of("teams", &budget.scope_id).map_or_else(|| "A team".into(), |n| format!("The team {n}"))
            }
            BudgetScope::Routine => self
                .name_of("routines", &budget.scope_id)
                .map_or_else(|| "A routine".into(), |n| format!("The routine \"{n}\"")),
        };
        format!("{whose}'s {} {what} budget", budget.period.adjective())
    }

    /// "@ada", or "An agent" when it is gone.
    pub(super) fn agent_words(&self, agent_id: &str) -> String {
        // The agents' table, read only for a handle to name in a message.
        let handle = self
            .store
            .read(|c| {
                Ok(rusqlite::OptionalExtension::optional(c.query_row(
                    "SELECT handle FROM agents WHERE id = ?1",
                    [agent_id],
                    |r| r.get::<_, String>(0),
                ))?)
            })
            .ok()
            .flatten();
        handle.map_or_else(|| "An agent".to_owned(), |h| format!("@{h}"))
    }

    /// "#launch", or "A room" when it is gone.
    pub(super) fn room_words(&self, room_id: &str) -> String {
        self.name_of("rooms", room_id).map_or_else(|| "A room".to_owned(), |n| format!("#{n}"))
    }

    /// The name of a team, room or routine, read only to say it.
    fn name_of(&self, table: &'static str, id: &str) -> Option<String> {
        self.store
            .read(|c| {
                Ok(rusqlite::OptionalExtension::optional(c.query_row(
                    &format!("SELECT name FROM {table} WHERE id = ?1"),
                    [id],
                    |r| r.get::<_, String>(0),
                ))?)
            })
            .ok()
            .flatten()
    }
}
