-- The Board: task cards in columns, their dependencies, comments, activity and runs.

-- The last card number issued. Numbers are never reused: deleting the newest card does not
-- give its number to the next one.
CREATE TABLE card_numbers (
    id   INTEGER PRIMARY KEY CHECK (id = 1),
    last INTEGER NOT NULL
);
INSERT INTO card_numbers (id, last) VALUES (1, 0);

-- `origin`: JSON of `CardOrigin`; `handoff_id` repeats a hand-off origin's id for the lookup
-- when the teammate's run starts and ends (no foreign key: the card outlives its room).
-- A card is in progress exactly when a run holds it, and blocked exactly when it says why.
CREATE TABLE cards (
    id             TEXT PRIMARY KEY,
    number         INTEGER NOT NULL UNIQUE,
    title          TEXT NOT NULL,
    description    TEXT NOT NULL DEFAULT '',
    assignee_id    TEXT REFERENCES agents (id) ON DELETE SET NULL,
    team_id        TEXT REFERENCES teams (id) ON DELETE SET NULL,
    status         TEXT NOT NULL
                   CHECK (status IN ('backlog', 'todo', 'in_progress', 'in_review', 'blocked', 'done', 'cancelled')),
    priority       TEXT NOT NULL DEFAULT 'medium' CHECK (priority IN ('low', 'medium', 'high', 'urgent')),
    check_command  TEXT,
    project_folder TEXT,
    task_text      TEXT,
    origin         TEXT NOT NULL,
    handoff_id     TEXT,
    claimed_by_run TEXT,
    blocked_reason TEXT,
    position       REAL NOT NULL,
    created_at     INTEGER NOT NULL,
    updated_at     INTEGER NOT NULL,
    CHECK ((status = 'in_progress') = (claimed_by_run IS NOT NULL)),
    CHECK ((status = 'blocked') = (blocked_reason IS NOT NULL))
);
CREATE INDEX cards_by_status ON cards (status, position);
CREATE INDEX cards_by_team ON cards (team_id, status);
CREATE INDEX cards_by_assignee ON cards (assignee_id, status);
CREATE INDEX cards_by_handoff ON cards (handoff_id) WHERE handoff_id IS NOT NULL;
CREATE INDEX cards_claimed ON cards (claimed_by_run) WHERE claimed_by_run IS NOT NULL;

-- A card waits for the cards it depends on, in the order added. Deleting either card removes
-- the edge (the service records that on the dependent card).
CREATE TABLE card_dependencies (
    card_id       TEXT NOT NULL REFERENCES cards (id) ON DELETE CASCADE,
    depends_on_id TEXT NOT NULL REFERENCES cards (id) ON DELETE CASCADE,
    position      INTEGER NOT NULL,
    PRIMARY KEY (card_id, depends_on_id),
    CHECK (card_id <> depends_on_id)
) WITHOUT ROWID;
CREATE INDEX card_dependencies_by_dependency ON card_dependencies (depends_on_id);

-- `author`: JSON of `Actor`. An agent's report is a comment of kind 'report'.
CREATE TABLE card_comments (
    id         TEXT PRIMARY KEY,
    card_id    TEXT NOT NULL REFERENCES cards (id) ON DELETE CASCADE,
    author     TEXT NOT NULL,
    kind       TEXT NOT NULL CHECK (kind IN ('comment', 'report')),
    text       TEXT NOT NULL,
    run_id     TEXT,
    created_at INTEGER NOT NULL
);
CREATE INDEX card_comments_by_card ON card_comments (card_id, created_at);

-- One line per change: `actor` is JSON of `Actor`, `activity` JSON of `ActivityKind`.
CREATE TABLE card_activity (
    id       TEXT PRIMARY KEY,
    card_id  TEXT NOT NULL REFERENCES cards (id) ON DELETE CASCADE,
    actor    TEXT NOT NULL,
    activity TEXT NOT NULL,
    at       INTEGER NOT NULL
);
CREATE INDEX card_activity_by_card ON card_activity (card_id, at);

-- The runs of a card, filled by the task runner (and by team chat for a hand-off's run):
-- `attempt` counts from 1 per card; `kind` says why the run exists (a first run, a fix round
-- after a failed check, a rotation to a fresh session, a hand-off's teammate); `reason` says
-- how it ended when not plainly. No foreign key to runs: the record outlives them.
CREATE TABLE card_runs (
    run_id      TEXT PRIMARY KEY,
    card_id     TEXT NOT NULL REFERENCES cards (id) ON DELETE CASCADE,
    attempt     INTEGER NOT NULL,
    kind        TEXT NOT NULL CHECK (kind IN ('run', 'fix', 'rotation', 'handoff')),
    status      TEXT NOT NULL CHECK (status IN ('running', 'succeeded', 'failed', 'cancelled', 'interrupted')),
    started_at  INTEGER NOT NULL,
    finished_at INTEGER,
    reason      TEXT
);
CREATE INDEX card_runs_by_card ON card_runs (card_id, started_at);
