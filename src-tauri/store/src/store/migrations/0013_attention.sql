-- Attention: questions for the user and typed approvals, durable until answered; "Allow
-- always" grants; an audit of every request, answer and grant. Requests keep the agent's name
-- and handle as they were, so the audit still reads after the agent is gone.
CREATE TABLE attention_requests (
    id                 TEXT PRIMARY KEY,
    kind               TEXT NOT NULL,   -- question | permission | promotion
    status             TEXT NOT NULL,   -- open | answered | cleared | expired | withdrawn
    origin             TEXT NOT NULL,   -- chat | team | card
    agent_id           TEXT NOT NULL,
    agent_name         TEXT NOT NULL,
    agent_handle       TEXT NOT NULL,
    team_id            TEXT,
    room_id            TEXT,
    run_id             TEXT,
    card_id            TEXT,
    message_id         TEXT,
    text               TEXT NOT NULL,
    tool               TEXT,
    input              TEXT,
    runtime_request_id TEXT,
    promotion_id       TEXT,
    created_at         INTEGER NOT NULL,
    expires_at         INTEGER,
    decision           TEXT,            -- allow_once | allow_always | deny
    answer             TEXT,
    answered_at        INTEGER
);
CREATE INDEX attention_by_status ON attention_requests (status, created_at);
CREATE INDEX attention_by_run ON attention_requests (run_id);
CREATE INDEX attention_by_team ON attention_requests (team_id, status);

CREATE TABLE attention_grants (
    id          TEXT PRIMARY KEY,
    agent_id    TEXT NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
    tool        TEXT NOT NULL,
    request_id  TEXT,
    created_at  INTEGER NOT NULL,
    UNIQUE (agent_id, tool)
);

CREATE TABLE attention_audit (
    seq        INTEGER PRIMARY KEY AUTOINCREMENT,
    at         INTEGER NOT NULL,
    request_id TEXT,
    actor      TEXT NOT NULL,   -- you | @handle | clawboo
    action     TEXT NOT NULL,
    detail     TEXT NOT NULL
);
CREATE INDEX attention_audit_by_request ON attention_audit (request_id, seq);
