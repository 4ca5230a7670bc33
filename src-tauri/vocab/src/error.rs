//! The engine's one error type. Every variant maps to a stable, machine-readable [`ErrorCode`]
//! so the UI can branch on the code and show the message.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// Stable codes the UI may branch on. Renaming one is a breaking change for the UI.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// The engine could not start (for example the data directory is unusable).
    EngineUnavailable,
    InvalidInput,
    InvalidHandle,
    DuplicateHandle,
    NotFound,
    ForbiddenFileName,
    FileTooLarge,
    DataDirUnusable,
    /// Another Clawboo (or another engine) has the data directory open.
    DataDirInUse,
    Store,
    Io,
    KeychainUnavailable,
    Keychain,
    RuntimeNotFound,
    RuntimeFailed,
    /// An agent's OS sandbox cannot start here (bubblewrap missing, user namespaces off, a
    /// container); the run was refused rather than run unconfined. The message says the fix.
    SandboxUnavailable,
    /// A runtime CLI could not be asked which options it has (its `--help` failed, hung or was
    /// not its help), so the flags that confine it cannot be chosen: the run did not start.
    RuntimeProbeFailed,
    RunNotActive,
    /// The thing changed meanwhile or is held by someone else (a card another run claimed, a
    /// card still waiting on others): refetch, and try again later.
    Conflict,
    MissingApiKey,
    /// A runtime is to use the user's own CLI sign-in, and none was found.
    SignInMissing,
    /// Git is missing, or a git command on a card's project folder failed (its worktree, its
    /// branch, its diff); the message says which and why.
    Git,
    /// A card's worktree is not as Clawboo made it (its `.git` was replaced, removed or
    /// pointed elsewhere): git was not run there, and nothing was committed or deleted.
    WorktreeTampered,
    /// An agent file, or a run's whole prepared context, is over its budget: the run did not
    /// start (nothing is ever cut to fit).
    ContextTooLarge,
    /// A routine's schedule is invalid (a cron expression, a time zone, an interval under one
    /// minute, a one-time run in the past); the message says which.
    InvalidSchedule,
    /// The agent, room or team the run belongs to is paused by a circuit breaker (it started too
    /// many runs, handed work back and forth, repeated a tool call): the message says what was
    /// seen; resume it from its Inbox request.
    Paused,
    /// A budget of the run's scope (agent, team, routine or overall) is spent for its period:
    /// the message gives the figure; raise the budget or allow until tomorrow.
    BudgetExhausted,
    /// The agent runs on an OpenClaw Gateway the user runs elsewhere, and Clawboo's connection
    /// to it is lost: the turn was refused at once rather than left waiting; the message gives
    /// the reason and when Clawboo tries again.
    GatewayUnreachable,
    Internal,
}

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{0}")]
    InvalidInput(String),

    #[error("{0}")]
    InvalidHandle(String),

    #[error("The handle @{0} is already taken by another agent.")]
    DuplicateHandle(String),

    #[error("{0} was not found.")]
    NotFound(String),

    #[error("“{0}” is not an agent file. Only SOUL.md, AGENTS.md, IDENTITY.md, USER.md, MEMORY.md, BOOTSTRAP.md and HEARTBEAT.md can be opened.")]
    ForbiddenFileName(String),

    #[error("{name} is {size} bytes; the limit is {limit} bytes.")]
    FileTooLarge { name: String, size: u64, limit: u64 },

    #[error("The data directory {} cannot be used: {source}", path.display())]
    DataDirUnusable {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    #[error("The data directory {} is in use by another Clawboo. Close it first, or set CLAWBOO_DATA_DIR to use another folder.", path.display())]
    DataDirInUse { path: PathBuf },

    #[error("Database migration {version} ({name}) failed: {source}")]
    Migration {
        version: u32,
        name: &'static str,
        #[source]
        source: rusqlite::Error,
    },

    #[error(
        "The database was written by a newer Clawboo (schema {found}, this build knows up to {known}). Update Clawboo."
    )]
    StoreTooNew { found: u32, known: u32 },

    #[error("Database error: {0}")]
    Store(#[from] rusqlite::Error),

    #[error("{context}: {source}")]
    Io {
        context: String,
        #[source]
        source: std::io::Error,
    },

    #[error("The system keychain is not available: {0}")]
    KeychainUnavailable(String),

    #[error("The system keychain refused the request: {0}")]
    Keychain(String),

    #[error("{0}")]
    RuntimeNotFound(String),

    #[error("{0}")]
    RuntimeFailed(String),

    #[error("{0}")]
    SandboxUnavailable(String),

    #[error("{0}")]
    RuntimeProbeFailed(String),

    #[error("{0}")]
    RunNotActive(String),

    #[error("{0}")]
    Conflict(String),

    #[error("{0}")]
    MissingApiKey(String),

    #[error("{0}")]
    SignInMissing(String),

    #[error("{0}")]
    Git(String),

    #[error("{0}")]
    WorktreeTampered(String),

    #[error("{0}")]
    ContextTooLarge(String),

    #[error("{0}")]
    InvalidSchedule(String),

    #[error("{0}")]
    Paused(String),

    #[error("{0}")]
    BudgetExhausted(String),

    #[error("{0}")]
    GatewayUnreachable(String),

    #[error("Internal error: {0}")]
    Internal(String),
}

