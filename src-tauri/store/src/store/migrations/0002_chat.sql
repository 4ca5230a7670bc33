-- What an agent may do without asking, and which provider a Native agent calls.
ALTER TABLE agents ADD COLUMN approval_policy TEXT NOT NULL DEFAULT 'ask'
    CHECK (approval_policy IN ('ask', 'allow_all', 'read_only'));
ALTER TABLE agents ADD COLUMN provider TEXT
    CHECK (provider IS NULL OR provider IN ('anthropic', 'openai', 'openrouter', 'custom'));

-- One-to-one chats (one per agent for now). `session_id` is the runtime's session the next
-- turn resumes; `/reset` clears it and bumps `epoch`, which bounds the carried transcript.
CREATE TABLE conversations (
    id          TEXT PRIMARY KEY,
    agent_id    TEXT NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
    kind        TEXT NOT NULL DEFAULT 'direct' CHECK (kind IN ('direct')),
    session_id  TEXT,
    session_runtime TEXT,
    epoch       INTEGER NOT NULL DEFAULT 0,
    created_at  INTEGER NOT NULL,
    UNIQUE (agent_id, kind)
);

CREATE TABLE runs (
    id              TEXT PRIMARY KEY,
    conversation_id TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    agent_id        TEXT NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
    runtime         TEXT NOT NULL,
    status          TEXT NOT NULL
                    CHECK (status IN ('running', 'succeeded', 'failed', 'cancelled', 'timed_out', 'interrupted')),
    error           TEXT,
    started_at      INTEGER NOT NULL,
    finished_at     INTEGER
);
CREATE INDEX runs_by_conversation ON runs (conversation_id, started_at);

CREATE TABLE messages (
    id              TEXT PRIMARY KEY,
    conversation_id TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    seq             INTEGER NOT NULL,
    role            TEXT NOT NULL CHECK (role IN ('user', 'assistant', 'notice')),
    content         TEXT NOT NULL,
    run_id          TEXT REFERENCES runs (id) ON DELETE SET NULL,
    epoch           INTEGER NOT NULL,
    created_at      INTEGER NOT NULL,
    UNIQUE (conversation_id, seq)
);

-- Every normalised event of every run, in order: what the Activity card replays.
CREATE TABLE run_events (
    run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    seq    INTEGER NOT NULL,
    at     INTEGER NOT NULL,
    event  TEXT NOT NULL,
    PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;
