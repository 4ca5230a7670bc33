-- What was spent, kept as usage is recorded (issue #27): one row per local day and everything a
-- total is asked by. Written in the same transaction as the usage it counts (the relay's
-- `run_requests` row, or a CLI's stored `Usage` event), so the totals never drift from it.
-- "None" is the empty string, not NULL: NULLs never collide in a primary key.
-- `billing`: 'api' (a key Clawboo holds, through the relay: priced when the model's price is
-- known) or 'subscription' (the user's own CLI sign-in: tokens only, never money).
-- `cost_micros`: micro-USD of the priced requests; NULL when none of the row's requests had a
-- price. `unpriced_tokens`: tokens of 'api' requests whose model had no known price.
CREATE TABLE spend_days (
    day                TEXT NOT NULL,
    agent_id           TEXT NOT NULL,
    team_id            TEXT NOT NULL,
    routine_id         TEXT NOT NULL,
    card_id            TEXT NOT NULL,
    runtime            TEXT NOT NULL,
    provider           TEXT NOT NULL,
    model              TEXT NOT NULL,
    billing            TEXT NOT NULL CHECK (billing IN ('api', 'subscription')),
    requests           INTEGER NOT NULL,
    input_tokens       INTEGER NOT NULL,
    output_tokens      INTEGER NOT NULL,
    cache_read_tokens  INTEGER NOT NULL,
    cache_write_tokens INTEGER NOT NULL,
    cost_micros        INTEGER,
    unpriced_tokens    INTEGER NOT NULL,
    PRIMARY KEY (day, agent_id, team_id, routine_id, card_id, runtime, provider, model, billing)
) WITHOUT ROWID;
CREATE INDEX spend_days_by_agent ON spend_days (agent_id, day);
CREATE INDEX spend_days_by_team ON spend_days (team_id, day);
CREATE INDEX spend_days_by_routine ON spend_days (routine_id, day);
CREATE INDEX spend_days_by_card ON spend_days (card_id, day);

-- The same sums per run (the Activity card, a run's JSON, the Spend page's CSV of runs). Its
-- scope is the run's, read once when its first usage is recorded. Kept with its run (trigger).
CREATE TABLE run_spend (
    run_id             TEXT PRIMARY KEY,
    day                TEXT NOT NULL,
    at                 INTEGER NOT NULL,
    agent_id           TEXT NOT NULL,
    team_id            TEXT NOT NULL,
    routine_id         TEXT NOT NULL,
    card_id            TEXT NOT NULL,
    runtime            TEXT NOT NULL,
    provider           TEXT NOT NULL,
    model              TEXT NOT NULL,
    billing            TEXT NOT NULL CHECK (billing IN ('api', 'subscription')),
    requests           INTEGER NOT NULL,
    input_tokens       INTEGER NOT NULL,
    output_tokens      INTEGER NOT NULL,
    cache_read_tokens  INTEGER NOT NULL,
    cache_write_tokens INTEGER NOT NULL,
    cost_micros        INTEGER,
    unpriced_tokens    INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX run_spend_by_day ON run_spend (day);
CREATE INDEX run_spend_by_card ON run_spend (card_id);
CREATE TRIGGER run_spend_follows_runs AFTER DELETE ON runs BEGIN
    DELETE FROM run_spend WHERE run_id = old.id;
END;

-- Runs that were granted a relay token: their usage is counted from the relay's requests, and
-- the CLI's own Usage events are not counted again (one model call, one count).
CREATE TABLE spend_relayed_runs (
    run_id TEXT PRIMARY KEY
) WITHOUT ROWID;
CREATE TRIGGER spend_relayed_runs_follow_runs AFTER DELETE ON runs BEGIN
    DELETE FROM spend_relayed_runs WHERE run_id = old.id;
END;

-- The user's prices (Settings > Spend), over the bundled table: per million tokens, micro-USD.
-- `free` = a local model: priced at zero, on purpose.
CREATE TABLE spend_prices (
    provider            TEXT NOT NULL,
    model               TEXT NOT NULL,
    input_micros        INTEGER NOT NULL,
    output_micros       INTEGER NOT NULL,
    cache_write_micros  INTEGER NOT NULL,
    cache_read_micros   INTEGER NOT NULL,
    free                INTEGER NOT NULL DEFAULT 0 CHECK (free IN (0, 1)),
    updated_at          INTEGER NOT NULL,
    PRIMARY KEY (provider, model)
) WITHOUT ROWID;

-- Each relayed request's model and cost, for "What this agent saw".
ALTER TABLE run_requests ADD COLUMN model TEXT;
ALTER TABLE run_requests ADD COLUMN cost_micros INTEGER;

-- Finding a run's routine when its usage is recorded.
CREATE INDEX routine_runs_by_run ON routine_runs (run_id) WHERE run_id IS NOT NULL;
CREATE INDEX routine_runs_by_card ON routine_runs (card_id) WHERE card_id IS NOT NULL;

-- Usage recorded before this migration is counted once, at the next open, by the engine
-- (`spend::backfill`): it reads each request's model from its gzipped body.
CREATE TABLE spend_backfill_pending (one INTEGER PRIMARY KEY CHECK (one = 1));
INSERT INTO spend_backfill_pending (one) VALUES (1);
