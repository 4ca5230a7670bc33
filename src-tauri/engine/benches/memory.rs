//! Shared memory at 100,000 facts: a search (top 5 + related) as an agent and as the user, and
//! one save into that store. Goals: search ≤ 5 ms median, save ≤ 2 ms median.
//!
//! Facts are generated text over a vocabulary of 3,000 made-up words and 400 tags, both
//! drawn with a Zipf-like skew (a few words are in most facts, most are rare), 8 to 30 words
//! and 0 to 4 tags each, across global, 5 team and 20 agent scopes, saved one by one through
//! `Memory::save` (a few duplicates among them return the existing fact).
//!
//! `cargo bench -p clawboo-engine --bench memory` (scripts/bench runs it with the others).

use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

use clawboo_engine::memory::{Author, FactInput, Memory, Scope, Visibility, DEFAULT_TOP};
use clawboo_engine::store::Store;
use clawboo_engine::EventBus;
use rusqlite::params;

const FACTS: usize = 100_000;
const WORDS: usize = 3_000;
const TAGS: usize = 400;
const AGENTS: usize = 20;
const TEAMS: usize = 5;
const QUERIES: usize = 300;
const SAVES: usize = 300;

/// xorshift: the same facts every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// A rank in 0..n, log-uniform: rank 0 is drawn far more often than rank n-1.
    fn zipf(&mut self, n: usize) -> usize {
        let u = (self.next() >> 11) as f64 / (1u64 << 53) as f64;
        ((n as f64).powf(u) as usize).saturating_sub(1).min(n - 1)
    }
}

fn vocabulary(rng: &mut Rng, size: usize, syllables: usize) -> Vec<String> {
    const PARTS: [&str; 24] = [
        "ka", "lo", "mi", "ne", "ru", "sta", "ber", "ton", "vel", "dri", "po", "sen", "qua", "tri", "mon", "gal",
        "fer", "zu", "ish", "or", "an", "ex", "pla", "cor",
    ];
    let mut words: Vec<String> = Vec::with_capacity(size);
    while words.len() < size {
        let n = 1 + rng.below(syllables);
        let word: String = (0..n).map(|_| PARTS[rng.below(PARTS.len())]).collect();
        if !words.contains(&word) {
            words.push(word);
        }
    }
    words
}

/// `min` to `max` words.
fn sentence(rng: &mut Rng, words: &[String], min: usize, max: usize) -> String {
    let count = min + rng.below(max - min + 1);
    let mut text: Vec<&str> = (0..count).map(|_| words[rng.zipf(words.len())].as_str()).collect();
    text.dedup();
    let mut s = text.join(" ");
    s.push('.');
    s
}

fn median_ms(mut samples: Vec<Duration>) -> (f64, f64) {
    samples.sort();
    let at = |q: usize| samples[(samples.len() * q / 100).min(samples.len() - 1)].as_secs_f64() * 1e3;
    (at(50), at(90))
}

