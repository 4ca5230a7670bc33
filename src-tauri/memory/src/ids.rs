//! Short ids (`m-7f3a`) that are never issued twice: every id ever issued is kept in
//! `memory_ids`, whatever happens to what it named later.

use rusqlite::Transaction;

use clawboo_vocab::error::{Error, Result};

/// Ids start with this many hex digits and grow by one after `TRIES_PER_LENGTH` collisions.
const START_HEX: usize = 4;
const TRIES_PER_LENGTH: usize = 3;
const MAX_HEX: usize = 16;

/// Fact, saved note, scratch note and promotion ids.
pub(super) const FACT: &str = "m";
pub(super) const NOTE: &str = "n";
pub(super) const SCRATCH: &str = "s";
pub(super) const PROMOTION: &str = "p";

/// A new id `{prefix}-{hex}`, recorded as issued in the same transaction.
pub(super) fn issue(tx: &Transaction, prefix: &str) -> Result<String> {
    issue_with(tx, prefix, &mut random)
}

fn random() -> u64 {
    let bytes = uuid::Uuid::new_v4().into_bytes();
    u64::from_le_bytes(bytes[..8].try_into().unwrap_or_default())
}

/// `issue` with the randomness given (tests script collisions).
pub(super) fn issue_with(tx: &Transaction, prefix: &str, next: &mut dyn FnMut() -> u64) -> Result<String> {
    let mut insert = tx.prepare_cached("INSERT OR IGNORE INTO memory_ids (id) VALUES (?1)")?;
    for digits in START_HEX..=MAX_HEX {
        for _ in 0..TRIES_PER_LENGTH {
            let value = if digits == 16 { next() } else { next() % (1u64 << (4 * digits)) };
            let id = format!("{prefix}-{value:0digits$x}");
            if insert.execute([&id])? == 1 {
                return Ok(id);
            }
        }
    }
    Err(Error::Internal("could not issue a new memory id".into()))
}

#[cfg(test)]
mod tests {
    use rusqlite::Connection;

    use super::*;

    fn db() -> Connection {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch("CREATE TABLE memory_ids (id TEXT PRIMARY KEY) WITHOUT ROWID;").unwrap();
        conn
    }

    #[test]
    fn collisions_retry_then_grow_the_id() {
        let mut conn = db();
        let tx = conn.transaction().unwrap();
        let mut always_zero = || 0u64;
        assert_eq!(issue_with(&tx, FACT, &mut always_zero).unwrap(), "m-0000");
        // 0000 is taken: three tries at four digits collide, so the id grows.
        assert_eq!(issue_with(&tx, FACT, &mut always_zero).unwrap(), "m-00000");
        assert_eq!(issue_with(&tx, FACT, &mut always_zero).unwrap(), "m-000000");
        let mut scripted = [0u64, 0, 0x7f3a].into_iter();
        let mut next = move || scripted.next().unwrap_or(1);
        assert_eq!(issue_with(&tx, FACT, &mut next).unwrap(), "m-7f3a", "a retry at the same length first");
        assert_eq!(issue_with(&tx, NOTE, &mut always_zero).unwrap(), "n-0000", "prefixes are separate");
    }

    #[test]
    fn random_ids_are_four_lowercase_hex_digits() {
        let mut conn = db();
        let tx = conn.transaction().unwrap();
        let id = issue(&tx, FACT).unwrap();
        assert_eq!(id.len(), 6, "{id}");
        assert!(id[2..].chars().all(|c| c.is_ascii_digit() || ('a'..='f').contains(&c)), "{id}");
    }
}
