-- Full-text search over what was said: the messages of one-to-one chats (`messages` of
-- `direct` conversations; a room's private per-agent transcripts and task conversations are
-- not indexed) and of team rooms (`room_messages`), in ONE index so bm25 weighs a word the
-- same wherever it was said.
--
-- `message_search_docs` numbers each indexed message in the order it was stored (its rowid is
-- the index's rowid, so "newest first" is one descending walk of the index) and names it by
-- its source and id (ids never change, unlike a table's rowids when it is copied).
-- `message_search` is an external-content FTS5 index over the view `message_search_content`:
-- the text stays in its own table once, the index holds only the words. The triggers below
-- keep it in step in the same transaction as each change (a delete cascading from a deleted
-- agent, conversation, team or room included). `prefix`: two- and three-letter prefixes are
-- indexed too, so search as you type stays fast.
CREATE TABLE message_search_docs (
    doc        INTEGER PRIMARY KEY,
    source     TEXT NOT NULL CHECK (source IN ('chat', 'room')),
    message_id TEXT NOT NULL,
    UNIQUE (source, message_id)
);
CREATE VIEW message_search_content AS
    SELECT d.doc AS doc, coalesce(m.content, r.content) AS content
    FROM message_search_docs d
    LEFT JOIN messages m ON d.source = 'chat' AND m.id = d.message_id
    LEFT JOIN room_messages r ON d.source = 'room' AND r.id = d.message_id;
CREATE VIRTUAL TABLE message_search USING fts5(
    content, content = 'message_search_content', content_rowid = 'doc',
    tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3'
);

-- What was stored before this migration, oldest first: indexed once, here.
INSERT INTO message_search_docs (source, message_id)
    SELECT source, id FROM (
        SELECT 'chat' AS source, m.id, m.created_at, m.rowid AS n FROM messages m
            JOIN conversations c ON c.id = m.conversation_id WHERE c.kind = 'direct'
        UNION ALL
        SELECT 'room', id, created_at, rowid FROM room_messages
    ) ORDER BY created_at, n;
INSERT INTO message_search (message_search) VALUES ('rebuild');

CREATE TRIGGER messages_search_insert AFTER INSERT ON messages
    WHEN (SELECT kind FROM conversations WHERE id = new.conversation_id) = 'direct'
BEGIN
    INSERT INTO message_search_docs (source, message_id) VALUES ('chat', new.id);
    INSERT INTO message_search (rowid, content)
        SELECT doc, new.content FROM message_search_docs WHERE source = 'chat' AND message_id = new.id;
END;
CREATE TRIGGER messages_search_delete AFTER DELETE ON messages BEGIN
    INSERT INTO message_search (message_search, rowid, content)
        SELECT 'delete', doc, old.content FROM message_search_docs WHERE source = 'chat' AND message_id = old.id;
    DELETE FROM message_search_docs WHERE source = 'chat' AND message_id = old.id;
END;
CREATE TRIGGER messages_search_update AFTER UPDATE OF content ON messages BEGIN
    INSERT INTO message_search (message_search, rowid, content)
        SELECT 'delete', doc, old.content FROM message_search_docs WHERE source = 'chat' AND message_id = old.id;
    INSERT INTO message_search (rowid, content)
        SELECT doc, new.content FROM message_search_docs WHERE source = 'chat' AND message_id = new.id;
END;

CREATE TRIGGER room_messages_search_insert AFTER INSERT ON room_messages BEGIN
    INSERT INTO message_search_docs (source, message_id) VALUES ('room', new.id);
    INSERT INTO message_search (rowid, content)
        SELECT doc, new.content FROM message_search_docs WHERE source = 'room' AND message_id = new.id;
END;
CREATE TRIGGER room_messages_search_delete AFTER DELETE ON room_messages BEGIN
    INSERT INTO message_search (message_search, rowid, content)
        SELECT 'delete', doc, old.content FROM message_search_docs WHERE source = 'room' AND message_id = old.id;
    DELETE FROM message_search_docs WHERE source = 'room' AND message_id = old.id;
END;
CREATE TRIGGER room_messages_search_update AFTER UPDATE OF content ON room_messages BEGIN
    INSERT INTO message_search (message_search, rowid, content)
        SELECT 'delete', doc, old.content FROM message_search_docs WHERE source = 'room' AND message_id = old.id;
    INSERT INTO message_search (rowid, content)
        SELECT doc, new.content FROM message_search_docs WHERE source = 'room' AND message_id = new.id;
END;
