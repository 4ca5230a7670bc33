//! Search everything (the ⌘/Ctrl+K palette) over 100,000 messages, as the user types: each
//! keystroke runs the palette's whole search (agents, teams, rooms, chats, cards, routines,
//! facts by name, and the messages' full text, ranked, with snippets). Goal: ≤ 30 ms median per
//! keystroke (issue #26).
//!
//! 80,000 messages in 20 agents' one-to-one chats and 20,000 in 10 team rooms, 6 to 40 words
//! each over a made-up vocabulary of 5,000 words drawn with a Zipf-like skew (a few words are in
//! most messages, most are rare), stored through the same triggers as the app's. Queries are
//! typed letter by letter: one-word queries of common, middling and rare words, and two-word
//! ones; every prefix of each is one sample.
//!
//! `cargo bench -p clawboo-engine --bench search` (scripts/bench runs it with the others).

use std::hint::black_box;
use std::time::{Duration, Instant};

use clawboo_engine::history::everything;
use clawboo_engine::store::Store;
use rusqlite::params;

const CHAT_MESSAGES: usize = 80_000;
const ROOM_MESSAGES: usize = 20_000;
const WORDS: usize = 5_000;
const AGENTS: usize = 20;
const TEAMS: usize = 5;

/// xorshift: the same messages every run.
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

fn vocabulary(rng: &mut Rng) -> Vec<String> {
    const PARTS: [&str; 24] = [
        "ka", "lo", "mi", "ne", "ru", "sta", "ber", "ton", "vel", "dri", "po", "sen", "qua", "tri", "mon", "gal",
        "fer", "zu", "ish", "or", "an", "ex", "pla", "cor",
    ];
    let mut words: Vec<String> = Vec::with_capacity(WORDS);
    let mut seen = std::collections::HashSet::new();
    while words.len() < WORDS {
        let n = 1 + rng.below(4);
        let word: String = (0..n).map(|_| PARTS[rng.below(PARTS.len())]).collect();
        if seen.insert(word.clone()) {
            words.push(word);
        }
    }
    words
}

fn sentence(rng: &mut Rng, words: &[String]) -> String {
    let count = 6 + rng.below(35);
    let text: Vec<&str> = (0..count).map(|_| words[rng.zipf(words.len())].as_str()).collect();
    let mut s = text.join(" ");
    s.push('.');
    s
}

