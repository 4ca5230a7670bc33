-- The task runner. Its runs are ordinary runs (events, relay requests, "what this agent saw"),
-- so each needs a conversation: kind 'task', one per card and agent, holding every run of that
-- card by that agent (each in a fresh runtime session; the conversation keeps no session).
-- SQLite cannot alter a CHECK, so `conversations` is rebuilt as in migration 7, every column and
-- index kept (this migration runs with foreign keys off and is checked before it commits).
CREATE TABLE conversations_new (
    id              TEXT PRIMARY KEY,
    agent_id        TEXT NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
    kind            TEXT NOT NULL DEFAULT 'direct' CHECK (kind IN ('direct', 'room', 'task')),
    room_id         TEXT REFERENCES rooms (id) ON DELETE CASCADE,
    session_id      TEXT,
    session_runtime TEXT,
    epoch           INTEGER NOT NULL DEFAULT 0,
    created_at      INTEGER NOT NULL,
    session_setup   TEXT,
    card_id         TEXT REFERENCES cards (id) ON DELETE CASCADE,
    CHECK ((kind = 'room') = (room_id IS NOT NULL)),
    CHECK ((kind = 'task') = (card_id IS NOT NULL))
);
INSERT INTO conversations_new (id, agent_id, kind, room_id, session_id, session_runtime, epoch, created_at, session_setup, card_id)
    SELECT id, agent_id, kind, room_id, session_id, session_runtime, epoch, created_at, session_setup, NULL FROM conversations;
DROP TABLE conversations;
ALTER TABLE conversations_new RENAME TO conversations;
CREATE UNIQUE INDEX conversations_direct ON conversations (agent_id) WHERE kind = 'direct';
CREATE UNIQUE INDEX conversations_room ON conversations (room_id, agent_id) WHERE kind = 'room';
CREATE UNIQUE INDEX conversations_task ON conversations (card_id, agent_id) WHERE kind = 'task';

-- Exactly what each task-runner run was given: the runtime's system slot, the text in front of
-- the title, the title, and every section of the three tiers in order with its tier (JSON), the
-- fact ids of its memory block, and why the run exists. No foreign key: kept with its run
-- (trigger), like `run_contexts`.
CREATE TABLE task_run_contexts (
    run_id      TEXT PRIMARY KEY,
    card_id     TEXT NOT NULL,
    attempt     INTEGER NOT NULL,
    kind        TEXT NOT NULL,
    placement   TEXT NOT NULL,
    system_text TEXT,
    preamble    TEXT,
    message     TEXT NOT NULL,
    sections    TEXT NOT NULL,
    cited       TEXT NOT NULL,
    created_at  INTEGER NOT NULL
);
CREATE INDEX task_run_contexts_by_card ON task_run_contexts (card_id, created_at);
CREATE TRIGGER task_run_contexts_follow_runs AFTER DELETE ON runs BEGIN
    DELETE FROM task_run_contexts WHERE run_id = old.id;
END;
