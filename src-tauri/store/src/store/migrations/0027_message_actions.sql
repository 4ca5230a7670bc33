-- Retry and edit: a one-to-one exchange the user replaced keeps its rows (nothing is lost) but is
-- marked with when it was replaced. A superseded message is out of the carried transcript and out
-- of search (removed from the index by the trigger below, in the same transaction); the chat
-- shows it only behind an "earlier reply" fold.
ALTER TABLE messages ADD COLUMN superseded_at INTEGER;

CREATE TRIGGER messages_search_supersede AFTER UPDATE OF superseded_at ON messages
    WHEN old.superseded_at IS NULL AND new.superseded_at IS NOT NULL
BEGIN
    INSERT INTO message_search (message_search, rowid, content)
        SELECT 'delete', doc, old.content FROM message_search_docs WHERE source = 'chat' AND message_id = old.id;
    DELETE FROM message_search_docs WHERE source = 'chat' AND message_id = old.id;
END;

-- Unread marks: up to which message the user has read each one-to-one conversation and each
-- team room (`seq` of `messages` or of `room_messages`). A thread without a row was never opened.
CREATE TABLE read_marks (
    kind      TEXT NOT NULL CHECK (kind IN ('chat', 'room')),
    thread_id TEXT NOT NULL,
    seq       INTEGER NOT NULL,
    PRIMARY KEY (kind, thread_id)
) WITHOUT ROWID;
CREATE TRIGGER read_marks_follow_conversations AFTER DELETE ON conversations BEGIN
    DELETE FROM read_marks WHERE kind = 'chat' AND thread_id = old.id;
END;
CREATE TRIGGER read_marks_follow_rooms AFTER DELETE ON rooms BEGIN
    DELETE FROM read_marks WHERE kind = 'room' AND thread_id = old.id;
END;

-- What was there before this migration counts as read: nobody is greeted by old news.
INSERT INTO read_marks (kind, thread_id, seq)
    SELECT 'chat', conversation_id, max(seq) FROM messages m
        JOIN conversations c ON c.id = m.conversation_id WHERE c.kind = 'direct' GROUP BY conversation_id;
INSERT INTO read_marks (kind, thread_id, seq)
    SELECT 'room', room_id, max(seq) FROM room_messages GROUP BY room_id;
