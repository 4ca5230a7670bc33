//! Spend at 1,000,000 recorded requests (issue #27): the Spend page's whole read (today, this
//! week, this month, 30 days stacked by agent, the top agents, teams and routines, names), and
//! `spend::totals` for one scope and one day — what a budget check before a run costs. Goals:
//! the page ≤ 100 ms, a total ≤ 0.2 ms (medians).
//!
//! The aggregates are filled the way recording fills them: every request through
//! `spend::record::record_relayed` (the relay's own call, the run's scope read on its first
//! request), 10,000 per transaction, over 90 days: 40 agents, 8 teams, 10 routines, 600 cards,
//! 20,000 runs (one-to-one chats, team rooms, card runs), three models (one without a price).
//!
//! `cargo bench -p clawboo-engine --bench spend` (scripts/bench runs it with the others).

use std::hint::black_box;
use std::time::{Duration, Instant};

use clawboo_engine::spend::{self, GroupBy, Scope, SpendFilter, SpendQuery, Usage};
use clawboo_engine::store::Store;
use rusqlite::params;

const REQUESTS: usize = 1_000_000;
const AGENTS: usize = 40;
const TEAMS: usize = 8;
const ROUTINES: usize = 10;
const CARDS: usize = 600;
const RUNS: usize = 20_000;
const DAYS: i64 = 90;
const DAY_MS: i64 = 86_400_000;
const MODELS: [(&str, &str); 3] =
    [("anthropic", "claude-sonnet-4-5"), ("openai", "gpt-5-mini"), ("custom", "house-model-unpriced")];

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
}

