-- A routine's message in a room (a team routine's prompt, or a member routine's result for the
-- leader) is stored as a user message; this says whose routine it is, so the room can show it
-- as the routine's: its name, the member that ran it and the card it ran on. Removed with the
-- message; a deleted agent or card leaves the routine's name.
CREATE TABLE room_message_routines (
    message_id     TEXT PRIMARY KEY REFERENCES room_messages (id) ON DELETE CASCADE,
    routine_run_id TEXT NOT NULL,
    name           TEXT NOT NULL,
    agent_id       TEXT REFERENCES agents (id) ON DELETE SET NULL,
    card_id        TEXT REFERENCES cards (id) ON DELETE SET NULL
);
