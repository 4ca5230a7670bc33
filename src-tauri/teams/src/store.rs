//! Reading teams out of SQLite: a few queries per call, assembled in memory (no query per
//! team or room), with effective leaders worked out here so every caller sees the same ones.

use std::collections::HashMap;

use rusqlite::{params, Connection, OptionalExtension};

use super::types::{Room, Team, TeamMember, TeamRule};
use clawboo_vocab::error::{Error, Result};

struct TeamRow {
    id: String,
    name: String,
    brief: String,
    about_you: String,
    project_folder: Option<String>,
    leader_id: Option<String>,
    archived: bool,
    created_at: i64,
    updated_at: i64,
}

struct RoomRow {
    id: String,
    team_id: String,
    name: String,
    is_general: bool,
    leader_id: Option<String>,
}

/// Which teams' rows [`load`] reads.
#[derive(Clone, Copy)]
pub(super) enum Scope<'a> {
    All,
    Team(&'a str),
    /// One team with one of its rooms only: what a message to that room needs, read without
    /// the team's other rooms (a team gathers rooms over months; a send should not read them).
    Room {
        team: &'a str,
        room: &'a str,
    },
}

/// The teams of `scope`, by name (empty when the team does not exist).
pub(super) fn load(conn: &Connection, scope: Scope) -> Result<Vec<Team>> {
    let only = match scope {
        Scope::All => None,
        Scope::Team(team) | Scope::Room { team, .. } => Some(team),
    };
    let one_room = match scope {
        Scope::Room { room, .. } => Some(room),
        Scope::All | Scope::Team(_) => None,
    };
    // One team's rows by its index; `?1 IS NULL OR team_id = ?1` would read every team's.
    let only_team = |column: &str| if only.is_some() { format!("{column} = ?1") } else { "?1 IS NULL".to_owned() };
    let teams: Vec<TeamRow> = {
        let mut stmt = conn.prepare_cached(&format!(
            "SELECT id, name, brief, about_you, leader_id, archived_at IS NOT NULL, created_at, updated_at,
                        project_folder
                 FROM teams WHERE {} ORDER BY name COLLATE NOCASE, id",
            only_team("id")
        ))?;
        let rows = stmt.query_map([only], |r| {
            Ok(TeamRow {
                id: r.get(0)?,
                name: r.get(1)?,
                brief: r.get(2)?,
                about_you: r.get(3)?,
                leader_id: r.get(4)?,
                archived: r.get(5)?,
                created_at: r.get(6)?,
                updated_at: r.get(7)?,
                project_folder: r.get(8)?,
            })
        })?;
        rows.collect::<rusqlite::Result<_>>()?
    };
    if teams.is_empty() {
        return Ok(Vec::new());
    }

    let mut members: HashMap<String, Vec<TeamMember>> = HashMap::new();
    {
        let mut stmt = conn.prepare_cached(&format!(
            "SELECT team_id, agent_id, role FROM team_members WHERE {} ORDER BY team_id, position",
            only_team("team_id")
        ))?;
        let mut rows = stmt.query([only])?;
        while let Some(r) = rows.next()? {
            members.entry(r.get(0)?).or_default().push(TeamMember { agent_id: r.get(1)?, role: r.get(2)? });
        }
    }

    let mut rules: HashMap<String, Vec<TeamRule>> = HashMap::new();
    {
        let mut stmt = conn.prepare_cached(&format!(
            "SELECT team_id, id, text, created_at FROM team_rules WHERE {} ORDER BY team_id, position",
            only_team("team_id")
        ))?;
        let mut rows = stmt.query([only])?;
        while let Some(r) = rows.next()? {
            rules.entry(r.get(0)?).or_default().push(TeamRule {
                id: r.get(1)?,
                text: r.get(2)?,
                created_at: r.get(3)?,
            });
        }
    }

    let mut room_members: HashMap<String, Vec<String>> = HashMap::new();
    {
        let (filter, key) = match one_room {
            Some(room) => ("m.room_id = ?1".to_owned(), Some(room)),
            None => (only_team("r.team_id"), only),
        };
        let mut stmt = conn.prepare_cached(&format!(
            "SELECT m.room_id, m.agent_id FROM room_members m JOIN rooms r ON r.id = m.room_id
                 WHERE {filter} ORDER BY m.room_id, m.position"
        ))?;
        let mut rows = stmt.query([key])?;
        while let Some(r) = rows.next()? {
            room_members.entry(r.get(0)?).or_default().push(r.get(1)?);
        }
    }

    let mut rooms: HashMap<String, Vec<RoomRow>> = HashMap::new();
    {
        let (filter, key) = match one_room {
            Some(room) => ("id = ?1".to_owned(), Some(room)),
            None => (only_team("team_id"), only),
        };
        let mut stmt = conn.prepare_cached(&format!(
            "SELECT id, team_id, name, is_general, leader_id FROM rooms WHERE {filter}
                 ORDER BY team_id, is_general DESC, position, created_at"
        ))?;
        let rows = stmt.query_map([key], |r| {
            Ok(RoomRow {
                id: r.get(0)?,
                team_id: r.get(1)?,
                name: r.get(2)?,
                is_general: r.get(3)?,
                leader_id: r.get(4)?,
            })
        })?;
        for row in rows {
            let row = row?;
            rooms.entry(row.team_id.clone()).or_default().push(row);
        }
    }

    teams
        .into_iter()
        .map(|t| {
            let members = members.remove(&t.id).unwrap_or_default();
            let member_ids: Vec<String> = members.iter().map(|m| m.agent_id.clone()).collect();
            let leader_id = effective_leader(t.leader_id.as_deref(), &member_ids);
            let rooms = rooms
                .remove(&t.id)
                .unwrap_or_default()
                .into_iter()
                .map(|r| {
                    if r.is_general {
                        Room {
                            id: r.id,
                            team_id: r.team_id,
                            name: r.name,
                            is_general: true,
                            leader_id: leader_id.clone(),
                            member_ids: member_ids.clone(),
                        }
                    } else {
                        let ids = room_members.remove(&r.id).unwrap_or_default();
                        Room {
                            leader_id: effective_leader(r.leader_id.as_deref(), &ids),
                            id: r.id,
                            team_id: r.team_id,
                            name: r.name,
                            is_general: false,
                            member_ids: ids,
                        }
                    }
                })
                .collect::<Vec<_>>();
            if one_room.is_none() && rooms.iter().filter(|r| r.is_general).count() != 1 {
                return Err(Error::Internal(format!("team {} has no General room in the store", t.id)));
            }
            let rules = rules.remove(&t.id).unwrap_or_default();
            Ok(Team {
                id: t.id,
                name: t.name,
                brief: t.brief,
                about_you: t.about_you,
                project_folder: t.project_folder,
                leader_id,
                archived: t.archived,
                rules,
                members,
                rooms,
                created_at: t.created_at,
                updated_at: t.updated_at,
            })
        })
        .collect()
}

