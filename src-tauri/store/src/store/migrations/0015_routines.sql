-- Routines: work on a schedule. A routine belongs to an agent (each run a Board card for it) or
-- a team (each run a message to its leader); deleting the owner deletes its routines. The
-- schedule is JSON (`routines::schedule::Schedule`). `next_fire_at` is the next slot due;
-- `retry_at` a retry after a failed run (with back-off); a routine that keeps failing pauses
-- itself (`paused_reason` says why).
CREATE TABLE routines (
    id                   TEXT PRIMARY KEY,
    name                 TEXT NOT NULL,
    agent_id             TEXT REFERENCES agents (id) ON DELETE CASCADE,
    team_id              TEXT REFERENCES teams (id) ON DELETE CASCADE,
    prompt               TEXT NOT NULL,
    schedule             TEXT NOT NULL,
    heartbeat            INTEGER NOT NULL DEFAULT 0,
    state                TEXT NOT NULL CHECK (state IN ('active', 'paused')),
    paused_reason        TEXT,
    created_by           TEXT NOT NULL CHECK (created_by IN ('user', 'agent')),
    creator_agent_id     TEXT,
    approval_id          TEXT,
    next_fire_at         INTEGER,
    consecutive_failures INTEGER NOT NULL DEFAULT 0,
    retry_at             INTEGER,
    created_at           INTEGER NOT NULL,
    updated_at           INTEGER NOT NULL,
    CHECK ((agent_id IS NULL) <> (team_id IS NULL))
);
CREATE INDEX routines_by_state ON routines (state, next_fire_at);

-- Every run of a routine, and every slot it skipped. `trigger`: schedule | catch_up | retry |
-- manual; `missed`: the slots a catch-up run stands for. An agent routine's run is its card
-- (`card_id`, `run_id` the task's claim); a team routine's is the leader's run (`run_id`, set
-- when it starts; `start_error` when it could not).
CREATE TABLE routine_runs (
    id            TEXT PRIMARY KEY,
    routine_id    TEXT NOT NULL REFERENCES routines (id) ON DELETE CASCADE,
    scheduled_for INTEGER NOT NULL,
    started_at    INTEGER NOT NULL,
    ended_at      INTEGER,
    outcome       TEXT NOT NULL
                  CHECK (outcome IN ('running', 'succeeded', 'failed', 'needs_you', 'stopped', 'skipped_overlap')),
    trigger       TEXT NOT NULL CHECK (trigger IN ('schedule', 'catch_up', 'retry', 'manual')),
    missed        INTEGER NOT NULL DEFAULT 0,
    card_id       TEXT,
    team_id       TEXT,
    room_id       TEXT,
    run_id        TEXT,
    start_error   TEXT,
    note          TEXT
);
CREATE INDEX routine_runs_by_routine ON routine_runs (routine_id, started_at);
CREATE INDEX routine_runs_running ON routine_runs (outcome) WHERE outcome = 'running';

-- What an attention request is about, for the routines: an agent's proposal (`routine_create`,
-- the routine it asks for as JSON) or a routine that paused itself.
CREATE TABLE routine_requests (
    request_id TEXT PRIMARY KEY,
    kind       TEXT NOT NULL CHECK (kind IN ('proposal', 'paused')),
    routine_id TEXT,
    proposal   TEXT,
    created_at INTEGER NOT NULL
);
