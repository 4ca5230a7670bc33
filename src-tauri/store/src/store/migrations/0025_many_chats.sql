-- Many one-to-one chats per agent. The one-per-agent rule was never a table constraint after
-- migration 7 (the partial index `conversations_direct` holds it), so dropping that index is
-- enough: no rebuild, every id, foreign key and the message-search triggers of migration 24 stay
-- as they are. A chat gains its title (from its first message unless the user named it), a pin,
-- an archive mark, a soft delete (undone within seconds, then purged) and when it was last used.
DROP INDEX conversations_direct;
ALTER TABLE conversations ADD COLUMN title TEXT;
ALTER TABLE conversations ADD COLUMN title_set_by_user INTEGER NOT NULL DEFAULT 0;
ALTER TABLE conversations ADD COLUMN pinned INTEGER NOT NULL DEFAULT 0;
ALTER TABLE conversations ADD COLUMN archived_at INTEGER;
ALTER TABLE conversations ADD COLUMN deleted_at INTEGER;
ALTER TABLE conversations ADD COLUMN last_activity_at INTEGER;
-- An agent's chat list: one range of this index, most recently used first.
CREATE INDEX conversations_chats ON conversations (agent_id, last_activity_at) WHERE kind = 'direct';

-- Each `/reset` epoch before a conversation's current one becomes a chat of its own: its
-- messages, and the runs those messages name, move there. The current epoch keeps the
-- conversation (its id, its runtime session, its deliveries and scratch notes). Ids are fresh
-- UUIDs (v4 layout); seqs stay unique because they were unique in the whole conversation.
CREATE TEMP TABLE split_epochs AS
    SELECT m.conversation_id AS old_id, m.epoch AS epoch, min(m.created_at) AS created_at,
           max(m.created_at) AS last_at,
           lower(hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-4' || substr(hex(randomblob(2)), 2) || '-'
                 || substr('89ab', 1 + (abs(random()) % 4), 1) || substr(hex(randomblob(2)), 2) || '-'
                 || hex(randomblob(6))) AS new_id
    FROM messages m JOIN conversations c ON c.id = m.conversation_id
    WHERE c.kind = 'direct' AND m.epoch < c.epoch
    GROUP BY m.conversation_id, m.epoch;

INSERT INTO conversations (id, agent_id, kind, epoch, created_at, last_activity_at)
    SELECT s.new_id, c.agent_id, 'direct', s.epoch, s.created_at, s.last_at
    FROM split_epochs s JOIN conversations c ON c.id = s.old_id;

UPDATE runs SET conversation_id = (
        SELECT s.new_id FROM messages m JOIN split_epochs s ON s.old_id = m.conversation_id AND s.epoch = m.epoch
        WHERE m.run_id = runs.id ORDER BY m.role = 'user' DESC LIMIT 1)
    WHERE id IN (SELECT m.run_id FROM messages m JOIN split_epochs s ON s.old_id = m.conversation_id AND s.epoch = m.epoch
                 WHERE m.run_id IS NOT NULL);
UPDATE messages SET conversation_id = (
        SELECT s.new_id FROM split_epochs s WHERE s.old_id = messages.conversation_id AND s.epoch = messages.epoch)
    WHERE EXISTS (SELECT 1 FROM split_epochs s WHERE s.old_id = messages.conversation_id AND s.epoch = messages.epoch);
DROP TABLE split_epochs;

-- Every chat's title from its first message the user wrote (none yet: no title, the list says
-- "New chat"), one line, at most 60 characters; when it was last used from its newest message.
UPDATE conversations SET
    title = (SELECT substr(trim(replace(replace(m.content, char(13), ' '), char(10), ' ')), 1, 60) FROM messages m
             WHERE m.conversation_id = conversations.id AND m.role = 'user' ORDER BY m.seq LIMIT 1),
    last_activity_at = coalesce((SELECT max(m.created_at) FROM messages m WHERE m.conversation_id = conversations.id),
                                created_at)
    WHERE kind = 'direct';
