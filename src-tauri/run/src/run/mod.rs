//! The run layer: everything every run shares, whoever starts it — a one-to-one message, a team
//! turn or hand-off, a card task or a routine's card. Callers (chat, team chat, the task runner)
//! say *what* to run (a [`prepare::RunRequest`], then a `TurnInput` and the [`Policies`] it runs
//! under) and *what to do with its end*; this layer owns the rest:
//! - [`prepare`]: a request prepared into one [`prepare::PreparedRun`] (the agent's runtime and
//!   its files for the run's folder), the runtime session a conversation's turn goes on in
//!   ([`prepare::TurnSession`]), and the parts they are built from (conversation rows, session
//!   plan, file plan, placement);
//! - [`drive`]: the one loop that runs a runtime to its end, recording every event, sending
//!   permission questions to attention, and stopping the run when its policies say so (the user's
//!   Stop, silence — never while the user is being asked —, the wall clock, a context window
//!   nearly full); a runtime that lost the session it was to resume is retried fresh when asked;
//! - [`Recorder`]: a run's events numbered, stored in batches and published, its reply gathered;
//! - [`AgentSlots`]: each agent's one run slot (one-to-one and team runs), Stop, waiting for a
//!   run's end with a limit, stopping every run on quit, and the agents being deleted;
//!   [`TaskRuns`]: the task runner's live runs, by claim (the runner keeps its queue);
//! - [`RunServices::end_grants`]: the end of every run in one place (approvals it waited on
//!   withdrawn, its relay and tools tokens revoked), and [`Recorder::finish`] its last event.
//!
//! It imports the layers below it (runtimes, relay, tools, attention, agents, context, store,
//! events),
//! never chat or the runner.

pub mod drive;
pub mod prepare;
pub mod recorder;
pub mod slots;
pub mod store;
pub mod tasks;

pub use drive::{drive, ContextFull, Driven, Policies, Stop, Turn, TurnLimit};
pub use recorder::Recorder;
pub use slots::{wait_done, AgentSlots, Closing, Reservation, Slot};
pub use tasks::{TaskRuns, TaskSlot};

use crate::attention::Attention;
use crate::guard::Guard;
use crate::relay::Relay;
use crate::tools::Tools;

/// The services a run deals with while it goes and gives its grants back to when it ends. Each
/// is optional: an engine without attention denies permission questions (nobody could answer
/// them); without a relay or a tools bridge there is no token to revoke.
#[derive(Clone, Copy, Default)]
pub struct RunServices<'a> {
    pub attention: Option<&'a Attention>,
    pub relay: Option<&'a Relay>,
    pub tools: Option<&'a Tools>,
    /// The breakers and budgets: a run's repeated tool calls and its usage are counted as it
    /// goes, and it is ended when they call for it (without, nothing is counted).
    pub guard: Option<&'a Guard>,
}

impl RunServices<'_> {
    /// The run `run_id` ended: approvals it waited on are withdrawn, and its relay and tools
    /// tokens stop working. Every run's end goes through here, in this order.
    pub fn end_grants(&self, run_id: &str) {
        if let Some(attention) = self.attention {
            let _ = attention.run_ended(run_id);
        }
        if let Some(relay) = self.relay {
            relay.revoke(run_id);
        }
        if let Some(tools) = self.tools {
            tools.revoke(run_id);
        }
    }
}
