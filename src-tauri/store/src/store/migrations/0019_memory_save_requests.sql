-- A fact an agent asked to save to a wider scope than its own (global, or a team its run is not
-- in) waits for the user: it is held here under its attention request, checked, and saved
-- exactly as held, in the transaction that records the user's "Allow". `fact_id`: the fact it
-- became (or the same one, already there).
CREATE TABLE memory_save_requests (
    request_id TEXT PRIMARY KEY,
    text       TEXT NOT NULL,
    tags       TEXT NOT NULL DEFAULT '[]',
    scope_kind TEXT NOT NULL CHECK (scope_kind IN ('global', 'team', 'agent')),
    scope_id   TEXT NOT NULL DEFAULT '',
    author     TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    fact_id    TEXT
);
