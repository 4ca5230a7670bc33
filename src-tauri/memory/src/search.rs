//! Search: any text becomes a safe FTS5 query (never raw MATCH syntax), ranked by `bm25()`,
//! plus related facts (see the module doc of `memory` for what "related" means).

use std::collections::{HashMap, HashSet};

use rusqlite::{named_params, Connection, OptionalExtension};

use super::store::{self, FACT_COLUMNS, VISIBLE};
use super::types::{Fact, FactFilter, SearchHit, SearchResult, MAX_RELATED};
use clawboo_vocab::error::Result;

/// A query uses at most this many distinct words (a 10 KB paste stays a bounded query).
pub(super) const MAX_QUERY_WORDS: usize = 32;
/// A search keeps a query's rarest words while the facts they are in add up to at most this
/// many (always at least one word): the commonest words ("the", a team's name) add little to
/// bm25, which weighs a word by how rare it is, but would make most facts matches to rank.
const MAX_MATCHED_FACTS: i64 = 1_500;
/// Likewise for related facts: the top hits' rarest tags, while the facts carrying them add up
/// to at most this many (a tag on a fifth of all facts says little about relatedness).
const MAX_TAGGED_FACTS: i64 = 3_000;
/// Related facts in a tie prefer the better text rank among this many best matches.
const RANKED_FOR_RELATED: usize = 100;
/// bm25 weights: a word in the text counts more than the same word as a tag.
const RANK: &str = "bm25(memory_fts, 4.0, 1.0)";

/// Runs of Unicode letters and digits, lowercased, distinct, in order.
fn words_of(text: &str, limit: usize, words: &mut Vec<String>) {
    for word in text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()) {
        if words.len() == limit {
            return;
        }
        let word = word.to_lowercase();
        if !words.contains(&word) {
            words.push(word);
        }
    }
}

/// The words a fact is found by (its text's and its tags'), for the counts of facts per word.
pub(super) fn fact_words(fact: &Fact) -> Vec<String> {
    let mut words = Vec::new();
    words_of(&fact.text, usize::MAX, &mut words);
    for tag in &fact.tags {
        words_of(tag, usize::MAX, &mut words);
    }
    words
}

/// The distinct words of `query`, at most `MAX_QUERY_WORDS`.
fn query_words(query: &str) -> Vec<String> {
    let mut words = Vec::new();
    words_of(query, MAX_QUERY_WORDS, &mut words);
    words
}

/// Each word quoted as an FTS5 string, joined with OR, so every character of FTS5's syntax
/// (`"`, `*`, `^`, `:`, `(`, `NEAR`, `AND`…) is either dropped or a plain word. `prefix`: the
/// last word also matches as a prefix (search as you type). `None` when there is no word.
fn expression(words: &[String], prefix: bool) -> Option<String> {
    let terms: Vec<String> = words
        .iter()
        .enumerate()
        .map(|(i, w)| if prefix && i + 1 == words.len() { format!("\"{w}\"*") } else { format!("\"{w}\"") })
        .collect();
    (!terms.is_empty()).then(|| terms.join(" OR "))
}

/// The FTS5 query for any text (every word of it; searches use `focused_expression`).
#[cfg(test)]
pub(super) fn match_expression(query: &str, prefix_last: bool) -> Option<String> {
    expression(&query_words(query), prefix_last && query.ends_with(char::is_alphanumeric))
}

/// The rarest of `terms` while the facts having them add up to at most `budget`, and always
/// the rarest one some fact has. Terms no fact has cost nothing and stay (a query word may
/// still match differently spelled: "cafe" finds "café").
fn rarest(conn: &Connection, kind: &str, terms: Vec<String>, budget: i64) -> Result<Vec<String>> {
    let counts = store::term_counts(conn, kind, &terms)?;
    let mut counted: Vec<(i64, String)> = counts.into_iter().zip(terms).collect();
    counted.sort_by_key(|(facts, _)| *facts);
    let mut kept = Vec::new();
    let mut total = 0;
    for (facts, term) in counted {
        if total > 0 && total + facts > budget {
            break;
        }
        total += facts;
        kept.push(term);
    }
    Ok(kept)
}

/// The query's words without its commonest ones (see `MAX_MATCHED_FACTS`). `prefix_last`: the
/// last word, being typed, is kept and matched as a prefix.
fn focused_expression(conn: &Connection, query: &str, prefix_last: bool) -> Result<Option<String>> {
    let mut words = query_words(query);
    let typing = prefix_last && query.ends_with(char::is_alphanumeric);
    let typed = if typing { words.pop() } else { None };
    let mut kept = rarest(conn, "word", words, MAX_MATCHED_FACTS)?;
    kept.extend(typed);
    Ok(expression(&kept, typing))
}

