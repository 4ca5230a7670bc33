//! `clawboo-teams`: teams, their members, leaders and rooms. It may use `clawboo-vocab`,
//! `clawboo-store`, `clawboo-agents` and `clawboo-board` (a team's project folder is checked as a
//! card's is); the engine re-exports it as `clawboo_engine::teams`.
//!
//! Teams: agents working together under a leader, with the user's rules, brief and
//! introduction ("About you"), a General room of the whole team and named rooms of a few.
//! Every change is one transaction, checked against the state inside it, and publishes
//! [`EngineEvent::TeamsChanged`].

mod store;
mod types;
mod validate;

use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use rusqlite::{params, Transaction};

pub use types::{
    NewRoom, NewTeam, Room, RoomPatch, Team, TeamMember, TeamRule, GENERAL_ROOM_NAME, MAX_ABOUT_YOU_CHARS,
    MAX_BRIEF_CHARS, MAX_ROLE_CHARS, MAX_RULES_CHARS, MAX_TEAM_NAME_CHARS,
};

use clawboo_agents::Agents;
use clawboo_store::events::{EngineEvent, EventBus};
use clawboo_store::store::Store;
use clawboo_vocab::error::{Error, Result};

/// Told of every change to a team once it is committed, with the team before and after it:
/// team chat turns a member who joined or left, a rule added or removed, a room made or renamed
/// into notices for the members. Given at wiring time (team chat sits above this crate).
pub trait TeamWatcher: Send + Sync {
    fn team_changed(&self, before: &Team, after: &Team);
}

pub struct Teams {
    store: Arc<Store>,
    /// Agents' rows are read in the same transactions (foreign keys keep them consistent);
    /// kept for callers that need an agent along with its team.
    agents: Arc<Agents>,
    events: EventBus,
    watcher: std::sync::OnceLock<Arc<dyn TeamWatcher>>,
}

impl Teams {
    pub fn new(store: Arc<Store>, agents: Arc<Agents>, events: EventBus) -> Self {
        Self { store, agents, events, watcher: std::sync::OnceLock::new() }
    }

    /// Tells `watcher` of every change from now on (the first one given is kept).
    pub fn watch(&self, watcher: Arc<dyn TeamWatcher>) {
        let _ = self.watcher.set(watcher);
    }

    pub fn agents(&self) -> &Agents {
        &self.agents
    }

    /// Every team, archived ones included (the UI filters), by name.
    pub fn list(&self) -> Result<Vec<Team>> {
        self.store.read(|conn| store::load(conn, store::Scope::All))
    }

    pub fn get(&self, id: &str) -> Result<Team> {
        self.store.read(|conn| store::load_one(conn, id))
    }

    /// A room with its team. The team's `rooms` holds that room alone: its other rooms are not
    /// read (this is on every message's path; [`Teams::get`] has them all).
    pub fn room(&self, room_id: &str) -> Result<(Team, Room)> {
        self.store.read(|conn| store::load_room(conn, room_id))
    }

    /// The teams an agent is a member of, by name.
    pub fn teams_of(&self, agent_id: &str) -> Result<Vec<Team>> {
        Ok(self.list()?.into_iter().filter(|t| t.is_member(agent_id)).collect())
    }

    /// A team with its General room. Default leader: the first member.
    pub fn create(&self, input: NewTeam) -> Result<Team> {
        let name = validate::name(&input.name, "team")?;
        let id = uuid::Uuid::new_v4().to_string();
        let now = now_ms();
        self.store.write(|tx| {
            let members = validate::members(tx, &input.member_ids, "team")?;
            let leader = validate::leader(tx, input.leader_id.as_deref(), &members, "team")?;
            tx.execute(
                "INSERT INTO teams (id, name, leader_id, created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?4)",
                params![id, name, leader, now],
            )?;
            store::replace_members(tx, &id, &[], &members)?;
            tx.execute(
                "INSERT INTO rooms (id, team_id, name, is_general, position, created_at) VALUES (?1, ?2, ?3, 1, 0, ?4)",
                params![uuid::Uuid::new_v4().to_string(), id, GENERAL_ROOM_NAME, now],
            )?;
            Ok(())
        })?;
        self.events.publish(EngineEvent::TeamsChanged);
        self.get(&id)
    }

    pub fn rename(&self, id: &str, name: &str) -> Result<Team> {
        let name = validate::name(name, "team")?;
        self.change(id, |tx, team| {
            tx.execute("UPDATE teams SET name = ?2 WHERE id = ?1", params![team.id, name])?;
            Ok(())
        })
    }

    pub fn set_archived(&self, id: &str, archived: bool) -> Result<Team> {
        self.change(id, |tx, team| {
            tx.execute(
                "UPDATE teams SET archived_at = CASE WHEN ?2 THEN COALESCE(archived_at, ?3) END WHERE id = ?1",
                params![team.id, archived, now_ms()],
            )?;
            Ok(())
        })
    }