fn main() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = Arc::new(Store::open(&dir.path().join("bench.db")).expect("store"));
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let words = vocabulary(&mut rng, WORDS, 4);
    let tags = vocabulary(&mut rng, TAGS, 3);
    let agents: Vec<String> = (0..AGENTS).map(|i| format!("agent-{i}")).collect();
    let teams: Vec<String> = (0..TEAMS).map(|i| format!("team-{i}")).collect();

    let started = Instant::now();
    store
        .write(|tx| {
            for (i, agent) in agents.iter().enumerate() {
                tx.execute(
                    "INSERT INTO agents (id, name, handle, tint, runtime, created_at, updated_at)
                     VALUES (?1, ?1, ?1, '#336699', 'native', 0, 0)",
                    [agent],
                )?;
                // Each agent is in one or two teams.
                for team in [i % TEAMS, (i * 7 + 3) % TEAMS] {
                    tx.execute(
                        "INSERT OR IGNORE INTO teams (id, name, created_at, updated_at) VALUES (?1, ?1, 0, 0)",
                        [&teams[team]],
                    )?;
                    tx.execute(
                        "INSERT OR IGNORE INTO team_members (team_id, agent_id, position) VALUES (?1, ?2, ?3)",
                        params![teams[team], agent, i as i64],
                    )?;
                }
            }
            Ok(())
        })
        .expect("agents and teams");
    let memory = Memory::new(store.clone(), EventBus::new());
    for _ in 0..FACTS {
        let text = sentence(&mut rng, &words, 8, 30);
        let tags: Vec<String> = (0..rng.below(5)).map(|_| tags[rng.zipf(TAGS)].clone()).collect();
        let scope = match rng.below(20) {
            0..=11 => Scope::Global,
            12..=16 => Scope::Team { team_id: teams[rng.below(TEAMS)].clone() },
            _ => Scope::Agent { agent_id: agents[rng.below(AGENTS)].clone() },
        };
        let agent = agents[rng.below(AGENTS)].clone();
        let by = Author::Agent { handle: agent.clone(), agent_id: agent, run_id: None };
        memory.save(FactInput { text, scope, tags }, by).expect("fill the store");
    }
    let fill = started.elapsed();

    let queries: Vec<String> = (0..QUERIES).map(|_| sentence(&mut rng, &words, 4, 11)).collect();
    let as_agent = Visibility::Agent { agent_id: agents[3].clone() };
    let mut found = (0usize, 0usize);
    for visible in [&as_agent, &Visibility::Everything] {
        // Warm the page cache and the statement cache as a running app has them.
        for q in queries.iter().take(20) {
            memory.search(q, visible, DEFAULT_TOP).expect("search");
        }
        let samples: Vec<Duration> = queries
            .iter()
            .map(|q| {
                let start = Instant::now();
                let result = black_box(memory.search(black_box(q), visible, DEFAULT_TOP).expect("search"));
                let took = start.elapsed();
                found.0 += result.top.len();
                found.1 += result.related.len();
                took
            })
            .collect();
        let (median, p90) = median_ms(samples);
        let who = if *visible == as_agent { "an agent (global + 2 teams + own)" } else { "the user (everything)" };
        println!(
            "memory: search top {DEFAULT_TOP} + related over {FACTS} facts as {who}, {QUERIES} queries of 4-11 words: median {median:.3} ms, p90 {p90:.3} ms"
        );
        let (id, label) = if *visible == as_agent {
            ("memory.search_ms.agent", "Memory search at 100,000 facts (as an agent)")
        } else {
            ("memory.search_ms.user", "Memory search at 100,000 facts (everything)")
        };
        clawboo_testkit::bench::report(id, label, "ms", median, QUERIES);
    }
    println!(
        "memory: on average {:.1} top hits and {:.1} related per search",
        found.0 as f64 / (2 * QUERIES) as f64,
        found.1 as f64 / (2 * QUERIES) as f64
    );

    let samples: Vec<Duration> = (0..SAVES)
        .map(|i| {
            let text = format!("{} (saved {i})", sentence(&mut rng, &words, 8, 30));
            let tags: Vec<String> = (0..3).map(|_| tags[rng.zipf(TAGS)].clone()).collect();
            let scope = if i % 2 == 0 { Scope::Global } else { Scope::Team { team_id: teams[i % TEAMS].clone() } };
            let start = Instant::now();
            let saved = memory.save(FactInput { text, scope, tags }, Author::User).expect("save");
            let took = start.elapsed();
            assert!(!saved.existing);
            took
        })
        .collect();
    let (median, p90) = median_ms(samples);
    println!("memory: one save into {FACTS} facts (checks, duplicate lookup, id, row, tags, FTS, history, commit): median {median:.3} ms, p90 {p90:.3} ms");
    println!("memory: (saving the {FACTS} facts took {:.1} s)", fill.as_secs_f64());
}
