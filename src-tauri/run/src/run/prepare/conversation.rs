//! A conversation's rows: the conversation itself and the runtime session it carries (what a
//! run's session plan starts from), its messages, and its runs (their events: `run::store`).
//! One-to-one chats, team rooms and the task runner all keep their runs here; chat reads it as
//! `chat::store`.

use rusqlite::{params, Connection, OptionalExtension, Row, Transaction};

use crate::agents::RuntimeKind;
use crate::error::{Error, Result};
use crate::vocab::{ChatMessage, ChatRole, RunErrorCode, RunStatus, RunSummary};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Conversation {
    pub id: String,
    pub agent_id: String,
    pub session_id: Option<String>,
    pub session_runtime: Option<RuntimeKind>,
    /// The fingerprint of the setup `session_id` started with (see `super::setup`).
    pub session_setup: Option<String>,
    pub epoch: i64,
}

/// The columns [`conversation_from_row`] reads, in its order.
const CONVERSATION_COLUMNS: &str = "id, agent_id, session_id, session_runtime, epoch, session_setup";

/// The chat a message without a chat id goes to: the agent's most recently used chat that is
/// neither archived nor deleted, or a new one when it has none.
pub fn current_chat(tx: &Transaction, agent_id: &str, now: i64) -> Result<Conversation> {
    match latest_chat(tx, agent_id)? {
        Some(chat) => Ok(chat),
        None => new_chat(tx, agent_id, now),
    }
}

/// The agent's most recently used chat that is neither archived nor deleted.
pub fn latest_chat(conn: &Connection, agent_id: &str) -> Result<Option<Conversation>> {
    Ok(conn
        .query_row(
            &format!(
                "SELECT {CONVERSATION_COLUMNS} FROM conversations
                 WHERE agent_id = ?1 AND kind = 'direct' AND archived_at IS NULL AND deleted_at IS NULL
                 ORDER BY last_activity_at DESC, rowid DESC LIMIT 1"
            ),
            [agent_id],
            conversation_from_row,
        )
        .optional()?)
}

/// A new chat of the agent's: no messages, no runtime session.
pub fn new_chat(tx: &Transaction, agent_id: &str, now: i64) -> Result<Conversation> {
    let id = uuid::Uuid::new_v4().to_string();
    tx.prepare_cached("INSERT INTO conversations (id, agent_id, kind, created_at, last_activity_at) VALUES (?1, ?2, 'direct', ?3, ?3)")?.execute(params![id, agent_id, now])?;
    Ok(Conversation {
        id,
        agent_id: agent_id.to_owned(),
        session_id: None,
        session_runtime: None,
        session_setup: None,
        epoch: 0,
    })
}

/// One of `agent_id`'s chats by its id (a deleted one is gone for everyone but Undo).
pub fn chat(conn: &Connection, agent_id: &str, chat_id: &str) -> Result<Conversation> {
    conn.prepare_cached(&format!(
        "SELECT {CONVERSATION_COLUMNS} FROM conversations
             WHERE id = ?1 AND agent_id = ?2 AND kind = 'direct' AND deleted_at IS NULL"
    ))?
    .query_row([chat_id, agent_id], conversation_from_row)
    .optional()?
    .ok_or_else(|| Error::NotFound(format!("Chat {chat_id}")))
}

/// The chat's epoch now (a `/reset` may have bumped it during a run).
pub fn epoch(conn: &Connection, chat_id: &str) -> Result<Option<i64>> {
    Ok(conn
        .prepare_cached("SELECT epoch FROM conversations WHERE id = ?1")?
        .query_row([chat_id], |r| r.get(0))
        .optional()?)
}

/// A conversation from a row of (id, agent_id, session_id, session_runtime, epoch, session_setup).
pub fn conversation_from_row(r: &Row<'_>) -> rusqlite::Result<Conversation> {
    let runtime: Option<String> = r.get(3)?;
    Ok(Conversation {
        id: r.get(0)?,
        agent_id: r.get(1)?,
        session_id: r.get(2)?,
        session_runtime: runtime.as_deref().and_then(RuntimeKind::parse),
        epoch: r.get(4)?,
        session_setup: r.get(5)?,
    })
}