pub(super) fn load_one(conn: &Connection, id: &str) -> Result<Team> {
    load(conn, Scope::Team(id))?.pop().ok_or_else(|| Error::NotFound(format!("Team {id}")))
}

/// A room and its team, whose `rooms` holds that room alone.
pub(super) fn load_room(conn: &Connection, room_id: &str) -> Result<(Team, Room)> {
    let team_id = team_of_room(conn, room_id)?;
    let team = load(conn, Scope::Room { team: &team_id, room: room_id })?
        .pop()
        .ok_or_else(|| Error::NotFound(format!("Team {team_id}")))?;
    let room = team.rooms.first().cloned().ok_or_else(|| Error::NotFound(format!("Room {room_id}")))?;
    Ok((team, room))
}

/// The team a room belongs to.
pub(super) fn team_of_room(conn: &Connection, room_id: &str) -> Result<String> {
    conn.prepare_cached("SELECT team_id FROM rooms WHERE id = ?1")?
        .query_row([room_id], |r| r.get(0))
        .optional()?
        .ok_or_else(|| Error::NotFound(format!("Room {room_id}")))
}

/// The stored leader while still a member, else the first member.
fn effective_leader(stored: Option<&str>, member_ids: &[String]) -> Option<String> {
    stored.filter(|id| member_ids.iter().any(|m| m == id)).map(str::to_owned).or_else(|| member_ids.first().cloned())
}

