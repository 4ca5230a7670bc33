-- Budgets read the spend's per-day totals (migration 28), which count every priced model call
-- and every token once; the guards' own per-day usage is no longer kept.
DROP TABLE IF EXISTS guard_usage_days;