/// Up to `limit` live facts `viewer` may read (all when `None`) matching `expr`, best first:
/// their seq and bm25.
fn ranked(conn: &Connection, expr: &str, viewer: Option<&str>, limit: usize) -> Result<Vec<(i64, f64)>> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT f.seq, {RANK} AS score
         FROM memory_fts JOIN memory_facts f ON f.seq = memory_fts.rowid
         WHERE memory_fts MATCH :expr AND f.deleted = 0 AND {VISIBLE}
         ORDER BY score, f.seq DESC LIMIT :limit"
    ))?;
    let rows = stmt.query_map(named_params! {":expr": expr, ":viewer": viewer, ":limit": limit as i64}, |r| {
        Ok((r.get(0)?, r.get(1)?))
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

pub(super) fn search(conn: &Connection, query: &str, viewer: Option<&str>, top: usize) -> Result<SearchResult> {
    let Some(expr) = focused_expression(conn, query, false)? else { return Ok(SearchResult::default()) };
    if top == 0 {
        return Ok(SearchResult::default());
    }
    let mut best = ranked(conn, &expr, viewer, top + RANKED_FOR_RELATED)?;
    let rest = best.split_off(best.len().min(top));
    let hits: Vec<SearchHit> = best
        .iter()
        .map(|&(seq, score)| Ok(SearchHit { fact: store::by_seq(conn, seq)?, score }))
        .collect::<Result<_>>()?;
    let mut tags: Vec<String> = hits.iter().flat_map(|h| h.fact.tags.iter().cloned()).collect();
    tags.sort_unstable();
    tags.dedup();
    let tags = rarest(conn, "tag", tags, MAX_TAGGED_FACTS)?;
    let top_seqs: HashSet<i64> = best.iter().map(|b| b.0).collect();
    let mut related = sharing_tags(conn, viewer, &tags, &top_seqs, &rest)?;
    // Slots left go to the next best text neighbours.
    for &(seq, score) in &rest {
        if related.len() == MAX_RELATED {
            break;
        }
        if !related.iter().any(|r| r.0 == seq) {
            related.push((seq, score));
        }
    }
    Ok(SearchResult {
        top: hits,
        related: related
            .into_iter()
            .map(|(seq, score)| Ok(SearchHit { fact: store::by_seq(conn, seq)?, score }))
            .collect::<Result<_>>()?,
    })
}

/// Up to `MAX_RELATED` visible live facts outside `exclude` sharing the most of `tags`; ties:
/// the better text rank (`ranked`: the matches after the top hits, best first; a fact not among
/// them ranks after those that are), then the newest (the latest saved). Each comes with the
/// number of tags it shares.
fn sharing_tags(
    conn: &Connection,
    viewer: Option<&str>,
    tags: &[String],
    exclude: &HashSet<i64>,
    ranked: &[(i64, f64)],
) -> Result<Vec<(i64, f64)>> {
    // Counted from the tag index alone; only the few facts that could be chosen are read.
    let mut seqs: Vec<i64> = Vec::new();
    let mut with_tag = conn.prepare_cached("SELECT seq FROM memory_fact_tags WHERE tag = ?1")?;
    for tag in tags {
        let rows = with_tag.query_map([tag], |r| r.get::<_, i64>(0))?;
        for seq in rows {
            seqs.push(seq?);
        }
    }
    seqs.sort_unstable();
    let mut candidates: Vec<(usize, i64)> = Vec::new(); // (shared, seq)
    for run in seqs.chunk_by(|a, b| a == b) {
        if !exclude.contains(&run[0]) {
            candidates.push((run.len(), run[0]));
        }
    }
    candidates.sort_unstable_by(|a, b| b.cmp(a)); // most shared, then newest
    let rank: HashMap<i64, usize> = ranked.iter().enumerate().map(|(i, r)| (r.0, i)).collect();
    let mut readable = conn
        .prepare_cached(&format!("SELECT 1 FROM memory_facts f WHERE f.seq = :seq AND f.deleted = 0 AND {VISIBLE}"))?;
    let mut chosen: Vec<(i64, f64)> = Vec::new();
    for group in candidates.chunk_by(|a, b| a.0 == b.0) {
        let shared = group[0].0 as f64;
        // Those among the ranked matches (already visible and live), best first…
        let mut matching: Vec<(usize, i64)> =
            group.iter().filter_map(|&(_, seq)| rank.get(&seq).map(|&r| (r, seq))).collect();
        matching.sort_unstable();
        for (_, seq) in matching {
            if chosen.len() == MAX_RELATED {
                return Ok(chosen);
            }
            chosen.push((seq, shared));
        }
        // …then the newest of the rest that `viewer` may read.
        for &(_, seq) in group.iter().filter(|(_, seq)| !rank.contains_key(seq)) {
            if chosen.len() == MAX_RELATED {
                return Ok(chosen);
            }
            let visible =
                readable.query_row(named_params! {":seq": seq, ":viewer": viewer}, |_| Ok(())).optional()?.is_some();
            if visible {
                chosen.push((seq, shared));
            }
        }
    }
    Ok(chosen)
}

/// The Memory view's list: best first for a query (the last word as a prefix), else newest first.
pub(super) fn list(conn: &Connection, filter: &FactFilter, limit: usize) -> Result<Vec<Fact>> {
    let expr = match filter.query.as_deref() {
        Some(query) => focused_expression(conn, query, true)?,
        None => None,
    };
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