/// The runtime session the next turn resumes, with the fingerprint of the setup it has.
pub fn set_session(tx: &Transaction, conversation_id: &str, session: Option<(&str, RuntimeKind, &str)>) -> Result<()> {
    tx.prepare_cached(
        "UPDATE conversations SET session_id = ?2, session_runtime = ?3, session_setup = ?4 WHERE id = ?1",
    )?
    .execute(params![
        conversation_id,
        session.map(|s| s.0),
        session.map(|s| s.1.as_str()),
        session.map(|s| s.2)
    ])?;
    Ok(())
}

/// `/reset`: forget the runtime session and start a new transcript epoch.
pub fn reset(tx: &Transaction, conversation_id: &str) -> Result<i64> {
    tx.prepare_cached(
        "UPDATE conversations SET session_id = NULL, session_runtime = NULL, session_setup = NULL, epoch = epoch + 1
         WHERE id = ?1",
    )?
    .execute([conversation_id])?;
    Ok(tx
        .prepare_cached("SELECT epoch FROM conversations WHERE id = ?1")?
        .query_row([conversation_id], |r| r.get(0))?)
}

pub fn add_message(
    tx: &Transaction,
    conversation: &Conversation,
    role: ChatRole,
    content: &str,
    run_id: Option<&str>,
    epoch: i64,
    now: i64,
) -> Result<ChatMessage> {
    let id = uuid::Uuid::new_v4().to_string();
    // MAX(seq) of one conversation is a single step down its (conversation_id, seq) index.
    let seq = tx.prepare_cached(
        "INSERT INTO messages (id, conversation_id, seq, role, content, run_id, epoch, created_at)
         VALUES (?1, ?2, (SELECT COALESCE(MAX(seq), 0) + 1 FROM messages WHERE conversation_id = ?2), ?3, ?4, ?5, ?6, ?7)
         RETURNING seq",
    )?
    .query_row(params![id, conversation.id, role.as_str(), content, run_id, epoch, now], |r| r.get(0))?;
    // The chat moves to the top of its list; its first message from the user names it, unless
    // the user named it already.
    tx.prepare_cached(
        "UPDATE conversations SET last_activity_at = ?2,
             title = CASE WHEN ?3 AND title IS NULL AND NOT title_set_by_user THEN ?4 ELSE title END
         WHERE id = ?1",
    )?
    .execute(params![conversation.id, now, role == ChatRole::User, title_from(content)])?;
    Ok(ChatMessage {
        id,
        chat_id: conversation.id.clone(),
        agent_id: conversation.agent_id.clone(),
        seq,
        role,
        content: content.to_owned(),
        run_id: run_id.map(str::to_owned),
        created_at: now,
        superseded: false,
    })
}

/// The most characters of a title made from a message.
pub const TITLE_CHARS: usize = 60;

/// A chat's title from its first message: one line, at most [`TITLE_CHARS`] characters.
pub fn title_from(text: &str) -> String {
    let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    line.chars().take(TITLE_CHARS).collect()
}

/// Up to `limit` messages before `before_seq` (or the newest), oldest first, and whether older
/// ones exist. One range read of the (conversation_id, seq) index, whatever the chat's length.
pub fn page(
    conn: &Connection,
    conversation: &Conversation,
    before_seq: Option<i64>,
    limit: u32,
) -> Result<(Vec<ChatMessage>, bool)> {
    let mut stmt = conn.prepare_cached(PAGE_SQL)?;
    // One more than asked: its presence says whether older messages exist.
    let bounds = params![conversation.id, before_seq.unwrap_or(i64::MAX), i64::from(limit) + 1];
    let rows = stmt.query_map(bounds, |r| {
        let role: String = r.get(1)?;
        Ok((
            role,
            ChatMessage {
                id: r.get(0)?,
                chat_id: conversation.id.clone(),
                agent_id: conversation.agent_id.clone(),
                seq: r.get(2)?,
                role: ChatRole::User,
                content: r.get(3)?,
                run_id: r.get(4)?,
                created_at: r.get(5)?,
                superseded: r.get(6)?,
            },
        ))
    })?;
    let mut messages = rows
        .map(|row| {
            let (role, mut message) = row?;
            message.role = ChatRole::parse(&role).ok_or_else(|| Error::Internal(format!("unknown role {role}")))?;
            Ok(message)
        })
        .collect::<Result<Vec<_>>>()?;
    let has_older = messages.len() > limit as usize;
    messages.truncate(limit as usize);
    messages.reverse();
    Ok((messages, has_older))
}

