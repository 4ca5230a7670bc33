-- Shared memory. Facts are never removed (delete is a soft delete kept in history), and their
-- team or agent ids carry no foreign key: a fact outlives its team or agent (the user still
-- sees it; no agent can, since nobody is a member of a deleted team or is a deleted agent).
-- Every short id ever issued (facts, notes, scratch notes, promotions) stays in `memory_ids`,
-- so no id is ever issued twice, whatever is deleted later.
CREATE TABLE memory_ids (
    id TEXT PRIMARY KEY
) WITHOUT ROWID;

-- `seq` is the FTS rowid. `tags`: JSON array of normalised tags. `author`: JSON of `Author`;
-- `author_agent` is its agent id (NULL for the user), for the author filter.
CREATE TABLE memory_facts (
    seq          INTEGER PRIMARY KEY,
    id           TEXT NOT NULL UNIQUE,
    text         TEXT NOT NULL,
    tags         TEXT NOT NULL DEFAULT '[]',
    scope_kind   TEXT NOT NULL CHECK (scope_kind IN ('global', 'team', 'agent')),
    scope_id     TEXT NOT NULL DEFAULT '',
    author       TEXT NOT NULL,
    author_agent TEXT,
    created_at   INTEGER NOT NULL,
    updated_at   INTEGER NOT NULL,
    deleted      INTEGER NOT NULL DEFAULT 0 CHECK (deleted IN (0, 1)),
    version      INTEGER NOT NULL DEFAULT 1
);
-- Exact duplicates are looked up by scope and the start of the text (then compared whole).
CREATE INDEX memory_facts_by_scope_text ON memory_facts (scope_kind, scope_id, substr(text, 1, 32));
CREATE INDEX memory_facts_by_created ON memory_facts (created_at);

-- One row per (tag, fact): "related" counts shared tags through it.
CREATE TABLE memory_fact_tags (
    tag TEXT NOT NULL,
    seq INTEGER NOT NULL REFERENCES memory_facts (seq),
    PRIMARY KEY (tag, seq)
) WITHOUT ROWID;
CREATE INDEX memory_fact_tags_by_fact ON memory_fact_tags (seq);

-- Full-text index over the facts' text and tags, kept in sync by the triggers below (in the
-- same transaction as the change). Deleted facts stay indexed (the Memory view can search
-- them); searches join `memory_facts` and skip them.
CREATE VIRTUAL TABLE memory_fts USING fts5(
    text, tags, content = 'memory_facts', content_rowid = 'seq',
    tokenize = 'unicode61 remove_diacritics 2'
);
-- How many facts each word (of a fact's text and tags, split as `memory::search` splits
-- queries) and each tag is in, kept with every change in the same transaction: a search leaves
-- out its commonest words and tags (see `memory::search`), which counting the index would cost
-- as much as searching.
CREATE TABLE memory_term_counts (
    kind  TEXT NOT NULL CHECK (kind IN ('word', 'tag')),
    term  TEXT NOT NULL,
    facts INTEGER NOT NULL,
    PRIMARY KEY (kind, term)
) WITHOUT ROWID;

CREATE TRIGGER memory_facts_fts_insert AFTER INSERT ON memory_facts BEGIN
    INSERT INTO memory_fts (rowid, text, tags) VALUES (new.seq, new.text, new.tags);
END;
CREATE TRIGGER memory_facts_fts_update AFTER UPDATE OF text, tags ON memory_facts BEGIN
    INSERT INTO memory_fts (memory_fts, rowid, text, tags) VALUES ('delete', old.seq, old.text, old.tags);
    INSERT INTO memory_fts (rowid, text, tags) VALUES (new.seq, new.text, new.tags);
END;

-- A fact after each change: created, edited, deleted, restored.
CREATE TABLE memory_versions (
    fact_id    TEXT NOT NULL REFERENCES memory_facts (id),
    version    INTEGER NOT NULL,
    change     TEXT NOT NULL CHECK (change IN ('created', 'edited', 'deleted', 'restored')),
    text       TEXT NOT NULL,
    tags       TEXT NOT NULL,
    scope_kind TEXT NOT NULL,
    scope_id   TEXT NOT NULL,
    by_author  TEXT NOT NULL,
    at         INTEGER NOT NULL,
    PRIMARY KEY (fact_id, version)
) WITHOUT ROWID;

-- A run was given a fact. No foreign key to runs: the record outlives them.
CREATE TABLE memory_citations (
    fact_id      TEXT NOT NULL REFERENCES memory_facts (id),
    run_id       TEXT NOT NULL,
    agent_id     TEXT NOT NULL,
    agent_handle TEXT NOT NULL,
    at           INTEGER NOT NULL,
    PRIMARY KEY (fact_id, run_id)
) WITHOUT ROWID;

-- Each agent's own saved notes; no history (a delete removes the note; its id stays issued).
CREATE TABLE memory_notes (
    id         TEXT PRIMARY KEY,
    agent_id   TEXT NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
    text       TEXT NOT NULL,
    author     TEXT NOT NULL,
    created_at INTEGER NOT NULL
);
CREATE INDEX memory_notes_by_agent ON memory_notes (agent_id, created_at);

-- Scratch notes: `scope_id` is the conversation (session), the team, or '' (global). No foreign
-- keys: the user decides what to delete.
CREATE TABLE scratch_notes (
    id            TEXT PRIMARY KEY,
    scope_kind    TEXT NOT NULL CHECK (scope_kind IN ('session', 'team', 'global')),
    scope_id      TEXT NOT NULL DEFAULT '',
    text          TEXT NOT NULL,
    author        TEXT NOT NULL,
    promoted_from TEXT,
    created_at    INTEGER NOT NULL,
    updated_at    INTEGER NOT NULL
);
CREATE INDEX scratch_notes_by_scope ON scratch_notes (scope_kind, scope_id, created_at);

-- An agent's request to copy a session note to a team or global scope, decided once by the user.
CREATE TABLE scratch_promotions (
    id           TEXT PRIMARY KEY,
    note_id      TEXT NOT NULL,
    text         TEXT NOT NULL,
    to_kind      TEXT NOT NULL CHECK (to_kind IN ('team', 'global')),
    to_id        TEXT NOT NULL DEFAULT '',
    requested_by TEXT NOT NULL,
    status       TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'approved', 'rejected')),
    created_at   INTEGER NOT NULL,
    decided_at   INTEGER,
    copy_id      TEXT
);
CREATE INDEX scratch_promotions_by_status ON scratch_promotions (status, created_at);
