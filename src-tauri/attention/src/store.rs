//! Attention's rows: requests (with their source's names joined in), grants, the audit and the
//! expiry setting.

use rusqlite::{params, Connection, OptionalExtension, Row, Transaction};

use super::shell;
use super::types::{
    AttentionRequest, AttentionSettings, AuditAction, AuditEntry, Decision, Grant, Origin, RequestKind, RequestStatus,
    Source, MAX_EXPIRY_HOURS,
};
use clawboo_vocab::error::{Error, Result};

const SELECT: &str = "SELECT r.id, r.kind, r.status, r.origin, r.agent_id, r.agent_name, r.agent_handle,
        r.team_id, t.name, r.room_id, rm.name, r.run_id, r.card_id, c.number, c.title, r.message_id,
        r.text, r.tool, r.input, r.promotion_id, r.created_at, r.expires_at, r.decision, r.answer,
        r.answered_at, r.runtime_request_id, r.command_prefix
    FROM attention_requests r
    LEFT JOIN teams t ON t.id = r.team_id
    LEFT JOIN rooms rm ON rm.id = r.room_id
    LEFT JOIN cards c ON c.id = r.card_id";

fn request_from_row(r: &Row<'_>) -> rusqlite::Result<AttentionRequest> {
    let kind = RequestKind::parse(&r.get::<_, String>(1)?);
    let tool: Option<String> = r.get(17)?;
    let command_prefix: Option<String> = r.get(26)?;
    Ok(AttentionRequest {
        allow_always: offers_allow_always(kind, tool.as_deref(), command_prefix.as_deref()),
        id: r.get(0)?,
        kind,
        status: RequestStatus::parse(&r.get::<_, String>(2)?),
        origin: Origin::parse(&r.get::<_, String>(3)?),
        agent_id: r.get(4)?,
        agent_name: r.get(5)?,
        agent_handle: r.get(6)?,
        team_id: r.get(7)?,
        team_name: r.get(8)?,
        room_id: r.get(9)?,
        room_name: r.get(10)?,
        run_id: r.get(11)?,
        card_id: r.get(12)?,
        card_number: r.get(13)?,
        card_title: r.get(14)?,
        message_id: r.get(15)?,
        text: r.get(16)?,
        tool,
        input: r.get(18)?,
        promotion_id: r.get(19)?,
        created_at: r.get(20)?,
        expires_at: r.get(21)?,
        decision: r.get::<_, Option<String>>(22)?.as_deref().and_then(Decision::parse),
        answer: r.get(23)?,
        answered_at: r.get(24)?,
        runtime_request_id: r.get(25)?,
        command_prefix,
    })
}

/// Whether "Allow always" is offered for a request: a permission (a shell tool's only with a
/// prefix to grant) or a promotion.
fn offers_allow_always(kind: RequestKind, tool: Option<&str>, command_prefix: Option<&str>) -> bool {
    match (kind, tool) {
        (RequestKind::Permission, Some(tool)) => !shell::is_shell_tool(tool) || command_prefix.is_some(),
        (RequestKind::Promotion, Some(_)) => true,
        _ => false,
    }
}

/// What a new request holds besides its source.
pub struct NewRequest<'a> {
    pub id: &'a str,
    pub kind: RequestKind,
    pub agent_name: &'a str,
    pub agent_handle: &'a str,
    pub text: &'a str,
    pub tool: Option<&'a str>,
    pub input: Option<&'a str>,
    pub runtime_request_id: Option<&'a str>,
    pub promotion_id: Option<&'a str>,
    pub command_prefix: Option<&'a str>,
    pub created_at: i64,
    pub expires_at: Option<i64>,
}

pub fn insert(tx: &Transaction, source: &Source, new: &NewRequest<'_>) -> Result<()> {
    tx.prepare_cached(
        "INSERT INTO attention_requests (id, kind, status, origin, agent_id, agent_name, agent_handle, team_id,
             room_id, run_id, card_id, message_id, text, tool, input, runtime_request_id, promotion_id,
             created_at, expires_at, command_prefix)
         VALUES (?1, ?2, 'open', ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19)",
    )?
    .execute(params![
        new.id,
        new.kind.as_str(),
        source.origin().as_str(),
        source.agent_id,
        new.agent_name,
        new.agent_handle,
        source.team_id,
        source.room_id,
        source.run_id,
        source.card_id,
        source.message_id,
        new.text,
        new.tool,
        new.input,
        new.runtime_request_id,
        new.promotion_id,
        new.created_at,
        new.expires_at,
        new.command_prefix,
    ])?;
    Ok(())
}

