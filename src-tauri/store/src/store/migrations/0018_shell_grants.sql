-- "Allow always" for a shell tool is per command prefix (`Bash` and `git status`), never the
-- whole shell. A grant keeps its prefix ('' for any other tool: the whole tool, as before); a
-- request keeps the prefix its "Allow always" would grant (NULL when there is none).
ALTER TABLE attention_requests ADD COLUMN command_prefix TEXT;

CREATE TABLE attention_grants_new (
    id             TEXT PRIMARY KEY,
    agent_id       TEXT NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
    tool           TEXT NOT NULL,
    command_prefix TEXT NOT NULL DEFAULT '',
    request_id     TEXT,
    created_at     INTEGER NOT NULL,
    UNIQUE (agent_id, tool, command_prefix)
);

-- The whole-shell grants made before are dropped, and the audit says so. The tools are the shell
-- tools as named in src-tauri/engine/src/attention/shell.rs (SHELL_TOOLS) when this was written.
INSERT INTO attention_audit (at, request_id, actor, action, detail)
SELECT CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER), g.request_id, 'clawboo', 'grant_revoked',
       '@' || COALESCE(a.handle, g.agent_id) || ' must ask again before using ' || g.tool
           || ': "Allow always" for a shell tool now allows one command prefix, never the whole shell.'
FROM attention_grants g LEFT JOIN agents a ON a.id = g.agent_id
WHERE g.tool IN ('Bash', 'bash', 'shell', 'local_shell', 'exec_command', 'commandExecution', 'exec', 'terminal',
                 'execute');

INSERT INTO attention_grants_new (id, agent_id, tool, command_prefix, request_id, created_at)
SELECT id, agent_id, tool, '', request_id, created_at FROM attention_grants
WHERE tool NOT IN ('Bash', 'bash', 'shell', 'local_shell', 'exec_command', 'commandExecution', 'exec', 'terminal',
                   'execute');

DROP TABLE attention_grants;
ALTER TABLE attention_grants_new RENAME TO attention_grants;
