//! Search: any text becomes a safe FTS5 query (never raw MATCH syntax), ranked by `bm25()`,
//! plus related facts (see the module doc of `memory` for what "related" means).

use std::collections::{HashMap, HashSet};

use rusqlite::{named_params, Connection};

use super::store::{self, fact_from_row_at, FACT_COLUMNS, VISIBLE};
use super::types::{Fact, FactFilter, SearchHit, SearchResult, MAX_RELATED};
use crate::error::Result;

/// A query uses at most this many distinct words (a 10 KB paste stays a bounded query).
pub(super) const MAX_QUERY_WORDS: usize = 32;
/// bm25 weights: a word in the text counts more than the same word as a tag.
const RANK: &str = "bm25(memory_fts, 4.0, 1.0)";

/// The words of `query` (runs of Unicode letters and digits), each quoted as an FTS5 string
/// and joined with OR, so every character of FTS5's syntax (`"`, `*`, `^`, `:`, `(`, `NEAR`,
/// `AND`…) is either dropped or a plain word. `prefix_last`: the last word also matches as a
/// prefix (search as you type). `None` when there is no word.
pub(super) fn match_expression(query: &str, prefix_last: bool) -> Option<String> {
    let mut words: Vec<String> = Vec::new();
    for word in query.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()) {
        let word = word.to_lowercase();
        if !words.contains(&word) {
            words.push(word);
            if words.len() == MAX_QUERY_WORDS {
                break;
            }
        }
    }
    let typing = prefix_last && query.ends_with(char::is_alphanumeric);
    let count = words.len();
    let terms: Vec<String> = words
        .into_iter()
        .enumerate()
        .map(|(i, w)| if typing && i + 1 == count { format!("\"{w}\"*") } else { format!("\"{w}\"") })
        .collect();
    (!terms.is_empty()).then(|| terms.join(" OR "))
}

/// Up to `limit` live facts `viewer` may read (all when `None`) matching `expr`, best first,
/// with their seq and bm25.
fn ranked(conn: &Connection, expr: &str, viewer: Option<&str>, limit: usize) -> Result<Vec<(i64, f64, Fact)>> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT f.seq, {RANK} AS score, {FACT_COLUMNS}
         FROM memory_fts JOIN memory_facts f ON f.seq = memory_fts.rowid
         WHERE memory_fts MATCH :expr AND f.deleted = 0 AND {VISIBLE}
         ORDER BY score, f.created_at DESC, f.seq DESC LIMIT :limit"
    ))?;
    let rows = stmt.query_map(named_params! {":expr": expr, ":viewer": viewer, ":limit": limit as i64}, |r| {
        Ok((r.get(0)?, r.get(1)?, fact_from_row_at(r, 2)?))
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

pub(super) fn search(conn: &Connection, query: &str, viewer: Option<&str>, top: usize) -> Result<SearchResult> {
    let Some(expr) = match_expression(query, false) else { return Ok(SearchResult::default()) };
    if top == 0 {
        return Ok(SearchResult::default());
    }
    // The next best text neighbours come along for the fallback.
    let mut hits = ranked(conn, &expr, viewer, top + MAX_RELATED)?;
    let neighbours = hits.split_off(hits.len().min(top));
    let top_seqs: HashSet<i64> = hits.iter().map(|h| h.0).collect();
    let tags: Vec<&str> = {
        let mut tags: Vec<&str> = hits.iter().flat_map(|h| h.2.tags.iter().map(String::as_str)).collect();
        tags.sort_unstable();
        tags.dedup();
        tags
    };
    let mut related = sharing_tags(conn, &expr, viewer, &tags, &top_seqs)?;
    for (seq, score, fact) in neighbours {
        if related.len() == MAX_RELATED {
            break;
        }
        if !related.iter().any(|(s, _)| *s == seq) {
            related.push((seq, SearchHit { fact, score }));
        }
    }
    Ok(SearchResult {
        top: hits.into_iter().map(|(_, score, fact)| SearchHit { fact, score }).collect(),
        related: related.into_iter().map(|(_, hit)| hit).collect(),
    })
}

/// Up to `MAX_RELATED` visible live facts outside `exclude` sharing the most of `tags`; ties:
/// the better bm25 for `expr` (a fact that does not match it ranks after those that do), then
/// the newest. Each hit's score is the number of tags it shares.
fn sharing_tags(
    conn: &Connection,
    expr: &str,
    viewer: Option<&str>,
    tags: &[&str],
    exclude: &HashSet<i64>,
) -> Result<Vec<(i64, SearchHit)>> {
    if tags.is_empty() {
        return Ok(Vec::new());
    }
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT t.seq, COUNT(*) AS shared, f.created_at
         FROM memory_fact_tags t JOIN memory_facts f ON f.seq = t.seq
         WHERE t.tag IN (SELECT value FROM json_each(:tags)) AND f.deleted = 0 AND {VISIBLE}
         GROUP BY t.seq"
    ))?;
    let rows = stmt.query_map(named_params! {":tags": store::to_json(&tags)?, ":viewer": viewer}, |r| {
        Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?, r.get::<_, i64>(2)?))
    })?;
    let mut candidates: Vec<(i64, i64, i64)> = rows
        .filter(|r| r.as_ref().map_or(true, |(seq, ..)| !exclude.contains(seq)))
        .collect::<rusqlite::Result<_>>()?;
    if candidates.is_empty() {
        return Ok(Vec::new());
    }
    candidates.sort_unstable_by_key(|c| std::cmp::Reverse(c.1));
    // Only the candidates tied with the last one chosen need their text rank.
    let cutoff = candidates[candidates.len().min(MAX_RELATED) - 1].1;
    candidates.retain(|c| c.1 >= cutoff);
    let scores = if candidates.len() > MAX_RELATED { text_scores(conn, expr, &candidates)? } else { HashMap::new() };
    let rank = |seq: &i64| scores.get(seq).copied().unwrap_or(f64::INFINITY);
    candidates
        .sort_by(|a, b| b.1.cmp(&a.1).then(rank(&a.0).total_cmp(&rank(&b.0))).then(b.2.cmp(&a.2)).then(b.0.cmp(&a.0)));
    candidates
        .into_iter()
        .take(MAX_RELATED)
        .map(|(seq, shared, _)| Ok((seq, SearchHit { fact: store::by_seq(conn, seq)?, score: shared as f64 })))
        .collect()
}