pub const PAGE_SQL: &str = "SELECT id, role, seq, content, run_id, created_at, superseded_at IS NOT NULL FROM messages
     WHERE conversation_id = ?1 AND seq < ?2 ORDER BY seq DESC LIMIT ?3";

/// A carried pair and the run its user message started, as runtimes take it.
pub use crate::runtimes::TranscriptTurn as CarriedTurn;

/// User/assistant pairs of the current epoch, oldest first, for runtimes whose history Clawboo
/// carries, each with the run of its user message (to tell which turns a trimmed history still
/// holds). A user message without a reply (a failed run) is left out, and so is an exchange
/// replaced by a retry or an edit. A user message keeps the
/// workspace-file references it went out with in front of it, as a runtime's session would.
pub fn transcript(conn: &Connection, conversation: &Conversation) -> Result<Vec<CarriedTurn>> {
    let mut turns = Vec::new();
    pair_carried(carried_rows_after(conn, conversation, 0)?, &mut turns, &mut None);
    Ok(turns)
}

/// A message of the current epoch as [`transcript`] reads it.
pub(super) struct CarriedRow {
    pub(super) seq: i64,
    role: String,
    content: String,
    carried: Option<String>,
    run_id: Option<String>,
}

/// The messages [`transcript`] pairs, those after `after_seq` only, oldest first.
pub(super) fn carried_rows_after(
    conn: &Connection,
    conversation: &Conversation,
    after_seq: i64,
) -> Result<Vec<CarriedRow>> {
    let mut stmt = conn.prepare_cached(
        "SELECT seq, role, content, carried, run_id FROM messages
         WHERE conversation_id = ?1 AND seq > ?3 AND epoch = ?2 AND role != 'notice' AND superseded_at IS NULL
         ORDER BY seq",
    )?;
    let rows = stmt
        .query_map(params![conversation.id, conversation.epoch, after_seq], |r| {
            Ok(CarriedRow {
                seq: r.get(0)?,
                role: r.get(1)?,
                content: r.get(2)?,
                carried: r.get(3)?,
                run_id: r.get(4)?,
            })
        })?
        .collect::<rusqlite::Result<_>>()?;
    Ok(rows)
}

/// Pairs `rows` (read in order, after those already paired) into `turns`: each user message
/// with the reply after it. `pending_user`: a user message still waiting for its reply.
pub(super) fn pair_carried(
    rows: Vec<CarriedRow>,
    turns: &mut Vec<CarriedTurn>,
    pending_user: &mut Option<(String, Option<String>)>,
) {
    for CarriedRow { role, content, carried, run_id, .. } in rows {
        match role.as_str() {
            "user" => {
                let user = match carried.filter(|c| !c.trim().is_empty()) {
                    Some(carried) => format!("{}\n\n{content}", carried.trim_end()),
                    None => content,
                };
                *pending_user = Some((user, run_id));
            }
            _ => {
                if let Some((user, run_id)) = pending_user.take() {
                    turns.push(CarriedTurn {
                        user: blank_as_empty(user).into(),
                        assistant: blank_as_empty(content).into(),
                        run_id: run_id.map(Into::into),
                    });
                }
            }
        }
    }
}

/// A carried text with nothing but whitespace is carried empty (see [`TranscriptTurn`]): looked
/// at once here, where the row was just read, not by every send that carries it.
///
/// [`TranscriptTurn`]: crate::runtimes::TranscriptTurn
fn blank_as_empty(text: String) -> String {
    if text.trim().is_empty() {
        String::new()
    } else {
        text
    }
}

/// Keeps the workspace-file references `message_id` went out with (see [`transcript`]).
pub fn set_carried(tx: &Transaction, message_id: &str, carried: &str) -> Result<()> {
    tx.prepare_cached("UPDATE messages SET carried = ?2 WHERE id = ?1")?.execute(params![message_id, carried])?;
    Ok(())
}

/// Whether the conversation's current epoch has a reply yet (a new chat, or one just reset,
/// has none).
pub fn has_reply(conn: &Connection, conversation: &Conversation) -> Result<bool> {
    Ok(conn
        .prepare_cached(
            "SELECT EXISTS (SELECT 1 FROM messages
         WHERE conversation_id = ?1 AND epoch = ?2 AND role = 'assistant' AND superseded_at IS NULL)",
        )?
        .query_row(params![conversation.id, conversation.epoch], |r| r.get(0))?)
}

/// The user's last standing message in the conversation's current epoch: what a retry or an
/// edit replaces (with everything after it).
pub struct LastUserMessage {
    pub id: String,
    pub seq: i64,
    pub content: String,
}

