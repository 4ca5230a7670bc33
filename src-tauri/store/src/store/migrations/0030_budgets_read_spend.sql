-- Budgets read the spend's per-day totals (migration 28), which count every priced model call
-- and every token once; the guards' own per-day usage is no longer kept.
DROP TABLE IF EXISTS guard_usage_days;

-- Everything spent on one local day, whoever spent it: the overall budget's read before every
-- run is one row a day, not every agent's (`spend_days` holds a row per day and scope). Kept in
-- the same transaction as `spend_days`; filled here from what it already holds.
CREATE TABLE spend_all_days (
    day                 TEXT PRIMARY KEY,
    requests            INTEGER NOT NULL,
    input_tokens        INTEGER NOT NULL,
    output_tokens       INTEGER NOT NULL,
    cache_read_tokens   INTEGER NOT NULL,
    cache_write_tokens  INTEGER NOT NULL,
    cost_micros         INTEGER NOT NULL,
    unpriced_tokens     INTEGER NOT NULL,
    subscription_tokens INTEGER NOT NULL
) WITHOUT ROWID;
INSERT INTO spend_all_days
SELECT day, SUM(requests), SUM(input_tokens), SUM(output_tokens), SUM(cache_read_tokens), SUM(cache_write_tokens),
       COALESCE(SUM(cost_micros), 0), SUM(unpriced_tokens),
       SUM(CASE WHEN billing = 'subscription'
                THEN input_tokens + output_tokens + cache_read_tokens + cache_write_tokens ELSE 0 END)
FROM spend_days GROUP BY day;
