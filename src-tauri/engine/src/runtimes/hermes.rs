//! Adapter: hermes (in progress).