    /// The team, its rules, rooms and memberships. The agents stay.
    pub fn delete(&self, id: &str) -> Result<()> {
        self.store.write(|tx| {
            if tx.execute("DELETE FROM teams WHERE id = ?1", [id])? == 0 {
                return Err(Error::NotFound(format!("Team {id}")));
            }
            Ok(())
        })?;
        self.events.publish(EngineEvent::TeamsChanged);
        Ok(())
    }

    /// Replaces the members (in order; roles of those who stay are kept). Rooms lose the agents
    /// who left; a leader who left is replaced by the first member.
    pub fn set_members(&self, id: &str, member_ids: Vec<String>) -> Result<Team> {
        self.change(id, |tx, team| {
            let members = validate::members(tx, &member_ids, "team")?;
            store::replace_members(tx, &team.id, &team.members, &members)?;
            store::prune_after_members_changed(tx, &team.id)
        })
    }

    pub fn set_leader(&self, id: &str, agent_id: &str) -> Result<Team> {
        self.change(id, |tx, team| {
            let leader = validate::leader(tx, Some(agent_id), &team.member_ids(), "team")?;
            tx.execute("UPDATE teams SET leader_id = ?2 WHERE id = ?1", params![team.id, leader])?;
            Ok(())
        })
    }

    pub fn set_member_role(&self, id: &str, agent_id: &str, role: &str) -> Result<Team> {
        let role = validate::bounded_text(role, MAX_ROLE_CHARS, "A role")?;
        self.change(id, |tx, team| {
            if !team.is_member(agent_id) {
                return Err(Error::InvalidInput(format!(
                    "{} is not a member of this team.",
                    store::mention(tx, agent_id)?
                )));
            }
            tx.execute(
                "UPDATE team_members SET role = ?3 WHERE team_id = ?1 AND agent_id = ?2",
                params![team.id, agent_id, role],
            )?;
            Ok(())
        })
    }

    /// Adds a rule at the end. Refused when all rules together would pass [`MAX_RULES_CHARS`].
    pub fn add_rule(&self, id: &str, text: &str) -> Result<TeamRule> {
        let mut added = None;
        self.change(id, |tx, team| {
            let text = validate::rule(text, team)?;
            let rule = TeamRule { id: uuid::Uuid::new_v4().to_string(), text, created_at: now_ms() };
            tx.execute(
                "INSERT INTO team_rules (id, team_id, text, position, created_at) VALUES (?1, ?2, ?3, ?4, ?5)",
                params![
                    rule.id,
                    team.id,
                    rule.text,
                    store::next_position(tx, "team_rules", &team.id)?,
                    rule.created_at
                ],
            )?;
            added = Some(rule);
            Ok(())
        })?;
        added.ok_or_else(|| Error::Internal("the rule was not added".into()))
    }

    pub fn remove_rule(&self, id: &str, rule_id: &str) -> Result<Team> {
        self.change(id, |tx, team| {
            if tx.execute("DELETE FROM team_rules WHERE id = ?1 AND team_id = ?2", params![rule_id, team.id])? == 0 {
                return Err(Error::NotFound(format!("Rule {rule_id}")));
            }
            Ok(())
        })
    }

    pub fn set_brief(&self, id: &str, text: &str) -> Result<Team> {
        let brief = validate::bounded_text(text, MAX_BRIEF_CHARS, "The team brief")?;
        self.change(id, |tx, team| {
            tx.execute("UPDATE teams SET brief = ?2 WHERE id = ?1", params![team.id, brief])?;
            Ok(())
        })
    }

    /// Where runs of the team's cards work when a card names no folder of its own: a full path;
    /// blank clears it. Whether it exists is checked when a card runs.
    pub fn set_project_folder(&self, id: &str, folder: Option<&str>) -> Result<Team> {
        let folder = clawboo_board::checks::project_folder(folder)?;
        self.change(id, |tx, team| {
            tx.execute("UPDATE teams SET project_folder = ?2 WHERE id = ?1", params![team.id, folder])?;
            Ok(())
        })
    }

    /// The user's introduction to this team. Empty clears it (the UI then asks again).
    pub fn set_about_you(&self, id: &str, text: &str) -> Result<Team> {
        let about_you = validate::bounded_text(text, MAX_ABOUT_YOU_CHARS, "About you")?;
        self.change(id, |tx, team| {
            tx.execute("UPDATE teams SET about_you = ?2 WHERE id = ?1", params![team.id, about_you])?;
            Ok(())
        })
    }

