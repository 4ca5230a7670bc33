//! The one dispatcher of Clawboo's tools: a parsed call ([`ToolCall`]) goes to what does it,
//! with the services it needs, all of them there (the engine builds them before the bridge
//! serves a call). Team chat is reached only through [`Handoffs`] and [`PeerRooms`], so the
//! tools know nothing of chat.

use std::sync::Arc;

use super::specs::ToolCall;
use super::team::{Handoffs, PeerRooms};
use super::{board, memory, routine, team, threads, Caller, ToolFuture, ToolHost, ToolOutput};
use crate::agents::Agents;
use crate::attention::{Attention, Source};
use crate::board::{Board, CardRunKind};
use crate::error::Result;
use crate::memory::Memory;
use crate::store::Store;
use crate::teams::Teams;

/// What the tools act on.
pub struct Services {
    /// Where a routine proposal is kept until the user decides; what `search_threads` searches.
    pub store: Arc<Store>,
    /// `memory_get`'s MEMORY.md, and whose a routine is.
    pub agents: Arc<Agents>,
    /// Who a leader may propose a routine for.
    pub teams: Arc<Teams>,
    pub memory: Arc<Memory>,
    pub board: Arc<Board>,
    /// The user's inbox: questions, held saves, promotions, routine proposals.
    pub attention: Arc<Attention>,
    pub handoffs: Arc<dyn Handoffs>,
    pub peer_rooms: Arc<dyn PeerRooms>,
}

impl Services {
    /// Runs `call` for `caller`; `Err` is a tool error for the model.
    fn run(&self, caller: &Caller, call: ToolCall) -> Result<String> {
        match call {
            ToolCall::Handoff(args) => team::hand_off(self, caller, args),
            ToolCall::PeerPost(args) => team::peer_post(self, caller, args),
            ToolCall::PeerRead(args) => team::peer_read(self, caller, args),
            ToolCall::AskUser(args) => team::ask_user(self, caller, args),
            ToolCall::MemorySave(args) => memory::save(self, caller, args),
            ToolCall::MemorySearch(args) => memory::search(&self.memory, caller, args),
            ToolCall::MemoryGet(args) => memory::get(self, caller, args),
            ToolCall::NoteSave(args) => memory::note_save(&self.memory, caller, args),
            ToolCall::ScratchWrite(args) => memory::scratch_write(&self.memory, caller, args),
            ToolCall::ScratchPromote(args) => memory::scratch_promote(self, caller, args),
            ToolCall::BoardList(args) => board::list(&self.board, caller, args),
            ToolCall::BoardUpdate(args) => board::update(&self.board, caller, args),
            ToolCall::BoardComment(args) => board::comment(&self.board, caller, args),
            ToolCall::RoutineCreate(args) => routine::create(self, caller, args),
            ToolCall::SearchThreads(args) => threads::search(&self.store, caller, args),
        }
    }

    /// Where a tool call comes from, from the run's token alone: its agent, team and room, and
    /// the card when the run is a card's task run (a hand-off's run answers in the team chat).
    pub(super) fn source_of(&self, caller: &Caller) -> Result<Source> {
        let card_id =
            self.board.run(&caller.run_id)?.filter(|run| run.kind != CardRunKind::Handoff).map(|run| run.card_id);
        let non_empty = |s: &str| (!s.is_empty()).then(|| s.to_owned());
        Ok(Source {
            agent_id: caller.agent_id.clone(),
            team_id: non_empty(&caller.team_id),
            room_id: non_empty(&caller.room_id),
            run_id: Some(caller.run_id.clone()),
            card_id,
            message_id: None,
        })
    }
}

/// Does what Clawboo's tools ask: the bridge's [`ToolHost`].
pub struct Dispatcher {
    services: Arc<Services>,
}

impl Dispatcher {
    pub fn new(services: Services) -> Self {
        Self { services: Arc::new(services) }
    }
}

impl ToolHost for Dispatcher {
    fn call<'a>(&'a self, caller: &'a Caller, call: ToolCall) -> ToolFuture<'a> {
        Box::pin(async move {
            let (services, caller) = (self.services.clone(), caller.clone());
            // Store writes and starting a teammate's run block: off the async workers.
            match tokio::task::spawn_blocking(move || services.run(&caller, call)).await {
                Ok(Ok(text)) => ToolOutput::ok(text),
                Ok(Err(e)) => ToolOutput::error(e.to_string()),
                Err(_) => ToolOutput::error("The tool failed inside Clawboo."),
            }
        })
    }
}
