-- Which agent-file references (BOOTSTRAP.md, MEMORY.md without memory tools) each runtime
-- session holds, by content hash: an unchanged file is not sent again on a warm turn, a changed
-- one is, and a new session gets everything. The key is the runtime's session id, or `epoch:N`
-- for a conversation whose history Clawboo carries (Native). Written when a run completes in
-- that session, so a run that failed before its session kept anything re-sends next time.
CREATE TABLE file_deliveries (
    conversation_id TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    session_key     TEXT NOT NULL,
    file            TEXT NOT NULL,
    hash            TEXT NOT NULL,
    run_id          TEXT NOT NULL,
    delivered_at    INTEGER NOT NULL,
    PRIMARY KEY (conversation_id, session_key, file)
) WITHOUT ROWID;

-- The workspace-file references a user message went out with: Native's carried transcript
-- keeps them in front of that message, as a runtime's own session would.
ALTER TABLE messages ADD COLUMN carried TEXT;

-- Exactly what a one-to-one run was given ("What this agent saw"): the runtime's instruction
-- slot, the text in front of the message, and where each agent file went (JSON). No foreign
-- key: kept with its run (trigger), like `run_contexts`.
CREATE TABLE chat_run_contexts (
    run_id      TEXT PRIMARY KEY,
    system_text TEXT,
    preamble    TEXT,
    files       TEXT NOT NULL,
    created_at  INTEGER NOT NULL
);
CREATE TRIGGER chat_run_contexts_follow_runs AFTER DELETE ON runs BEGIN
    DELETE FROM chat_run_contexts WHERE run_id = old.id;
END;
