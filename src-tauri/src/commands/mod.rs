//! Typed commands, one file per domain. Each is a thin wrapper over an engine service.

pub mod agents;
pub mod api;
pub mod app;
pub mod attention;
pub mod board;
pub mod boo_zero;
pub mod chat;
pub mod connectors;
pub mod history;
pub mod home;
pub mod limits;
pub mod logs;
pub mod memory;
pub mod onboarding;
pub mod preferences;
pub mod routines;
pub mod runner;
pub mod runtimes;
pub mod sandbox;
pub mod secrets;
pub mod spend;
pub mod team_chat;
pub mod teams;
