-- Team chat. A room's own transcript (what the user reads) is `room_messages`; each agent keeps a
-- private conversation per room (its runtime session, its carried transcript, its epoch), so
-- `conversations` gains kind 'room' and a room. SQLite cannot alter a CHECK, so the table is
-- rebuilt (this migration runs with foreign keys off and is checked before it commits).
CREATE TABLE conversations_new (
    id              TEXT PRIMARY KEY,
    agent_id        TEXT NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
    kind            TEXT NOT NULL DEFAULT 'direct' CHECK (kind IN ('direct', 'room')),
    room_id         TEXT REFERENCES rooms (id) ON DELETE CASCADE,
    session_id      TEXT,
    session_runtime TEXT,
    epoch           INTEGER NOT NULL DEFAULT 0,
    created_at      INTEGER NOT NULL,
    session_setup   TEXT,
    CHECK ((kind = 'direct') = (room_id IS NULL))
);
INSERT INTO conversations_new (id, agent_id, kind, room_id, session_id, session_runtime, epoch, created_at, session_setup)
    SELECT id, agent_id, kind, NULL, session_id, session_runtime, epoch, created_at, session_setup FROM conversations;
DROP TABLE conversations;
ALTER TABLE conversations_new RENAME TO conversations;
CREATE UNIQUE INDEX conversations_direct ON conversations (agent_id) WHERE kind = 'direct';
CREATE UNIQUE INDEX conversations_room ON conversations (room_id, agent_id) WHERE kind = 'room';

-- What the user reads in a room, in order. `kind`: the user's message, an agent's reply, a
-- hand-off card (content: the exact task text the teammate received), a batch card (content:
-- the exact message of results the agent received), or a notice from Clawboo.
CREATE TABLE room_messages (
    id         TEXT PRIMARY KEY,
    room_id    TEXT NOT NULL REFERENCES rooms (id) ON DELETE CASCADE,
    seq        INTEGER NOT NULL,
    kind       TEXT NOT NULL CHECK (kind IN ('user', 'reply', 'handoff', 'batch', 'notice')),
    author_id  TEXT REFERENCES agents (id) ON DELETE SET NULL,
    target_id  TEXT REFERENCES agents (id) ON DELETE SET NULL,
    content    TEXT NOT NULL,
    run_id     TEXT,
    handoff_id TEXT,
    created_at INTEGER NOT NULL,
    UNIQUE (room_id, seq)
);
CREATE INDEX room_messages_by_run ON room_messages (run_id) WHERE run_id IS NOT NULL;

-- Work handed to a teammate. `depth`: agent-to-agent hops since the user's message (bounded).
-- `result` is the teammate's final reply (or why it has none); `delivered_run_id` the run of the
-- agent that handed it out that received it, in a batch.
CREATE TABLE handoffs (
    id               TEXT PRIMARY KEY,
    room_id          TEXT NOT NULL REFERENCES rooms (id) ON DELETE CASCADE,
    from_agent_id    TEXT NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
    from_run_id      TEXT NOT NULL,
    to_agent_id      TEXT NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
    task             TEXT NOT NULL,
    depth            INTEGER NOT NULL,
    status           TEXT NOT NULL
                     CHECK (status IN ('queued', 'running', 'done', 'failed', 'stopped', 'interrupted')),
    run_id           TEXT,
    result           TEXT,
    delivered_run_id TEXT,
    created_at       INTEGER NOT NULL,
    finished_at      INTEGER
);
CREATE INDEX handoffs_waiting ON handoffs (room_id, from_agent_id) WHERE delivered_run_id IS NULL;

-- Items waiting for an agent in a room: alerts and notices (results travel as hand-offs).
CREATE TABLE inbox_items (
    id               TEXT PRIMARY KEY,
    room_id          TEXT NOT NULL REFERENCES rooms (id) ON DELETE CASCADE,
    agent_id         TEXT NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
    kind             TEXT NOT NULL CHECK (kind IN ('alert', 'notice')),
    from_agent_id    TEXT,
    text             TEXT NOT NULL,
    delivered_run_id TEXT,
    created_at       INTEGER NOT NULL
);
CREATE INDEX inbox_waiting ON inbox_items (agent_id, room_id) WHERE delivered_run_id IS NULL;

-- The team's peer room: posts by agents (the author is the one bound to the poster's token).
CREATE TABLE peer_posts (
    id         TEXT PRIMARY KEY,
    team_id    TEXT NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
    seq        INTEGER NOT NULL,
    author_id  TEXT REFERENCES agents (id) ON DELETE SET NULL,
    author_handle TEXT NOT NULL,
    run_id     TEXT,
    text       TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    UNIQUE (team_id, seq)
);
-- Up to which post each agent has seen the peer room (set when a run is given them).
CREATE TABLE peer_cursors (
    team_id  TEXT NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
    agent_id TEXT NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
    seq      INTEGER NOT NULL,
    PRIMARY KEY (team_id, agent_id)
) WITHOUT ROWID;

-- Exactly what each team run was given: the system/developer slot and the assembled sections
-- (JSON), and what waited for the next turn. No foreign key: kept with its run (trigger).
CREATE TABLE run_contexts (
    run_id      TEXT PRIMARY KEY,
    room_id     TEXT NOT NULL,
    turn_kind   TEXT NOT NULL,
    system_text TEXT,
    sections    TEXT NOT NULL,
    placement   TEXT NOT NULL,
    deferred    TEXT NOT NULL,
    created_at  INTEGER NOT NULL
);
CREATE TRIGGER run_contexts_follow_runs AFTER DELETE ON runs BEGIN
    DELETE FROM run_contexts WHERE run_id = old.id;
END;
