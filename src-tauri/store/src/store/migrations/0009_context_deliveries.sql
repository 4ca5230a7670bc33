-- What Clawboo last delivered into a conversation's runtime session, per item (the scratch
-- notes projection; agent files later), so an unchanged item is not re-sent on warm turns.
CREATE TABLE context_deliveries (
    conversation_id TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    item            TEXT NOT NULL,
    fingerprint     TEXT NOT NULL,
    epoch           INTEGER NOT NULL,
    delivered_at    INTEGER NOT NULL,
    PRIMARY KEY (conversation_id, item)
) WITHOUT ROWID;
