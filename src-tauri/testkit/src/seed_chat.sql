-- Appends :count finished exchanges (a user message, its run, the reply) to the one-to-one chat
-- of agent :agent (its most recently used chat), creating one if it has none. For benchmarks: it gets a chat to exchange 1,000
-- or 10,000 in a moment. Used by the engine's bench (rusqlite) and scripts/bench-chat-ui (sqlite3).
-- Every fifth reply is Markdown with a list, a code block and a table, as real replies are.
-- One exchange every two minutes, all over an hour ago: a long chat from before, so the seeded runs do
-- not count against the hourly run limit (60 by default) that the bench's own exchanges meet.
INSERT INTO conversations (id, agent_id, kind, created_at, last_activity_at)
SELECT lower(hex(randomblob(16))), :agent, 'direct', CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER),
       CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)
WHERE NOT EXISTS (SELECT 1 FROM conversations WHERE agent_id = :agent AND kind = 'direct' AND deleted_at IS NULL);

INSERT INTO runs (id, conversation_id, agent_id, runtime, status, error, started_at, finished_at)
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < :count),
c AS (SELECT id FROM conversations WHERE agent_id = :agent AND kind = 'direct' AND deleted_at IS NULL
      ORDER BY last_activity_at DESC, rowid DESC LIMIT 1),
base AS (SELECT COALESCE(MAX(seq), 0) AS seq FROM messages, c WHERE conversation_id = c.id),
clock AS (SELECT CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER) - 120000 * (:count + 1) - 3600000 AS t0)
SELECT printf('seed-%s-%d', c.id, base.seq + 2 * i), c.id, :agent, 'native', 'succeeded', NULL, t0 + 120000 * i, t0 + 120000 * i + 1
FROM n, c, base, clock;

INSERT INTO messages (id, conversation_id, seq, role, content, run_id, epoch, created_at)
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < :count),
c AS (SELECT id, epoch FROM conversations WHERE agent_id = :agent AND kind = 'direct' AND deleted_at IS NULL
      ORDER BY last_activity_at DESC, rowid DESC LIMIT 1),
base AS (SELECT COALESCE(MAX(seq), 0) AS seq FROM messages, c WHERE conversation_id = c.id),
clock AS (SELECT CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER) - 120000 * (:count + 1) - 3600000 AS t0)
SELECT printf('seed-u-%s-%d', c.id, base.seq + 2 * i - 1), c.id, base.seq + 2 * i - 1, 'user',
       printf('Question %d: how does part %d work?', base.seq + 2 * i - 1, i),
       printf('seed-%s-%d', c.id, base.seq + 2 * i), c.epoch, t0 + 120000 * i
FROM n, c, base, clock
UNION ALL
SELECT printf('seed-a-%s-%d', c.id, base.seq + 2 * i), c.id, base.seq + 2 * i, 'assistant',
       CASE WHEN i % 5 = 0 THEN printf(
           '## Part %d' || char(10) || char(10) || 'It works in **three** steps:' || char(10) || char(10)
           || '1. read the `input`' || char(10) || '2. check it' || char(10) || '3. store it' || char(10) || char(10)
           || '```rust' || char(10) || 'fn part_%d(input: &str) -> usize {' || char(10)
           || '    input.len()' || char(10) || '}' || char(10) || '```' || char(10) || char(10)
           || '| step | cost |' || char(10) || '| --- | ---: |' || char(10) || '| read | 1 ms |' || char(10)
           || '| store | 2 ms |',
           i, i)
       ELSE printf('Part %d reads its input, checks it and stores it.', i) END,
       printf('seed-%s-%d', c.id, base.seq + 2 * i), c.epoch, t0 + 120000 * i + 1
FROM n, c, base, clock;

UPDATE conversations SET last_activity_at = CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)
WHERE id = (SELECT id FROM conversations WHERE agent_id = :agent AND kind = 'direct' AND deleted_at IS NULL
            ORDER BY last_activity_at DESC, rowid DESC LIMIT 1);
