//! What every command reaches: the engine, or why it could not start.

use std::sync::Arc;

use clawboo_engine::{Engine, ErrorCode};

use crate::error::AppError;

pub struct AppState {
    engine: Result<Arc<Engine>, AppError>,
}

impl AppState {
    pub fn new(engine: Result<Engine, clawboo_engine::Error>) -> Self {
        let engine = engine
            .map(Arc::new)
            .map_err(|e| AppError::new(ErrorCode::EngineUnavailable, format!("Clawboo could not open its data. {e}")));
        Self { engine }
    }

    pub fn engine(&self) -> Result<Arc<Engine>, AppError> {
        self.engine.clone()
    }

    /// Runs blocking engine work (SQLite, files, keychain) off the async runtime's workers.
    pub async fn run<T, F>(&self, work: F) -> Result<T, AppError>
    where
        T: Send + 'static,
        F: FnOnce(&Engine) -> clawboo_engine::Result<T> + Send + 'static,
    {
        let engine = self.engine()?;
        tauri::async_runtime::spawn_blocking(move || work(&engine))
            .await
            .map_err(|e| AppError::new(ErrorCode::Internal, format!("A background task failed: {e}")))?
            .map_err(AppError::from)
    }
}
