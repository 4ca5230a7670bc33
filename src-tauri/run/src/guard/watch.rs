//! What the drive loop asks of the guards while a run goes: the same tool call with the same
//! input made again and again, and the budgets after each model call is recorded — a CLI's
//! usage event once the recorder stored it, or a request the relay recorded.

use std::collections::HashMap;

use super::{Guard, RunScope};
use crate::runtimes::RunEvent;

/// Why the guards ended a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Halt {
    /// A budget of its scope was spent by its last model call.
    Budget,
    /// It made the same tool call with the same input this many times.
    RepeatedToolCall { times: u32 },
}

/// One run's watch: its scope, the limit on repeats read when it started, the calls it made.
pub struct RunWatch<'a> {
    guard: &'a Guard,
    scope: RunScope,
    repeat_limit: u32,
    calls: HashMap<String, u32>,
}

impl<'a> RunWatch<'a> {
    pub fn new(guard: &'a Guard, scope: RunScope) -> Self {
        let repeat_limit =
            guard.limits().map(|l| l.repeated_tool_calls).unwrap_or(super::Limits::DEFAULT.repeated_tool_calls);
        Self { guard, scope, repeat_limit, calls: HashMap::new() }
    }

    /// Whether `event` ends the run, and the note that says why (recorded in the run).
    pub fn see(&mut self, event: &RunEvent) -> Option<(Halt, String)> {
        match event {
            RunEvent::ToolCallStarted { name, input, .. } => {
                // The input as JSON text: the same call is the same tool with the same arguments.
                let key = format!("{name}\u{0}{input}");
                let times = self.calls.entry(key).or_insert(0);
                *times += 1;
                (*times >= self.repeat_limit).then(|| {
                    let times = *times;
                    (Halt::RepeatedToolCall { times }, self.guard.tool_call_repeated(&self.scope, name, times))
                })
            }
            // Stored (and so counted by the spend) before it is seen here: see the drive loop.
            RunEvent::Usage { .. } => self.model_call_recorded(),
            _ => None,
        }
    }

    /// A model call of the run was recorded (its spend counted): whether a budget of its scope
    /// is now spent, which ends the run after that call.
    pub fn model_call_recorded(&mut self) -> Option<(Halt, String)> {
        match self.guard.check_spent(&self.scope) {
            Ok(note) => note.map(|note| (Halt::Budget, note)),
            Err(e) => {
                tracing::warn!(agent_id = %self.scope.agent_id, error = %e, "a run's budgets could not be checked");
                None
            }
        }
    }
}
