//! The engine's shared vocabulary: the words every service speaks (runtimes, run events, agent
//! file names, chat and room messages, runs, the time and its test clock, a rate limiter). It
//! sits below the services and imports none of them, so imports only point down: `events`,
//! `agents`, `runtimes`, `chat` and `context` all use it; it uses only `error`. The old paths
//! (`agents::RuntimeKind`, `runtimes::RunEvent`, `chat::RunEventRecord`, `chat::now_ms`,
//! `routines::Clock`, ...) re-export it.

mod agent_file;
mod chat;
pub mod clock;
pub mod permission;
pub mod rate;
mod room;
pub mod routine;
mod run;
mod runtime;
pub mod sandbox;

pub use agent_file::AgentFileName;
pub use chat::{ChatMessage, ChatRole, RunStatus, RunSummary};
pub use clock::{now_ms, Clock, ManualClock, SystemClock};
pub use rate::RateLimiter;
pub use room::{PeerPost, RoomMessage, RoomMessageKind};
pub use run::{RunEvent, RunEventRecord, RunOutcome};
pub use runtime::{ApprovalPolicy, RuntimeKind};

/// A count as the user reads it in messages: `4210` → `4,210`.
pub fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}