/// How the user knows an agent: `@handle` (the id if it has none, e.g. it does not exist).
pub(super) fn mention(conn: &Connection, agent_id: &str) -> Result<String> {
    let handle: Option<String> = conn
        .prepare_cached("SELECT handle FROM agents WHERE id = ?1")?
        .query_row([agent_id], |r| r.get(0))
        .optional()?;
    Ok(handle.map_or_else(|| format!("agent {agent_id}"), |h| format!("@{h}")))
}

pub(super) fn agent_exists(conn: &Connection, agent_id: &str) -> Result<bool> {
    Ok(conn
        .prepare_cached("SELECT 1 FROM agents WHERE id = ?1")?
        .query_row([agent_id], |_| Ok(()))
        .optional()?
        .is_some())
}

pub(super) fn touch(conn: &Connection, team_id: &str, now: i64) -> Result<()> {
    conn.prepare_cached("UPDATE teams SET updated_at = ?2 WHERE id = ?1")?.execute(params![team_id, now])?;
    Ok(())
}

/// Replaces a team's members (in order), keeping the roles of those who stay.
pub(super) fn replace_members(
    conn: &Connection,
    team_id: &str,
    previous: &[TeamMember],
    member_ids: &[String],
) -> Result<()> {
    let roles: HashMap<&str, &str> = previous.iter().map(|m| (m.agent_id.as_str(), m.role.as_str())).collect();
    conn.prepare_cached("DELETE FROM team_members WHERE team_id = ?1")?.execute([team_id])?;
    let mut insert =
        conn.prepare_cached("INSERT INTO team_members (team_id, agent_id, role, position) VALUES (?1, ?2, ?3, ?4)")?;
    for (position, id) in member_ids.iter().enumerate() {
        insert.execute(params![team_id, id, roles.get(id.as_str()).copied().unwrap_or(""), position as i64])?;
    }
    Ok(())
}

pub(super) fn replace_room_members(conn: &Connection, room_id: &str, member_ids: &[String]) -> Result<()> {
    conn.prepare_cached("DELETE FROM room_members WHERE room_id = ?1")?.execute([room_id])?;
    let mut insert =
        conn.prepare_cached("INSERT INTO room_members (room_id, agent_id, position) VALUES (?1, ?2, ?3)")?;
    for (position, id) in member_ids.iter().enumerate() {
        insert.execute(params![room_id, id, position as i64])?;
    }
    Ok(())
}

/// After the team's members changed: rooms lose agents that left the team, and a stored leader
/// who left is forgotten (so a returning agent does not silently lead again).
pub(super) fn prune_after_members_changed(conn: &Connection, team_id: &str) -> Result<()> {
    conn.prepare_cached(
        "DELETE FROM room_members WHERE room_id IN (SELECT id FROM rooms WHERE team_id = ?1)
         AND agent_id NOT IN (SELECT agent_id FROM team_members WHERE team_id = ?1)",
    )?
    .execute([team_id])?;
    conn.prepare_cached(
        "UPDATE teams SET leader_id = NULL WHERE id = ?1
         AND leader_id NOT IN (SELECT agent_id FROM team_members WHERE team_id = ?1)",
    )?
    .execute([team_id])?;
    conn.prepare_cached(
        "UPDATE rooms SET leader_id = NULL WHERE team_id = ?1
         AND leader_id NOT IN (SELECT agent_id FROM room_members WHERE room_id = rooms.id)",
    )?
    .execute([team_id])?;
    Ok(())
}

pub(super) fn next_position(conn: &Connection, table: &str, team_id: &str) -> Result<i64> {
    // `table` is one of our own table names, never input.
    Ok(conn
        .prepare_cached(&format!("SELECT COALESCE(MAX(position), -1) + 1 FROM {table} WHERE team_id = ?1"))?
        .query_row([team_id], |r| r.get(0))?)
}
