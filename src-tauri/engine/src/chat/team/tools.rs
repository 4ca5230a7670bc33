//! Team chat as Clawboo's tools see it (see `crate::tools`): `handoff` gives a teammate a task,
//! `peer_post` and `peer_read` use the team's peer room ([`TeamChat`]). Which tools a run is
//! offered and its grant are the run layer's (`run::prepare::offer`).

use std::sync::{Arc, Weak};

use super::store as team_store;
use crate::chat::Chat;
use crate::context::ToolName;
use crate::error::{Error, Result};
use crate::events::EngineEvent;
use crate::tools::{Caller, Handoffs, PeerNote, PeerRooms};
use crate::vocab::clock::now_ms;

/// The chat service for the tools' dispatcher: hand-offs and peer rooms. Weak: the tools bridge
/// must not keep the chat alive.
pub struct TeamChat(pub Weak<Chat>);

impl TeamChat {
    fn chat(&self) -> Result<Arc<Chat>> {
        self.0.upgrade().ok_or_else(|| Error::InvalidInput("Clawboo is shutting down.".into()))
    }
}

impl Handoffs for TeamChat {
    fn hand_off(&self, run_id: &str, to: &str, task: &str) -> Result<String> {
        self.chat()?.hand_off(run_id, to, task)
    }
}

impl PeerRooms for TeamChat {
    fn post(&self, caller: &Caller, text: &str) -> Result<()> {
        let chat = self.chat()?;
        let post = chat.store.write(|tx| {
            team_store::add_peer_post(
                tx,
                &caller.team_id,
                &caller.agent_id,
                &caller.agent_handle,
                &caller.run_id,
                text,
                now_ms(),
            )
        })?;
        chat.events.publish(EngineEvent::PeerPostAdded { post });
        Ok(())
    }

    fn latest(&self, team_id: &str, limit: u32) -> Result<Vec<PeerNote>> {
        let (posts, _) = self.chat()?.store.read(|c| team_store::peer_page(c, team_id, None, limit))?;
        Ok(posts.into_iter().map(|p| PeerNote { author_handle: p.author_handle, text: p.text }).collect())
    }
}

impl Chat {
    /// `@user` in a team run's reply asks the user: a durable request linked to the reply
    /// `message`, which stays in the chat as it is.
    pub(super) fn ask_user_in_reply(
        &self,
        agent_id: &str,
        team_id: &str,
        room_id: &str,
        run_id: &str,
        reply: &str,
        message: Option<&super::types::RoomMessage>,
    ) {
        let Some(attention) = &self.attention else { return };
        let Some(question) = super::mentions::user_question(reply, crate::attention::MAX_QUESTION_CHARS) else {
            return;
        };
        // It asks as `ask_user` does, under the same bound (the run's calls count).
        if let Some(Err(message)) = self.tools.as_ref().map(|tools| tools.admit(run_id, ToolName::AskUser)) {
            tracing::warn!(%run_id, reason = %message, "@user in a team run raised no request");
            return;
        }
        let source = crate::attention::Source {
            agent_id: agent_id.to_owned(),
            team_id: Some(team_id.to_owned()),
            room_id: Some(room_id.to_owned()),
            run_id: Some(run_id.to_owned()),
            card_id: None,
            message_id: message.map(|m| m.id.clone()),
        };
        if let Err(e) = attention.raise_question(&source, &question) {
            tracing::warn!(%run_id, error = %e, "@user in a team run raised no request");
        }
    }
}
