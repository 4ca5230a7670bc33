-- Agents: profile rows. Each agent's files live in its workspace folder, not here.
CREATE TABLE agents (
    id          TEXT PRIMARY KEY,
    name        TEXT NOT NULL,
    handle      TEXT NOT NULL COLLATE NOCASE UNIQUE,
    description TEXT NOT NULL DEFAULT '',
    tint        TEXT NOT NULL,
    runtime     TEXT NOT NULL
                CHECK (runtime IN ('claude-code', 'codex', 'hermes', 'openclaw', 'native')),
    model       TEXT NOT NULL DEFAULT '',
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL
);

-- Plain, non-secret settings (API keys live in the OS keychain, never here).
CREATE TABLE settings (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
