//! Adapter: claude_code (in progress).