    /// A named room of some of the team's members. Default leader: its first member.
    pub fn create_room(&self, id: &str, input: NewRoom) -> Result<Room> {
        let room_id = uuid::Uuid::new_v4().to_string();
        self.change(id, |tx, team| {
            let name = validate::room_name(&input.name, team, None)?;
            let members = room_members(tx, team, &input.member_ids)?;
            let leader = validate::leader(tx, input.leader_id.as_deref(), &members, "room")?;
            tx.execute(
                "INSERT INTO rooms (id, team_id, name, is_general, leader_id, position, created_at)
                 VALUES (?1, ?2, ?3, 0, ?4, ?5, ?6)",
                params![room_id, team.id, name, leader, store::next_position(tx, "rooms", &team.id)?, now_ms()],
            )?;
            store::replace_room_members(tx, &room_id, &members)
        })?;
        Ok(self.room(&room_id)?.1)
    }

    /// Renames a named room, or changes its members or leader. The General room always has
    /// the whole team and its leader, and keeps its name.
    pub fn update_room(&self, room_id: &str, patch: RoomPatch) -> Result<Room> {
        let team_id = self.store.read(|conn| store::team_of_room(conn, room_id))?;
        self.change(&team_id, |tx, team| {
            let room = find_room(team, room_id)?;
            let changes_something = patch.name.is_some() || patch.member_ids.is_some() || patch.leader_id.is_some();
            if room.is_general && changes_something {
                return Err(general_is_fixed(&patch));
            }
            if room.is_general {
                return Ok(());
            }
            if let Some(name) = &patch.name {
                let name = validate::room_name(name, team, Some(room_id))?;
                tx.execute("UPDATE rooms SET name = ?2 WHERE id = ?1", params![room_id, name])?;
            }
            let members = match &patch.member_ids {
                Some(ids) => {
                    let members = room_members(tx, team, ids)?;
                    store::replace_room_members(tx, room_id, &members)?;
                    members
                }
                None => room.member_ids.clone(),
            };
            match &patch.leader_id {
                Some(leader) => {
                    let leader = validate::leader(tx, Some(leader), &members, "room")?;
                    tx.execute("UPDATE rooms SET leader_id = ?2 WHERE id = ?1", params![room_id, leader])?;
                }
                // A leader who left the room is forgotten: the first member leads.
                None => {
                    tx.execute(
                        "UPDATE rooms SET leader_id = NULL WHERE id = ?1
                         AND leader_id NOT IN (SELECT agent_id FROM room_members WHERE room_id = ?1)",
                        [room_id],
                    )?;
                }
            }
            Ok(())
        })?;
        Ok(self.room(room_id)?.1)
    }

    /// Deletes a named room; the General room stays as long as its team.
    pub fn delete_room(&self, room_id: &str) -> Result<()> {
        let team_id = self.store.read(|conn| store::team_of_room(conn, room_id))?;
        self.change(&team_id, |tx, team| {
            if find_room(team, room_id)?.is_general {
                return Err(Error::InvalidInput(format!(
                    "The {GENERAL_ROOM_NAME} room cannot be deleted: it is where the whole team meets."
                )));
            }
            tx.execute("DELETE FROM rooms WHERE id = ?1", [room_id])?;
            Ok(())
        })?;
        Ok(())
    }

    /// Applies `edit` to the team as stored inside the transaction, bumps `updated_at`,
    /// publishes the change and returns the team as it is now.
    fn change(&self, id: &str, edit: impl FnOnce(&Transaction, &Team) -> Result<()>) -> Result<Team> {
        let (before, team) = self.store.write(|tx| {
            let team = store::load_one(tx, id)?;
            edit(tx, &team)?;
            store::touch(tx, id, now_ms())?;
            Ok((team, store::load_one(tx, id)?))
        })?;
        self.events.publish(EngineEvent::TeamsChanged);
        if let Some(watcher) = self.watcher.get() {
            watcher.team_changed(&before, &team);
        }
        Ok(team)
    }
}

fn find_room(team: &Team, room_id: &str) -> Result<Room> {
    team.rooms.iter().find(|r| r.id == room_id).cloned().ok_or_else(|| Error::NotFound(format!("Room {room_id}")))
}

/// A room's members: existing agents, each once, at least one, all members of the team.
fn room_members(tx: &Transaction, team: &Team, ids: &[String]) -> Result<Vec<String>> {
    let members = validate::members(tx, ids, "room")?;
    if let Some(outsider) = members.iter().find(|id| !team.is_member(id)) {
        return Err(Error::InvalidInput(format!(
            "{} is not a member of this team; add them to the team first.",
            store::mention(tx, outsider)?
        )));
    }
    Ok(members)
}

fn general_is_fixed(patch: &RoomPatch) -> Error {
    Error::InvalidInput(if patch.name.is_some() {
        format!("The {GENERAL_ROOM_NAME} room cannot be renamed.")
    } else {
        format!(
            "The {GENERAL_ROOM_NAME} room always has the whole team and its leader: change the team's members or \
             leader instead."
        )
    })
}

fn now_ms() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as i64)
}

#[cfg(test)]
mod tests;
