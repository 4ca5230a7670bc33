-- Why a run failed, in a word the UI picks the fix by (`RunErrorCode`): written with the run's
-- end. Runs that ended before this migration have none; their code is read from their message.
ALTER TABLE runs ADD COLUMN error_code TEXT;
ALTER TABLE card_runs ADD COLUMN error_code TEXT;