pub fn last_user_message(conn: &Connection, conversation: &Conversation) -> Result<Option<LastUserMessage>> {
    Ok(conn
        .query_row(
            "SELECT id, seq, content FROM messages
             WHERE conversation_id = ?1 AND epoch = ?2 AND role = 'user' AND superseded_at IS NULL
             ORDER BY seq DESC LIMIT 1",
            params![conversation.id, conversation.epoch],
            |r| Ok(LastUserMessage { id: r.get(0)?, seq: r.get(1)?, content: r.get(2)? }),
        )
        .optional()?)
}

/// The conversation a message belongs to, with its agent.
pub fn message_thread(conn: &Connection, message_id: &str) -> Result<Option<(String, String)>> {
    Ok(conn
        .query_row(
            "SELECT c.id, c.agent_id FROM messages m JOIN conversations c ON c.id = m.conversation_id
             WHERE m.id = ?1 AND c.kind = 'direct'",
            [message_id],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()?)
}

/// Marks the user's and the agent's messages from `seq` on as replaced (kept; the search index
/// drops them by trigger). Returns their ids.
pub fn supersede_from(tx: &Transaction, conversation_id: &str, seq: i64, now: i64) -> Result<Vec<String>> {
    let mut stmt = tx.prepare_cached(
        "UPDATE messages SET superseded_at = ?3
         WHERE conversation_id = ?1 AND seq >= ?2 AND role != 'notice' AND superseded_at IS NULL
         RETURNING id",
    )?;
    let ids = stmt.query_map(params![conversation_id, seq, now], |r| r.get(0))?.collect::<rusqlite::Result<_>>()?;
    Ok(ids)
}

pub const RUN_COLUMNS: &str = "id, agent_id, runtime, status, error, started_at, finished_at, error_code";

/// A run row, its columns in [`RUN_COLUMNS`] order; its runtime, status and error code as
/// stored, for [`checked_run`] to read.
pub type RunRow = (String, String, Option<String>, RunSummary);

pub fn run_from_row(r: &Row<'_>) -> rusqlite::Result<RunRow> {
    let runtime: String = r.get(2)?;
    let status: String = r.get(3)?;
    Ok((
        runtime,
        status,
        r.get(7)?,
        RunSummary {
            id: r.get(0)?,
            agent_id: r.get(1)?,
            runtime: RuntimeKind::Native,
            status: RunStatus::Running,
            error: r.get(4)?,
            error_code: None,
            started_at: r.get(5)?,
            finished_at: r.get(6)?,
        },
    ))
}

pub fn checked_run((runtime, status, code, mut run): RunRow) -> Result<RunSummary> {
    run.runtime = RuntimeKind::parse(&runtime).ok_or_else(|| Error::Internal(format!("unknown runtime {runtime}")))?;
    run.status = RunStatus::parse(&status).ok_or_else(|| Error::Internal(format!("unknown run status {status}")))?;
    // A run that ended before codes were recorded has its code read from its message.
    run.error_code =
        code.as_deref().and_then(RunErrorCode::parse).or_else(|| RunErrorCode::of(run.status, run.error.as_deref()));
    Ok(run)
}

pub fn insert_run(tx: &Transaction, conversation: &Conversation, runtime: RuntimeKind, now: i64) -> Result<RunSummary> {
    let run = RunSummary {
        id: uuid::Uuid::new_v4().to_string(),
        agent_id: conversation.agent_id.clone(),
        runtime,
        status: RunStatus::Running,
        error: None,
        error_code: None,
        started_at: now,
        finished_at: None,
    };
    tx.prepare_cached(&format!(
        "INSERT INTO runs (conversation_id, {RUN_COLUMNS}) VALUES (?1, ?2, ?3, ?4, 'running', NULL, ?5, NULL, NULL)"
    ))?
    .execute(params![conversation.id, run.id, run.agent_id, runtime.as_str(), now])?;
    Ok(run)
}

pub fn finish_run(tx: &Transaction, run_id: &str, status: RunStatus, error: Option<&str>, now: i64) -> Result<()> {
    let code = RunErrorCode::of(status, error).map(RunErrorCode::as_str);
    tx.prepare_cached("UPDATE runs SET status = ?2, error = ?3, finished_at = ?4, error_code = ?5 WHERE id = ?1")?
        .execute(params![run_id, status.as_str(), error, now, code])?;
    Ok(())
}

pub fn run(conn: &Connection, run_id: &str) -> Result<Option<RunSummary>> {
    conn.prepare_cached(RUN_BY_ID_SQL)?.query_row([run_id], run_from_row).optional()?.map(checked_run).transpose()
}

/// The conversation's newest run: the only one that can still be going (one run at a time per
/// agent). One step down the (conversation_id, started_at) index; rowid orders runs started in
/// the same millisecond.
pub fn latest_run(conn: &Connection, conversation_id: &str) -> Result<Option<RunSummary>> {
    conn.prepare_cached(LATEST_RUN_SQL)?
        .query_row([conversation_id], run_from_row)
        .optional()?
        .map(checked_run)
        .transpose()
}

pub const LATEST_RUN_SQL: &str =
    "SELECT id, agent_id, runtime, status, error, started_at, finished_at, error_code FROM runs
     WHERE conversation_id = ?1 ORDER BY started_at DESC, rowid DESC LIMIT 1";

pub const RUN_BY_ID_SQL: &str =
    "SELECT id, agent_id, runtime, status, error, started_at, finished_at, error_code FROM runs WHERE id = ?1";

/// Runs left `running` by a previous process that stopped mid-run.
pub fn mark_interrupted(tx: &Transaction, now: i64) -> Result<Vec<String>> {
    let mut stmt = tx.prepare("SELECT id FROM runs WHERE status = 'running'")?;
    let ids: Vec<String> = stmt.query_map([], |r| r.get(0))?.collect::<rusqlite::Result<_>>()?;
    tx.prepare_cached(
        "UPDATE runs SET status = 'interrupted', finished_at = ?1, error_code = 'interrupted',
         error = 'Clawboo stopped while this run was in progress; it was cut off.'
         WHERE status = 'running'",
    )?
    .execute([now])?;
    Ok(ids)
}

// A run's events are the run layer's table; chat reads them for the Activity card.
pub use crate::run::store::events;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Store;

    /// SQLite's plan for `sql`, one step per line.
    fn plan(conn: &Connection, sql: &str, params: impl rusqlite::Params) -> String {
        let mut stmt = conn.prepare(&format!("EXPLAIN QUERY PLAN {sql}")).unwrap();
        let steps: Vec<String> = stmt.query_map(params, |r| r.get(3)).unwrap().map(|s| s.unwrap()).collect();
        steps.join("\n")
    }

    #[test]
    fn a_blank_carried_text_is_carried_empty_and_the_rest_as_written() {
        let row = |seq, role: &str, content: &str| CarriedRow {
            seq,
            role: role.into(),
            content: content.into(),
            carried: None,
            run_id: None,
        };
        let rows = vec![
            row(1, "user", " \n\t"),
            row(2, "assistant", "  answer \n"),
            row(3, "user", "question"),
            row(4, "assistant", "\n\n"),
        ];
        let (mut turns, mut pending) = (Vec::new(), None);
        pair_carried(rows, &mut turns, &mut pending);
        let texts: Vec<_> = turns.iter().map(|t| (&*t.user, &*t.assistant)).collect();
        assert_eq!(texts, [("", "  answer \n"), ("question", "")]);
    }

    #[test]
    fn a_page_and_its_runs_are_read_through_indexes_only() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("clawboo.db")).unwrap();
        store
            .read(|c| {
                let page = plan(c, PAGE_SQL, params!["c", 10, 51]);
                assert!(page.contains("SEARCH messages USING INDEX") && page.contains("seq<?"), "{page}");
                assert!(!page.contains("TEMP B-TREE"), "no sort: the index gives the order\n{page}");
                let latest = plan(c, LATEST_RUN_SQL, ["c"]);
                assert!(latest.contains("SEARCH runs USING INDEX runs_by_conversation"), "{latest}");
                assert!(!latest.contains("TEMP B-TREE"), "{latest}");
                let by_id = plan(c, RUN_BY_ID_SQL, ["r"]);
                assert!(by_id.contains("SEARCH runs USING INDEX sqlite_autoindex_runs_1 (id=?)"), "{by_id}");
                let next_seq =
                    plan(c, "SELECT COALESCE(MAX(seq), 0) + 1 FROM messages WHERE conversation_id = ?1", ["c"]);
                assert!(next_seq.contains("USING COVERING INDEX"), "{next_seq}");
                Ok(())
            })
            .unwrap();
    }
}