pub fn get(conn: &Connection, id: &str) -> Result<AttentionRequest> {
    conn.prepare_cached(&format!("{SELECT} WHERE r.id = ?1"))?
        .query_row([id], request_from_row)
        .optional()?
        .ok_or_else(|| Error::NotFound(format!("Attention request {id}")))
}

/// Open requests, newest first.
pub fn open(conn: &Connection) -> Result<Vec<AttentionRequest>> {
    let mut stmt =
        conn.prepare_cached(&format!("{SELECT} WHERE r.status = 'open' ORDER BY r.created_at DESC, r.rowid DESC"))?;
    let rows = stmt.query_map([], request_from_row)?.collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(rows)
}

/// Every request, newest first, `limit` at most, after request `before` in that order when
/// given (a cursor: requests made in the same millisecond are neither skipped nor repeated).
pub fn history(conn: &Connection, before: Option<&str>, limit: u32) -> Result<Vec<AttentionRequest>> {
    let cursor: Option<(i64, i64)> = match before {
        None => None,
        Some(id) => Some(
            conn.prepare_cached("SELECT created_at, rowid FROM attention_requests WHERE id = ?1")?
                .query_row([id], |r| Ok((r.get(0)?, r.get(1)?)))
                .optional()?
                .ok_or_else(|| Error::NotFound(format!("Attention request {id}")))?,
        ),
    };
    let mut stmt = conn.prepare_cached(&format!(
        "{SELECT} WHERE ?1 IS NULL OR (r.created_at, r.rowid) < (?1, ?2)
         ORDER BY r.created_at DESC, r.rowid DESC LIMIT ?3"
    ))?;
    let (at, rowid) = cursor.unzip();
    let rows = stmt.query_map(params![at, rowid, limit], request_from_row)?.collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(rows)
}

/// The open requests matching `filter` (a SQL condition on `r`, with `?1` bound to `arg`).
pub fn open_where(conn: &Connection, filter: &str, arg: &str) -> Result<Vec<AttentionRequest>> {
    let mut stmt =
        conn.prepare_cached(&format!("{SELECT} WHERE r.status = 'open' AND {filter} ORDER BY r.created_at"))?;
    let rows = stmt.query_map([arg], request_from_row)?.collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(rows)
}

/// The open approval a runtime asked with `runtime_request_id` in run `run_id`.
pub fn find_by_runtime_request(conn: &Connection, run_id: &str, runtime_request_id: &str) -> Result<Option<String>> {
    Ok(conn
        .query_row(
            "SELECT id FROM attention_requests WHERE run_id = ?1 AND runtime_request_id = ?2
             ORDER BY created_at DESC LIMIT 1",
            [run_id, runtime_request_id],
            |r| r.get(0),
        )
        .optional()?)
}

/// The open approval that asks for `promotion_id`.
pub fn find_by_promotion(conn: &Connection, promotion_id: &str) -> Result<Option<String>> {
    Ok(conn
        .query_row(
            "SELECT id FROM attention_requests WHERE promotion_id = ?1 AND status = 'open' LIMIT 1",
            [promotion_id],
            |r| r.get(0),
        )
        .optional()?)
}

/// Closes an open request; false when it was no longer open (someone else closed it first).
pub fn close(
    tx: &Transaction,
    id: &str,
    status: RequestStatus,
    decision: Option<Decision>,
    answer: Option<&str>,
    at: i64,
) -> Result<bool> {
    let changed = tx
        .prepare_cached(
            "UPDATE attention_requests SET status = ?2, decision = ?3, answer = ?4, answered_at = ?5
         WHERE id = ?1 AND status = 'open'",
        )?
        .execute(params![id, status.as_str(), decision.map(Decision::as_str), answer, at])?;
    Ok(changed == 1)
}

