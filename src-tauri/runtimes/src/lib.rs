//! `clawboo-runtimes`: how Clawboo runs agents — each runtime's adapter (Claude Code, Codex,
//! Hermes, OpenClaw, and Native in-process), the processes they start and their supervision,
//! the OS sandbox every agent process runs in, the connectors a run hosts and the MCP client
//! that reaches them (`runtimes`); and the loopback model relay that gives a run a token
//! instead of a key and records what each model was sent (`relay`), and a provider's model list
//! asked the way the relay asks (`models`). It may use vocab, store,
//! context, agents and `clawboo-tools` below it, never the runs, chat or the task runner above:
//! runtimes reach models through the `EndpointSource` trait, which the relay implements. Inside,
//! `relay` sits above `runtimes` and `models` above both (checked by the engine's
//! `tests/layers.rs`). The engine re-exports them at their old paths (`clawboo_engine::runtimes`,
//! `relay`, `models`).

pub mod models;
pub mod relay;
pub mod runtimes;

// The crates below, at the paths these modules name them by (`crate::tools::...`), as in the
// engine they came from.
use clawboo_agents as agents;
use clawboo_context as context;
use clawboo_store::{config, secrets, store};
use clawboo_tools::{connectors, loopback, tools};
use clawboo_vocab as vocab;
use clawboo_vocab::error;
// And the error types at the root, where the engine has them (`crate::Result`).
#[cfg(test)]
use clawboo_vocab::error::ErrorCode;
use clawboo_vocab::error::{Error, Result};