/// bm25 for `expr` of those of `candidates` that match it.
fn text_scores(conn: &Connection, expr: &str, candidates: &[(i64, i64, i64)]) -> Result<HashMap<i64, f64>> {
    let seqs: Vec<i64> = candidates.iter().map(|c| c.0).collect();
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT rowid, {RANK} FROM memory_fts
         WHERE memory_fts MATCH :expr AND rowid IN (SELECT value FROM json_each(:seqs))"
    ))?;
    let rows =
        stmt.query_map(named_params! {":expr": expr, ":seqs": store::to_json(&seqs)?}, |r| Ok((r.get(0)?, r.get(1)?)))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The Memory view's list: best first for a query (the last word as a prefix), else newest first.
pub(super) fn list(conn: &Connection, filter: &FactFilter, limit: usize) -> Result<Vec<Fact>> {
    let expr = filter.query.as_deref().and_then(|q| match_expression(q, true));
    let (scope_kind, scope_id) = match &filter.scope {
        Some(scope) => {
            let (kind, id) = store::scope_parts(scope);
            (Some(kind), Some(id))
        }
        None => (None, None),
    };
    let author = filter.author.as_deref().map(str::trim).filter(|a| !a.is_empty());
    let conditions = "(:deleted OR f.deleted = 0)
         AND (:kind IS NULL OR (f.scope_kind = :kind AND f.scope_id = :scope))
         AND (:author IS NULL OR (:author = 'user' AND f.author_agent IS NULL) OR f.author_agent = :author)";
    let sql = match expr {
        Some(_) => format!(
            "SELECT {FACT_COLUMNS} FROM memory_fts JOIN memory_facts f ON f.seq = memory_fts.rowid
             WHERE memory_fts MATCH :expr AND {conditions}
             ORDER BY {RANK}, f.created_at DESC, f.seq DESC LIMIT :limit"
        ),
        None => format!(
            "SELECT {FACT_COLUMNS} FROM memory_facts f WHERE :expr IS NULL AND {conditions}
             ORDER BY f.created_at DESC, f.seq DESC LIMIT :limit"
        ),
    };
    if filter.query.as_deref().is_some_and(|q| !q.trim().is_empty()) && expr.is_none() {
        return Ok(Vec::new()); // only punctuation: nothing matches
    }
    let mut stmt = conn.prepare_cached(&sql)?;
    let rows = stmt.query_map(
        named_params! {
            ":expr": expr,
            ":deleted": filter.include_deleted,
            ":kind": scope_kind,
            ":scope": scope_id,
            ":author": author,
            ":limit": limit as i64,
        },
        store::fact_from_row,
    )?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queries_become_quoted_words_joined_with_or() {
        assert_eq!(
            match_expression("Deploy the  staging-server!", false).unwrap(),
            r#""deploy" OR "the" OR "staging" OR "server""#
        );
        assert_eq!(
            match_expression(r#"a"b* NEAR(c d) col:e ^f AND OR NOT"#, false).unwrap(),
            r#""a" OR "b" OR "near" OR "c" OR "d" OR "col" OR "e" OR "f" OR "and" OR "or" OR "not""#
        );
        assert_eq!(match_expression("café 東京 😀", false).unwrap(), r#""café" OR "東京""#);
        assert_eq!(match_expression("deploy depl", true).unwrap(), r#""deploy" OR "depl"*"#);
        assert_eq!(match_expression("deploy ", true).unwrap(), r#""deploy""#);
        assert_eq!(match_expression("  \"*()^:  ", false), None);
        assert_eq!(match_expression("", false), None);
        let long: String = (0..2_000).map(|i| format!("w{i} ")).collect();
        assert_eq!(match_expression(&long, false).unwrap().matches(" OR ").count(), MAX_QUERY_WORDS - 1);
    }
}