fn seed_scopes(store: &Store) {
    store
        .write(|tx| {
            for a in 0..AGENTS {
                tx.execute(
                    "INSERT INTO agents (id, name, handle, tint, runtime, model, created_at, updated_at)
                     VALUES (?1, ?2, ?1, '#336699', 'native', 'claude-sonnet-4-5', 0, 0)",
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
                tx.execute(
                    "INSERT INTO rooms (id, team_id, name, is_general, position, created_at) VALUES (?1, ?2, 'General', 1, 0, 0)",
                    params![format!("room-{t}"), format!("team-{t}")],
                )?;
                // Five members each: their private thread of the room.
                for m in 0..5 {
                    let a = (t * 5 + m) % AGENTS;
                    tx.execute(
                        "INSERT INTO conversations (id, agent_id, kind, room_id, epoch, created_at) VALUES (?1, ?2, 'room', ?3, 0, 0)",
                        params![format!("roomchat-{t}-{a}"), format!("agent-{a}"), format!("room-{t}")],
                    )?;
                }
            }
            for r in 0..ROUTINES {
                tx.execute(
                    "INSERT INTO routines (id, name, agent_id, prompt, schedule, state, created_by, created_at, updated_at)
                     VALUES (?1, ?2, ?3, 'Check', '{}', 'active', 'user', 0, 0)",
                    params![format!("routine-{r}"), format!("Routine {r}"), format!("agent-{}", r % AGENTS)],
                )?;
            }
            for c in 0..CARDS {
                let a = c % AGENTS;
                tx.execute(
                    "INSERT INTO cards (id, number, title, assignee_id, team_id, status, origin, position, created_at, updated_at)
                     VALUES (?1, ?2, 'Card', ?3, ?4, 'todo', 'user', ?2, 0, 0)",
                    params![format!("card-{c}"), c as i64 + 1, format!("agent-{a}"), format!("team-{}", c % TEAMS)],
                )?;
                tx.execute(
                    "INSERT INTO conversations (id, agent_id, kind, card_id, epoch, created_at) VALUES (?1, ?2, 'task', ?3, 0, 0)",
                    params![format!("task-{c}"), format!("agent-{a}"), format!("card-{c}")],
                )?;
                // Every tenth card is a routine's run.
                if c % 10 == 0 {
                    tx.execute(
                        "INSERT INTO routine_runs (id, routine_id, scheduled_for, started_at, outcome, trigger, card_id)
                         VALUES (?1, ?2, 0, 0, 'succeeded', 'schedule', ?3)",
                        params![format!("rr-{c}"), format!("routine-{}", (c / 10) % ROUTINES), format!("card-{c}")],
                    )?;
                }
            }
            for r in 0..RUNS {
                let (conversation, agent) = match r % 3 {
                    0 => {
                        let a = r % AGENTS;
                        (format!("chat-{a}"), a)
                    }
                    1 => {
                        let t = r % TEAMS;
                        let a = (t * 5 + r % 5) % AGENTS;
                        (format!("roomchat-{t}-{a}"), a)
                    }
                    _ => {
                        let c = r % CARDS;
                        tx.execute(
                            "INSERT INTO card_runs (run_id, card_id, attempt, kind, status, started_at) VALUES (?1, ?2, 1, 'run', 'succeeded', 0)",
                            params![format!("run-{r}"), format!("card-{c}")],
                        )?;
                        (format!("task-{c}"), c % AGENTS)
                    }
                };
                tx.execute(
                    "INSERT INTO runs (id, conversation_id, agent_id, runtime, status, started_at) VALUES (?1, ?2, ?3, 'native', 'succeeded', 0)",
                    params![format!("run-{r}"), conversation, format!("agent-{agent}")],
                )?;
            }
            Ok(())
        })
        .expect("seed agents, teams, routines, cards and runs");
}

fn median(mut samples: Vec<Duration>) -> f64 {
    samples.sort();
    samples[samples.len() / 2].as_secs_f64() * 1e3
}

fn main() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = Store::open(&dir.path().join("bench.db")).expect("store");
    seed_scopes(&store);
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let now = clawboo_engine::vocab::now_ms();
    let requests = if clawboo_testkit::bench::quick() { REQUESTS / 10 } else { REQUESTS };

    // Requests in time order, as they arrive: each run's requests together, on one day.
    let started = Instant::now();
    let per_run = requests / RUNS;
    let mut done = 0usize;
    while done < requests {
        store
            .write(|tx| {
                for _ in 0..10_000.min(requests - done) {
                    let i = done;
                    done += 1;
                    let run = (i / per_run.max(1)) % RUNS;
                    let day = DAYS - 1 - (run as i64 * DAYS / RUNS as i64);
                    let at = now - day * DAY_MS - (rng.below(3_600_000) as i64);
                    let (provider, model) = MODELS[run % MODELS.len()];
                    let usage = Usage {
                        input_tokens: 200 + rng.below(2_000) as u64,
                        output_tokens: 50 + rng.below(800) as u64,
                        cache_read_tokens: rng.below(30_000) as u64,
                        cache_write_tokens: rng.below(500) as u64,
                    };
                    spend::record::record_relayed(tx, &format!("run-{run}"), at, provider, model, &usage)?;
                }
                Ok(())
            })
            .expect("record");
    }
    let fill = started.elapsed();
    let (rows, counted): (i64, i64) = store
        .read(
            |c| Ok(c.query_row("SELECT count(*), sum(requests) FROM spend_days", [], |r| Ok((r.get(0)?, r.get(1)?)))?),
        )
        .unwrap();
    assert_eq!(counted as usize, requests);

    let today = spend::today();
    let from = today.checked_sub(jiff::Span::new().days(29)).unwrap();
    let queries = [
        SpendQuery {
            from: from.to_string(),
            to: today.to_string(),
            group: GroupBy::Agent,
            filter: SpendFilter::default(),
        },
        SpendQuery {
            from: from.to_string(),
            to: today.to_string(),
            group: GroupBy::Team,
            filter: SpendFilter::default(),
        },
        SpendQuery {
            from: from.to_string(),
            to: today.to_string(),
            group: GroupBy::Agent,
            filter: SpendFilter { team_id: Some("team-3".into()), ..SpendFilter::default() },
        },
    ];
    for query in &queries {
        store.read(|c| spend::page::page(c, today, query)).expect("page");
    }
    let rounds = clawboo_testkit::bench::samples(30, 5);
    let mut page_samples = Vec::new();
    for _ in 0..rounds {
        for query in &queries {
            let start = Instant::now();
            black_box(store.read(|c| spend::page::page(c, today, black_box(query))).expect("page"));
            page_samples.push(start.elapsed());
        }
    }

    let scopes: Vec<Scope> = (0..AGENTS)
        .map(|a| Scope::Agent(format!("agent-{a}")))
        .chain((0..TEAMS).map(|t| Scope::Team(format!("team-{t}"))))
        .chain((0..ROUTINES).map(|r| Scope::Routine(format!("routine-{r}"))))
        .chain((0..50).map(|c| Scope::Card(format!("card-{c}"))))
        .chain([Scope::All])
        .collect();
    let mut total_samples = Vec::new();
    let mut priced = 0i64;
    for round in 0..clawboo_testkit::bench::samples(40, 5) {
        for scope in &scopes {
            let day = today.checked_sub(jiff::Span::new().days(round as i64 % DAYS)).unwrap();
            let start = Instant::now();
            let totals = black_box(store.read(|c| spend::totals(c, black_box(scope), day, day)).expect("totals"));
            total_samples.push(start.elapsed());
            priced += totals.cost_micros;
        }
    }
    let (page_ms, total_ms) = (median(page_samples), median(total_samples));
    println!(
        "spend: the Spend page's read at {requests} recorded requests ({rows} day rows): median {page_ms:.3} ms (goal ≤ 100 ms)"
    );
    println!("spend: spend::totals for one scope and one day: median {:.4} ms (goal ≤ 0.2 ms)", total_ms);
    println!(
        "spend: (recording the {requests} requests into the aggregates took {:.1} s, {:.1} µs each; {} µ$ summed)",
        fill.as_secs_f64(),
        fill.as_secs_f64() * 1e6 / requests as f64,
        priced
    );
    clawboo_testkit::bench::report(
        "spend.page_ms",
        "Spend page read at 1,000,000 recorded requests",
        "ms",
        page_ms,
        rounds * queries.len(),
    );
    clawboo_testkit::bench::report("spend.totals_ms", "spend::totals, one scope and day", "ms", total_ms, scopes.len());
    clawboo_testkit::bench::report(
        "spend.record_us",
        "Counting one request into the aggregates",
        "µs",
        fill.as_secs_f64() * 1e6 / requests as f64,
        requests,
    );
}
