-- Connectors: MCP servers the user plugs in and shares with chosen agents. Values the user
-- marks secret live in the OS keychain only; here an entry keeps its key and whether it is
-- secret, never a secret's value.
CREATE TABLE connectors (
    id          TEXT PRIMARY KEY,
    name        TEXT NOT NULL UNIQUE,   -- the MCP server's name: [a-z0-9_-], never `clawboo`
    kind        TEXT NOT NULL,          -- stdio | http
    command     TEXT NOT NULL DEFAULT '',
    args        TEXT NOT NULL DEFAULT '[]',  -- JSON array of strings (stdio)
    url         TEXT NOT NULL DEFAULT '',
    entries     TEXT NOT NULL DEFAULT '[]',  -- JSON [{key, value|null, secret}]: env (stdio) or headers (http)
    enabled     INTEGER NOT NULL DEFAULT 1,
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL
);

CREATE TABLE connector_shares (
    connector_id TEXT NOT NULL REFERENCES connectors(id) ON DELETE CASCADE,
    agent_id     TEXT NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
    PRIMARY KEY (connector_id, agent_id)
);
CREATE INDEX connector_shares_by_agent ON connector_shares (agent_id);