pub fn audit(
    tx: &Transaction,
    at: i64,
    request_id: Option<&str>,
    actor: &str,
    action: AuditAction,
    detail: &str,
) -> Result<()> {
    tx.prepare_cached(
        "INSERT INTO attention_audit (at, request_id, actor, action, detail) VALUES (?1, ?2, ?3, ?4, ?5)",
    )?
    .execute(params![at, request_id, actor, action.as_str(), detail])?;
    Ok(())
}

/// The audit, newest first; of one request when `request_id` is given.
pub fn audit_page(
    conn: &Connection,
    request_id: Option<&str>,
    before: Option<i64>,
    limit: u32,
) -> Result<Vec<AuditEntry>> {
    let mut stmt = conn.prepare_cached(
        "SELECT seq, at, request_id, actor, action, detail FROM attention_audit
         WHERE (?1 IS NULL OR request_id = ?1) AND (?2 IS NULL OR seq < ?2)
         ORDER BY seq DESC LIMIT ?3",
    )?;
    let rows = stmt
        .query_map(params![request_id, before, limit], |r| {
            Ok(AuditEntry {
                seq: r.get(0)?,
                at: r.get(1)?,
                request_id: r.get(2)?,
                actor: r.get(3)?,
                action: AuditAction::parse(&r.get::<_, String>(4)?),
                detail: r.get(5)?,
            })
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(rows)
}

pub fn grants(conn: &Connection) -> Result<Vec<Grant>> {
    let mut stmt = conn.prepare_cached(
        "SELECT g.id, g.agent_id, a.name, g.tool, NULLIF(g.command_prefix, ''), g.request_id, g.created_at
         FROM attention_grants g JOIN agents a ON a.id = g.agent_id ORDER BY g.created_at DESC",
    )?;
    let rows = stmt
        .query_map([], |r| {
            Ok(Grant {
                id: r.get(0)?,
                agent_id: r.get(1)?,
                agent_name: r.get(2)?,
                tool: r.get(3)?,
                command_prefix: r.get(4)?,
                request_id: r.get(5)?,
                created_at: r.get(6)?,
            })
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(rows)
}

/// Whether agent `agent_id` may use `tool` without asking: a whole-tool grant for a tool that
/// is no shell; for a shell tool, a grant of a prefix that lets `input`'s command through.
pub fn is_granted(conn: &Connection, agent_id: &str, tool: &str, input: Option<&serde_json::Value>) -> Result<bool> {
    Ok(granting(conn, agent_id, tool, input)?.is_some())
}

/// The grant that lets agent `agent_id` use `tool` with `input` without asking: `Some(None)`
/// for a whole-tool grant (never of a shell tool), `Some(Some(prefix))` for a shell grant whose
/// prefix lets the command through, `None` when none does.
pub fn granting(
    conn: &Connection,
    agent_id: &str,
    tool: &str,
    input: Option<&serde_json::Value>,
) -> Result<Option<Option<String>>> {
    if !shell::is_shell_tool(tool) {
        let whole = conn
            .query_row(
                "SELECT 1 FROM attention_grants WHERE agent_id = ?1 AND tool = ?2 AND command_prefix = ''",
                [agent_id, tool],
                |_| Ok(()),
            )
            .optional()?;
        return Ok(whole.map(|()| None));
    }
    let Some(command) = input.and_then(shell::command_of) else { return Ok(None) };
    let mut stmt = conn.prepare_cached(
        "SELECT command_prefix FROM attention_grants WHERE agent_id = ?1 AND tool = ?2 AND command_prefix <> ''
         ORDER BY created_at",
    )?;
    let prefixes =
        stmt.query_map([agent_id, tool], |r| r.get::<_, String>(0))?.collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(prefixes.into_iter().find(|prefix| shell::allows(prefix, command)).map(Some))
}

/// Grants `tool` to `agent_id` from now on: whole (`command_prefix` None, never for a shell
/// tool) or the commands starting with `command_prefix`.
pub fn add_grant(
    tx: &Transaction,
    id: &str,
    agent_id: &str,
    tool: &str,
    command_prefix: Option<&str>,
    request_id: &str,
    at: i64,
) -> Result<()> {
    if shell::is_shell_tool(tool) && command_prefix.is_none_or(|p| p.trim().is_empty()) {
        return Err(Error::InvalidInput(format!("{tool} runs shell commands: it is never allowed whole.")));
    }
    tx.prepare_cached(
        "INSERT INTO attention_grants (id, agent_id, tool, command_prefix, request_id, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)
         ON CONFLICT (agent_id, tool, command_prefix) DO NOTHING",
    )?
    .execute(params![id, agent_id, tool, command_prefix.unwrap_or_default(), request_id, at])?;
    Ok(())
}

/// Removes grant `id`, returning its agent, tool and command prefix.
pub fn remove_grant(tx: &Transaction, id: &str) -> Result<(String, String, Option<String>)> {
    let found: Option<(String, String, Option<String>)> = tx
        .query_row("SELECT agent_id, tool, NULLIF(command_prefix, '') FROM attention_grants WHERE id = ?1", [id], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?))
        })
        .optional()?;
    let found = found.ok_or_else(|| Error::NotFound(format!("Grant {id}")))?;
    tx.prepare_cached("DELETE FROM attention_grants WHERE id = ?1")?.execute([id])?;
    Ok(found)
}

const EXPIRY_KEY: &str = "attention.approval_expiry_hours";

pub fn settings(conn: &Connection) -> Result<AttentionSettings> {
    let hours = clawboo_store::store::settings::get(conn, EXPIRY_KEY)?
        .and_then(|v| v.parse::<u32>().ok())
        .filter(|h| (1..=MAX_EXPIRY_HOURS).contains(h))
        .unwrap_or(AttentionSettings::default().approval_expiry_hours);
    Ok(AttentionSettings { approval_expiry_hours: hours })
}

pub fn put_settings(tx: &Transaction, settings: &AttentionSettings) -> Result<()> {
    clawboo_store::store::settings::put(tx, EXPIRY_KEY, Some(&settings.approval_expiry_hours.to_string()))
}

#[cfg(test)]
mod tests {
    use rusqlite::Connection;

    use clawboo_store::store::migrations::{migrate, MIGRATIONS};

    #[test]
    fn the_migration_drops_whole_shell_grants_and_keeps_the_others_whole() {
        let mut conn = Connection::open_in_memory().unwrap();
        let before = MIGRATIONS.iter().position(|m| m.version == 18).unwrap();
        migrate(&mut conn, &MIGRATIONS[..before]).unwrap();
        conn.execute_batch(
            "INSERT INTO agents (id, name, handle, tint, runtime, created_at, updated_at)
                 VALUES ('a1', 'Ada', 'ada', '#000', 'claude-code', 0, 0);
             INSERT INTO attention_grants (id, agent_id, tool, request_id, created_at) VALUES
                 ('g1', 'a1', 'Bash', 'r1', 1), ('g2', 'a1', 'Write', 'r2', 2), ('g3', 'a1', 'exec', NULL, 3),
                 ('g4', 'a1', 'scratch_promote', NULL, 4);",
        )
        .unwrap();
        migrate(&mut conn, MIGRATIONS).unwrap();

        let grants = super::grants(&conn).unwrap();
        let kept: Vec<(&str, &str, Option<&str>)> =
            grants.iter().map(|g| (g.id.as_str(), g.tool.as_str(), g.command_prefix.as_deref())).collect();
        assert_eq!(kept, [("g4", "scratch_promote", None), ("g2", "Write", None)]);
        let audit = super::audit_page(&conn, None, None, 10).unwrap();
        let lines: Vec<(&str, &str)> = audit.iter().map(|a| (a.actor.as_str(), a.detail.as_str())).collect();
        assert_eq!(lines.len(), 2, "{lines:?}");
        assert!(lines.iter().all(|(actor, _)| *actor == "clawboo"));
        assert!(lines.iter().any(|(_, d)| d.starts_with("@ada must ask again before using Bash: ")), "{lines:?}");
        assert!(lines.iter().any(|(_, d)| d.starts_with("@ada must ask again before using exec: ")), "{lines:?}");
        assert!(audit.iter().all(|a| a.action == super::AuditAction::GrantRevoked));
        // And the Bash grant that was dropped does not let anything through.
        let input = serde_json::json!({"command": "git status"});
        assert!(!super::is_granted(&conn, "a1", "Bash", Some(&input)).unwrap());
        assert!(super::is_granted(&conn, "a1", "Write", None).unwrap());
    }
}