fn main() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = Store::open(&dir.path().join("bench.db")).expect("store");
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let words = vocabulary(&mut rng);

    let started = Instant::now();
    store
        .write(|tx| {
            for a in 0..AGENTS {
                tx.execute(
                    "INSERT INTO agents (id, name, handle, tint, runtime, created_at, updated_at)
                     VALUES (?1, ?2, ?1, '#336699', 'native', 0, 0)",
                    params![format!("agent-{a}"), format!("Agent {a}")],
                )?;
                tx.execute(
                    "INSERT INTO conversations (id, agent_id, kind, epoch, created_at) VALUES (?1, ?2, 'direct', 0, 0)",
                    params![format!("chat-{a}"), format!("agent-{a}")],
                )?;
            }
            for t in 0..TEAMS {
                tx.execute(
                    "INSERT INTO teams (id, name, created_at, updated_at) VALUES (?1, ?2, 0, 0)",
                    params![format!("team-{t}"), format!("Team {t}")],
                )?;
                for (n, name) in ["general", "ops"].iter().enumerate() {
                    tx.execute(
                        "INSERT INTO rooms (id, team_id, name, is_general, position, created_at) VALUES (?1, ?2, ?3, ?4, ?4, 0)",
                        params![format!("room-{t}-{n}"), format!("team-{t}"), name, (n == 0) as i64],
                    )?;
                }
            }
            let mut chat = tx.prepare(
                "INSERT INTO messages (id, conversation_id, seq, role, content, epoch, created_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, 0, ?3)",
            )?;
            let mut room = tx.prepare(
                "INSERT INTO room_messages (id, room_id, seq, kind, author_id, content, created_at)
                 VALUES (?1, ?2, ?3, 'reply', ?4, ?5, ?3)",
            )?;
            let total = CHAT_MESSAGES + ROOM_MESSAGES;
            for i in 0..total {
                let text = sentence(&mut rng, &words);
                // Interleaved as they would be said: one in five in a room.
                if i % 5 == 4 {
                    let r = rng.below(TEAMS * 2);
                    room.execute(params![
                        format!("rm-{i}"),
                        format!("room-{}-{}", r / 2, r % 2),
                        i as i64,
                        format!("agent-{}", rng.below(AGENTS)),
                        text
                    ])?;
                } else {
                    let a = rng.below(AGENTS);
                    let role = if i % 2 == 0 { "user" } else { "assistant" };
                    chat.execute(params![format!("m-{i}"), format!("chat-{a}"), i as i64, role, text])?;
                }
            }
            Ok(())
        })
        .expect("fill the store");
    let fill = started.elapsed();
    let count: i64 =
        store.read(|c| Ok(c.query_row("SELECT count(*) FROM message_search_docs", [], |r| r.get(0))?)).unwrap();
    assert_eq!(count as usize, CHAT_MESSAGES + ROOM_MESSAGES);

    // Words by how often they are drawn: common (rank 0-20), middling (100-500), rare (2,000+).
    let mut queries: Vec<String> = Vec::new();
    for rank in [0, 3, 11, 20, 120, 300, 480, 2_100, 3_300, 4_700] {
        queries.push(words[rank].clone());
    }
    for (a, b) in [(2, 150), (40, 900), (7, 3_000), (250, 251)] {
        queries.push(format!("{} {}", words[a], words[b]));
    }
    let keystrokes: Vec<String> = queries
        .iter()
        .flat_map(|q| (1..=q.chars().count()).map(move |n| q.chars().take(n).collect::<String>()))
        .collect();

    // Warm the page cache and the statement cache as a running app has them.
    for typed in keystrokes.iter().take(10) {
        store.read(|c| everything::search(c, typed)).expect("search");
    }
    let rounds = clawboo_testkit::bench::samples(5, 1);
    let mut samples: Vec<Duration> = Vec::new();
    let mut found = 0usize;
    for _ in 0..rounds {
        for typed in &keystrokes {
            let start = Instant::now();
            let result = black_box(store.read(|c| everything::search(c, black_box(typed))).expect("search"));
            samples.push(start.elapsed());
            found += result.len();
        }
    }
    if std::env::var_os("BENCH_VERBOSE").is_some() {
        let mut slowest: Vec<(Duration, &String)> = samples.iter().copied().zip(keystrokes.iter().cycle()).collect();
        slowest.sort_by_key(|s| std::cmp::Reverse(s.0));
        for (took, typed) in slowest.iter().take(12) {
            println!("search: slow keystroke {typed:?}: {:.3} ms", took.as_secs_f64() * 1e3);
        }
        let plan: Vec<String> = store
            .read(|c| {
                let mut stmt = c.prepare(&format!("EXPLAIN QUERY PLAN {}", clawboo_engine::history::threads::RANKING_SQL))?;
                let rows = stmt.query_map(
                    rusqlite::named_params! {":expr": "\"ka\"*", ":agent": None::<String>, ":run": None::<String>, ":window": 2000},
                    |r| r.get::<_, String>(3),
                )?;
                Ok(rows.collect::<rusqlite::Result<_>>()?)
            })
            .unwrap();
        println!("search: plan {plan:#?}");
    }
    samples.sort();
    let at = |q: usize| samples[(samples.len() * q / 100).min(samples.len() - 1)].as_secs_f64() * 1e3;
    let (median, p90, max) = (at(50), at(90), samples.last().unwrap().as_secs_f64() * 1e3);
    let total = CHAT_MESSAGES + ROOM_MESSAGES;
    println!(
        "search: the palette's search per keystroke over {total} messages, {} queries typed letter by letter ({} keystrokes × {rounds}): median {median:.3} ms, p90 {p90:.3} ms, max {max:.3} ms",
        queries.len(),
        keystrokes.len()
    );
    println!("search: on average {:.1} results per keystroke", found as f64 / samples.len() as f64);
    println!("search: (storing and indexing the {total} messages took {:.1} s)", fill.as_secs_f64());
    clawboo_testkit::bench::report(
        "search.keystroke_ms",
        "Search everything, per keystroke at 100,000 messages",
        "ms",
        median,
        samples.len(),
    );
}