impl Error {
    pub fn code(&self) -> ErrorCode {
        match self {
            Error::InvalidInput(_) => ErrorCode::InvalidInput,
            Error::InvalidHandle(_) => ErrorCode::InvalidHandle,
            Error::DuplicateHandle(_) => ErrorCode::DuplicateHandle,
            Error::NotFound(_) => ErrorCode::NotFound,
            Error::ForbiddenFileName(_) => ErrorCode::ForbiddenFileName,
            Error::FileTooLarge { .. } => ErrorCode::FileTooLarge,
            Error::DataDirUnusable { .. } => ErrorCode::DataDirUnusable,
            Error::DataDirInUse { .. } => ErrorCode::DataDirInUse,
            Error::Migration { .. } | Error::StoreTooNew { .. } | Error::Store(_) => ErrorCode::Store,
            Error::Io { .. } => ErrorCode::Io,
            Error::KeychainUnavailable(_) => ErrorCode::KeychainUnavailable,
            Error::Keychain(_) => ErrorCode::Keychain,
            Error::RuntimeNotFound(_) => ErrorCode::RuntimeNotFound,
            Error::RuntimeFailed(_) => ErrorCode::RuntimeFailed,
            Error::SandboxUnavailable(_) => ErrorCode::SandboxUnavailable,
            Error::RuntimeProbeFailed(_) => ErrorCode::RuntimeProbeFailed,
            Error::RunNotActive(_) => ErrorCode::RunNotActive,
            Error::Conflict(_) => ErrorCode::Conflict,
            Error::MissingApiKey(_) => ErrorCode::MissingApiKey,
            Error::SignInMissing(_) => ErrorCode::SignInMissing,
            Error::Git(_) => ErrorCode::Git,
            Error::WorktreeTampered(_) => ErrorCode::WorktreeTampered,
            Error::ContextTooLarge(_) => ErrorCode::ContextTooLarge,
            Error::InvalidSchedule(_) => ErrorCode::InvalidSchedule,
            Error::Paused(_) => ErrorCode::Paused,
            Error::BudgetExhausted(_) => ErrorCode::BudgetExhausted,
            Error::GatewayUnreachable(_) => ErrorCode::GatewayUnreachable,
            Error::Internal(_) => ErrorCode::Internal,
        }
    }

    pub fn io(context: impl Into<String>, source: std::io::Error) -> Self {
        Error::Io { context: context.into(), source }
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
