//! `clawboo-tools`: Clawboo's own tools for agents and what serves them — each tool's typed
//! arguments and derived schema, the MCP bridge every CLI calls over loopback and the one
//! `Dispatcher` with its services passed in (`tools`); the MCP servers the user plugs in,
//! their stored config and keychain secrets (`connectors`); and the accept loop and bounds of
//! every loopback HTTP server, the relay's, the bridge's and the local API's (`loopback`).
//! It may use the crates below it — vocab, store, context, the domain (board, memory, agents,
//! teams, attention, routines) and the message history — and never the runtimes, runs or chat
//! above it: team chat is reached through the `Handoffs` and `PeerRooms` traits it implements. Inside, the
//! modules sit in the order loopback → tools → connectors (checked by the engine's
//! `tests/layers.rs`). The engine re-exports each module at its old path
//! (`clawboo_engine::tools`, `connectors`, `loopback`).

pub mod connectors;
pub mod loopback;
pub mod tools;

// The crates below, at the paths these modules name them by (`crate::board::...`), as in the
// engine they came from.
use clawboo_agents as agents;
use clawboo_attention as attention;
use clawboo_board as board;
use clawboo_context as context;
use clawboo_history as history;
use clawboo_memory as memory;
use clawboo_routines as routines;
use clawboo_store::{config, events, secrets, store};
use clawboo_teams as teams;
use clawboo_vocab as vocab;
use clawboo_vocab::error;
