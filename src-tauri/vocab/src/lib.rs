//! `clawboo-vocab`: the words every layer of Clawboo's engine speaks — its errors (each with a
//! code the UI shows), runtime kinds and approval policies, run events and statuses, chat and
//! room messages, permission questions, routine tags, sandbox settings, the time and its test
//! clock, a rate limiter. The bottom crate: it depends on no other Clawboo crate, so nothing
//! here can import upward (the compiler refuses it). The engine re-exports it as
//! `clawboo_engine::vocab` and `clawboo_engine::error`, and the old paths (`agents::RuntimeKind`,
//! `runtimes::RunEvent`, `chat::now_ms`, ...) still lead here.

pub mod error;

mod agent_file;
mod chat;
pub mod clock;
mod gateway;
pub mod permission;
pub mod rate;
mod room;
pub mod routine;
mod run;
mod runtime;
pub mod sandbox;

pub use agent_file::AgentFileName;
pub use chat::{ChatMessage, ChatRole, RunErrorCode, RunStatus, RunSummary};
pub use clock::{now_ms, Clock, ManualClock, SystemClock};
pub use error::{Error, ErrorCode, Result};
pub use gateway::{GatewayHealth, GatewayLinkState};
pub use rate::RateLimiter;
pub use room::{PeerPost, RoomMessage, RoomMessageKind, RoomRoutine};
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
