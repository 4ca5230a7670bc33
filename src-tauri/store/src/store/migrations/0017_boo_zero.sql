-- Boo Zero: the titled parts of what a one-to-one run was given in front of its message (Boo
-- Zero's rules, each mentioned team's brief, cards, memory and chat), for "What this agent saw".
-- A JSON list of {title, text}; empty for every other run. Boo Zero itself, its rules and the
-- global brief are settings rows.
ALTER TABLE chat_run_contexts ADD COLUMN sections TEXT NOT NULL DEFAULT '[]';
