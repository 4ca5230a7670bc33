//! `clawboo-run`: the run layer, where every run — a one-to-one message, a team turn or
//! hand-off, a card task, a routine's card — is prepared (`run::prepare`: a `RunRequest` in, a
//! `PreparedRun` out, with the conversation rows, the session plan, the file plan and placement
//! it is built from), driven by the one loop (`run::drive`, its policies as data), recorded
//! (`Recorder`), held in its agent's slot or the task runs, and ended
//! (`RunServices::end_grants`). It may use the crates below it — vocab, store, context, agents,
//! attention, `clawboo-tools` and `clawboo-runtimes` (with the relay) — and never chat, the task
//! runner or the engine, which call it and say what to do with a run's end. The engine
//! re-exports it at its old path (`clawboo_engine::run`).

pub mod guard;
pub mod run;

// The crates below, at the paths this module names them by (`crate::runtimes::...`), as in the
// engine it came from.
use clawboo_agents as agents;
use clawboo_attention as attention;
use clawboo_context as context;
use clawboo_runtimes::{relay, runtimes};
use clawboo_store::{events, store};
use clawboo_tools::tools;
use clawboo_vocab as vocab;
use clawboo_vocab::error;
