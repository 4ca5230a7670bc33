-- A conversation's requests each repeat the one before and add a little: a request may be stored
-- as what it adds to an earlier one of the same agent in the same conversation (`base_*`: that
-- request, and how much of its start and end the body shares with it); `body_gz` then holds only
-- the rest. Every `chain`-th request (counted from a whole one) is stored whole, so reading any
-- body decompresses a bounded number of rows. The base is always of the same agent and
-- conversation, so it is deleted with it (runs go by conversation or by agent).
ALTER TABLE run_requests ADD COLUMN base_run_id TEXT;
ALTER TABLE run_requests ADD COLUMN base_seq INTEGER;
ALTER TABLE run_requests ADD COLUMN base_prefix INTEGER;
ALTER TABLE run_requests ADD COLUMN base_suffix INTEGER;
ALTER TABLE run_requests ADD COLUMN chain INTEGER NOT NULL DEFAULT 0;
