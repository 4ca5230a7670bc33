//! `clawboo-store`: where Clawboo keeps its state, and the plumbing every service is built on —
//! the SQLite store (one writer, pooled readers, the migrations and the settings table), the
//! engine's event bus, API keys in the OS keychain (never in SQLite), the data folder's
//! configuration and lock, the log file (its level, rotation and last lines), and what the
//! window remembers (theme, last place). It may use only `clawboo-vocab` below it; the domain
//! crates (board, memory, agents, ...) and the engine build on it. The engine re-exports its modules at their old paths (`clawboo_engine::store`,
//! `events`, `secrets`, `config`, `logs`, `preferences`).

pub mod config;
pub mod events;
pub mod logs;
pub mod preferences;
pub mod secrets;
pub mod store;
