//! What every command reaches: the engine, or why it could not start. The app opens the engine
//! on a thread of its own while the webview loads its page (see `lib.rs`), so a command may
//! arrive before the engine is there: it waits for it.

use std::sync::Arc;

use clawboo_engine::{Engine, ErrorCode};
use tokio::sync::watch;

use crate::error::AppError;

type Opened = Result<Arc<Engine>, AppError>;

pub struct AppState {
    /// `None` while the engine is still opening.
    engine: watch::Receiver<Option<Opened>>,
}

/// The other end of [`AppState::opening`]: whoever opens the engine hands it over here, once.
pub struct EngineOpening(watch::Sender<Option<Opened>>);

impl EngineOpening {
    /// The engine is open (or failed to): every command waiting for it goes on.
    pub fn finish(self, engine: Result<Arc<Engine>, clawboo_engine::Error>) {
        self.0.send_replace(Some(engine.map_err(unavailable)));
    }
}

impl AppState {
    /// A state with the engine already opened (or its failure).
    pub fn new(engine: Result<Engine, clawboo_engine::Error>) -> Self {
        let (_, state) = Self::with(Some(engine.map(Arc::new).map_err(unavailable)));
        state
    }

    /// A state whose engine is still being opened: commands wait until `finish` is called.
    pub fn opening() -> (Self, EngineOpening) {
        let (sender, state) = Self::with(None);
        (state, EngineOpening(sender))
    }

    fn with(engine: Option<Opened>) -> (watch::Sender<Option<Opened>>, Self) {
        let (sender, receiver) = watch::channel(engine);
        (sender, Self { engine: receiver })
    }

    /// The engine, once it is open (waiting for it while it opens), or why it could not open.
    pub async fn engine(&self) -> Result<Arc<Engine>, AppError> {
        let mut engine = self.engine.clone();
        let opened = engine.wait_for(Option::is_some).await.map_err(|_| {
            AppError::new(ErrorCode::EngineUnavailable, "Clawboo could not open its data: the opening stopped midway.")
        })?;
        opened.clone().expect("waited for Some")
    }

    /// The engine if it is already open; `None` while it opens or when it could not open.
    pub fn engine_if_open(&self) -> Option<Arc<Engine>> {
        self.engine.borrow().as_ref().and_then(|opened| opened.as_ref().ok().cloned())
    }

    /// Like [`AppState::engine`], for threads outside the async runtime (the app's exit).
    pub fn engine_blocking(&self) -> Result<Arc<Engine>, AppError> {
        tauri::async_runtime::block_on(self.engine())
    }

    /// Runs blocking engine work (SQLite, files, keychain) off the async runtime's workers.
    pub async fn run<T, F>(&self, work: F) -> Result<T, AppError>
    where
        T: Send + 'static,
        F: FnOnce(&Engine) -> clawboo_engine::Result<T> + Send + 'static,
    {
        let engine = self.engine().await?;
        tauri::async_runtime::spawn_blocking(move || work(&engine))
            .await
            .map_err(|e| AppError::new(ErrorCode::Internal, format!("A background task failed: {e}")))?
            .map_err(AppError::from)
    }
}

fn unavailable(e: clawboo_engine::Error) -> AppError {
    AppError::new(ErrorCode::EngineUnavailable, format!("Clawboo could not open its data. {e}"))
}
