-- The fingerprint of the session setup (the persona now; later rules, About you, membership)
-- the conversation's runtime session started with. A turn whose setup differs applies it the
-- way its runtime can (see `SetupChange`). NULL: not known (kept before this column existed).
ALTER TABLE conversations ADD COLUMN session_setup TEXT;
