//! Adapter: codex (in progress).
