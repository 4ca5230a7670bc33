//! Adapter: openclaw (in progress).
