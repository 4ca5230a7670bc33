//! The one error type that crosses IPC: a stable machine-readable `code` and a human message.

use clawboo_engine::{Error, ErrorCode};
use serde::Serialize;

#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct AppError {
    pub code: ErrorCode,
    pub message: String,
}

impl AppError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self { code, message: message.into() }
    }
}

impl From<Error> for AppError {
    fn from(e: Error) -> Self {
        Self { code: e.code(), message: e.to_string() }
    }
}

impl std::fmt::Display for AppError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({:?})", self.message, self.code)
    }
}
