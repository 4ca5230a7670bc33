-- Teams of agents. An agent may be in several teams; deleting an agent removes it from every
-- team and room (the effective leader then falls back to the first member).
CREATE TABLE teams (
    id          TEXT PRIMARY KEY,
    name        TEXT NOT NULL,
    brief       TEXT NOT NULL DEFAULT '',
    about_you   TEXT NOT NULL DEFAULT '',
    leader_id   TEXT REFERENCES agents (id) ON DELETE SET NULL,
    archived_at INTEGER,
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL
);

CREATE TABLE team_members (
    team_id  TEXT NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
    agent_id TEXT NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
    role     TEXT NOT NULL DEFAULT '',
    position INTEGER NOT NULL,
    PRIMARY KEY (team_id, agent_id)
) WITHOUT ROWID;
CREATE INDEX team_members_by_agent ON team_members (agent_id);

-- Set by the user, in order; all of a team's rules together are bounded (MAX_RULES_CHARS).
CREATE TABLE team_rules (
    id         TEXT PRIMARY KEY,
    team_id    TEXT NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
    text       TEXT NOT NULL,
    position   INTEGER NOT NULL,
    created_at INTEGER NOT NULL
);
CREATE INDEX team_rules_by_team ON team_rules (team_id, position);

-- Exactly one General room per team (created with it); its members and leader are the team's,
-- derived, never stored. Named rooms keep their own members and leader.
CREATE TABLE rooms (
    id         TEXT PRIMARY KEY,
    team_id    TEXT NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
    name       TEXT NOT NULL,
    is_general INTEGER NOT NULL DEFAULT 0 CHECK (is_general IN (0, 1)),
    leader_id  TEXT REFERENCES agents (id) ON DELETE SET NULL,
    position   INTEGER NOT NULL,
    created_at INTEGER NOT NULL
);
CREATE UNIQUE INDEX rooms_one_general ON rooms (team_id) WHERE is_general = 1;
CREATE UNIQUE INDEX rooms_unique_name ON rooms (team_id, name COLLATE NOCASE);

CREATE TABLE room_members (
    room_id  TEXT NOT NULL REFERENCES rooms (id) ON DELETE CASCADE,
    agent_id TEXT NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    PRIMARY KEY (room_id, agent_id)
) WITHOUT ROWID;
CREATE INDEX room_members_by_agent ON room_members (agent_id);
