-- A chat's current epoch read by its own index: whether it has a reply yet (every send), its
-- last user message, the transcript it carries. With only (conversation_id, seq), a send after
-- /reset stepped through every message of the epochs before it.
CREATE INDEX messages_by_epoch ON messages (conversation_id, epoch, seq);
