-- What a team turn delivered, marked per item so nothing is lost: each peer post given to an
-- agent is recorded with the run that carried it (a post held back by the budget stays
-- unmarked, whatever the agent posts meanwhile), and released again when that run never
-- really started. `peer_cursors` stays as the floor older data was read up to.
CREATE TABLE peer_deliveries (
    post_id  TEXT NOT NULL REFERENCES peer_posts (id) ON DELETE CASCADE,
    agent_id TEXT NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
    run_id   TEXT NOT NULL,
    PRIMARY KEY (post_id, agent_id)
) WITHOUT ROWID;
CREATE INDEX peer_deliveries_by_run ON peer_deliveries (run_id);

-- A hand-off made by a teammate while it worked on a hand-off of its own: its result goes back
-- to that teammate as part of that task, and the teammate's reply then goes up the chain.
ALTER TABLE handoffs ADD COLUMN parent_handoff_id TEXT;
-- The end of every team run asks how many hand-offs it made and how many still run.
CREATE INDEX handoffs_by_from_run ON handoffs (from_run_id);
