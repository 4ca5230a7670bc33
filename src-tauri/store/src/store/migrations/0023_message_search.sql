-- Full-text search over what was said: every message of every conversation (`messages`) and
-- every message of every team room (`room_messages`). External-content FTS5 indexes: the text
-- stays in its own table once, the index holds only the words, kept in step by the triggers
-- below in the same transaction as the change (a delete, including one cascading from its
-- conversation or room, removes the row's words with it). `rowid` is each table's own rowid:
-- a migration that rebuilds `messages` or `room_messages` must end with
-- `INSERT INTO <index> (<index>) VALUES ('rebuild')`, since a copied table renumbers its rows.
-- `prefix`: two- and three-letter prefixes are indexed too, so search as you type stays fast.
CREATE VIRTUAL TABLE messages_fts USING fts5(
    content, content = 'messages', content_rowid = 'rowid',
    tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3'
);
CREATE VIRTUAL TABLE room_messages_fts USING fts5(
    content, content = 'room_messages', content_rowid = 'rowid',
    tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3'
);

-- What was stored before this migration: indexed once, here.
INSERT INTO messages_fts (messages_fts) VALUES ('rebuild');
INSERT INTO room_messages_fts (room_messages_fts) VALUES ('rebuild');

CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN
    INSERT INTO messages_fts (rowid, content) VALUES (new.rowid, new.content);
END;
CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages BEGIN
    INSERT INTO messages_fts (messages_fts, rowid, content) VALUES ('delete', old.rowid, old.content);
END;
CREATE TRIGGER messages_fts_update AFTER UPDATE OF content ON messages BEGIN
    INSERT INTO messages_fts (messages_fts, rowid, content) VALUES ('delete', old.rowid, old.content);
    INSERT INTO messages_fts (rowid, content) VALUES (new.rowid, new.content);
END;

CREATE TRIGGER room_messages_fts_insert AFTER INSERT ON room_messages BEGIN
    INSERT INTO room_messages_fts (rowid, content) VALUES (new.rowid, new.content);
END;
CREATE TRIGGER room_messages_fts_delete AFTER DELETE ON room_messages BEGIN
    INSERT INTO room_messages_fts (room_messages_fts, rowid, content) VALUES ('delete', old.rowid, old.content);
END;
CREATE TRIGGER room_messages_fts_update AFTER UPDATE OF content ON room_messages BEGIN
    INSERT INTO room_messages_fts (room_messages_fts, rowid, content) VALUES ('delete', old.rowid, old.content);
    INSERT INTO room_messages_fts (rowid, content) VALUES (new.rowid, new.content);
END;
