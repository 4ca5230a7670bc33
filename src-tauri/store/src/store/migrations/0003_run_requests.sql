-- What the model relay saw of each run: the exact request bodies (gzipped, bounded) and the
-- usage in each answer. Never headers: they carry the token and the key.
-- No foreign key to runs: a relay request may be recorded for a run id the store does not hold
-- yet (or no longer); the trigger below removes a run's requests with the run.
CREATE TABLE run_requests (
    run_id      TEXT NOT NULL,
    seq         INTEGER NOT NULL,
    at          INTEGER NOT NULL,
    provider    TEXT NOT NULL,
    method      TEXT NOT NULL,
    path        TEXT NOT NULL,
    status      INTEGER NOT NULL,
    body_gz     BLOB,
    body_bytes  INTEGER NOT NULL,
    body_stored INTEGER NOT NULL,
    usage_json  TEXT,
    PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;

CREATE TRIGGER run_requests_follow_runs AFTER DELETE ON runs BEGIN
    DELETE FROM run_requests WHERE run_id = old.id;
END;
