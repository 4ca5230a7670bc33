//! On a real store (every migration): usage counted per scope and day adds up, priced apart
//! per kind of token; unpriced and subscription usage carry no money; the relay wins over a
//! CLI's own report.

use clawboo_store::store::Store;

use super::*;

fn store() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("clawboo.db")).unwrap();
    (dir, store)
}

/// An agent in a team, a direct chat run, a room run and a card run of that agent.
const SEED: &str = "
    INSERT INTO agents (id, name, handle, tint, runtime, model, created_at, updated_at)
        VALUES ('ada', 'Ada', 'ada', '#000', 'claude-code', 'claude-sonnet-4', 0, 0);
    INSERT INTO conversations (id, agent_id, kind, epoch, created_at) VALUES ('direct', 'ada', 'direct', 0, 0);
    INSERT INTO teams (id, name, created_at, updated_at) VALUES ('crew', 'Crew', 0, 0);
    INSERT INTO rooms (id, team_id, name, is_general, position, created_at) VALUES ('general', 'crew', 'General', 1, 0, 0);
    INSERT INTO conversations (id, agent_id, kind, room_id, epoch, created_at) VALUES ('room', 'ada', 'room', 'general', 0, 0);
    INSERT INTO cards (id, number, title, team_id, status, origin, position, created_at, updated_at)
        VALUES ('card', 1, 'Fix it', 'crew', 'todo', 'user', 1, 0, 0);
    INSERT INTO conversations (id, agent_id, kind, card_id, epoch, created_at) VALUES ('task', 'ada', 'task', 'card', 0, 0);
    INSERT INTO runs (id, conversation_id, agent_id, runtime, status, started_at) VALUES ('r-direct', 'direct', 'ada', 'native', 'succeeded', 0);
    INSERT INTO runs (id, conversation_id, agent_id, runtime, status, started_at) VALUES ('r-room', 'room', 'ada', 'native', 'succeeded', 0);
    INSERT INTO runs (id, conversation_id, agent_id, runtime, status, started_at) VALUES ('r-card', 'task', 'ada', 'native', 'succeeded', 0);
    INSERT INTO card_runs (run_id, card_id, attempt, kind, status, started_at) VALUES ('r-card', 'card', 1, 'run', 'succeeded', 0);
    INSERT INTO runs (id, conversation_id, agent_id, runtime, status, started_at) VALUES ('r-cli', 'direct', 'ada', 'claude-code', 'succeeded', 0);
";

fn usage(input: u64, output: u64, cache_read: u64, cache_write: u64) -> Usage {
    Usage { input_tokens: input, output_tokens: output, cache_read_tokens: cache_read, cache_write_tokens: cache_write }
}

const NOON: i64 = 1_780_000_000_000;

#[test]
fn the_bundled_price_table_reads_and_is_dated() {
    let (_dir, store) = store();
    let table = store.read(prices::table).unwrap();
    assert_eq!(table.taken.len(), 10, "a YYYY-MM-DD date: {:?}", table.taken);
    assert!(table.entries.len() > 20);
    let sonnet = store.read(|c| prices::price_of(c, "anthropic", "claude-sonnet-4-20250514")).unwrap().unwrap();
    assert_eq!((sonnet.input_micros, sonnet.output_micros), (3_000_000, 15_000_000));
    assert_eq!((sonnet.cache_write_micros, sonnet.cache_read_micros), (3_750_000, 300_000));
    let newer = store.read(|c| prices::price_of(c, "anthropic", "claude-sonnet-4-5-20250929")).unwrap().unwrap();
    assert_eq!(newer.input_micros, 3_000_000, "the longest listed name wins");
    let mini = store.read(|c| prices::price_of(c, "openai", "gpt-4o-mini-2024-07-18")).unwrap().unwrap();
    assert_eq!(mini.cache_read_micros, 75_000);
    assert!(store.read(|c| prices::price_of(c, "openai", "gpt-4oops")).unwrap().is_none(), "a prefix without a dash");
    assert!(store.read(|c| prices::price_of(c, "custom", "llama3")).unwrap().is_none());
}

#[test]
fn usage_adds_up_per_scope_with_cache_priced_apart() {
    let (_dir, store) = store();
    store
        .write(|tx| {
            tx.execute_batch(SEED)?;
            for run in ["r-direct", "r-room", "r-card"] {
                record::mark_relayed(tx, run)?;
            }
            // Sonnet 4: $3 in, $15 out, $3.75 cache write, $0.30 cache read per million.
            let direct = record::record_relayed(
                tx,
                "r-direct",
                NOON,
                "anthropic",
                "claude-sonnet-4",
                &usage(1000, 200, 5000, 300),
            )?;
            // 1000×3 + 200×15 + 300×3.75 + 5000×0.30 = 3000 + 3000 + 1125 + 1500 = 8625 µ$.
            assert_eq!(direct, Some(8625));
            let room = record::record_relayed(tx, "r-room", NOON, "anthropic", "claude-sonnet-4", &usage(10, 1, 0, 0))?;
            // 30 + 15 = 45 µ$.
            assert_eq!(room, Some(45));
            let card = record::record_relayed(tx, "r-card", NOON, "openai", "gpt-4o-mini", &usage(1000, 100, 1000, 0))?;
            // 1000×0.15 + 100×0.60 + 1000×0.075 = 150 + 60 + 75 = 285 µ$.
            assert_eq!(card, Some(285));
            let again = record::record_relayed(tx, "r-card", NOON + 1, "openai", "gpt-4o-mini", &usage(1, 1, 1, 0))?;
            // 0.15 + 0.60 + 0.075 = 0.825 µ$, rounded once: 1.
            assert_eq!(again, Some(1));
            Ok(())
        })
        .unwrap();
    let day = day_of(NOON);
    let totals_of = |scope: Scope| store.read(|c| totals(c, &scope, day, day)).unwrap();
    let all = totals_of(Scope::All);
    let rows = store.read(|c| filtered(c, day, day, &SpendFilter::default())).unwrap();
    assert_eq!(all, rows, "the day's total (what the overall budget reads) is its rows'");
    assert_eq!(all.cost_micros, 8625 + 45 + 285 + 1);
    assert_eq!(all.requests, 4);
    assert_eq!(all.tokens(), 6500 + 11 + 2100 + 3);
    assert_eq!(all.cache_read_tokens, 5000 + 1000 + 1);
    assert_eq!((all.unpriced_tokens, all.subscription_tokens), (0, 0));
    assert_eq!(totals_of(Scope::Agent("ada".into())), all, "every run is Ada's");
    let team = totals_of(Scope::Team("crew".into()));
    assert_eq!(team.cost_micros, 45 + 285 + 1, "the room's run and the team's card's");
    let card = totals_of(Scope::Card("card".into()));
    assert_eq!((card.cost_micros, card.requests), (286, 2));
    assert_eq!(totals_of(Scope::Routine("none".into())), Totals::default());
    let next_day = day.tomorrow().unwrap();
    assert_eq!(store.read(|c| totals(c, &Scope::All, next_day, next_day)).unwrap(), Totals::default());

    let run = store.read(|c| run_spend(c, "r-card")).unwrap().unwrap();
    assert_eq!(
        (run.cost_micros, run.requests, run.card_id.as_str(), run.team_id.as_str()),
        (Some(286), 2, "card", "crew")
    );
    assert_eq!(run.billing, Billing::Api);
}

#[test]
fn an_unpriced_model_counts_tokens_and_no_money() {
    let (_dir, store) = store();
    store
        .write(|tx| {
            tx.execute_batch(SEED)?;
            record::mark_relayed(tx, "r-direct")?;
            assert_eq!(
                record::record_relayed(tx, "r-direct", NOON, "custom", "llama3:8b", &usage(100, 20, 0, 0))?,
                None
            );
            Ok(())
        })
        .unwrap();
    let day = day_of(NOON);
    let all = store.read(|c| totals(c, &Scope::All, day, day)).unwrap();
    assert_eq!((all.cost_micros, all.unpriced_tokens, all.tokens()), (0, 120, 120));
    assert_eq!(store.read(|c| run_spend(c, "r-direct")).unwrap().unwrap().cost_micros, None);

    // Priced "free" by the user (a local model): zero, and no longer unpriced.
    store
        .write(|tx| prices::set_price(tx, "custom", "llama3", &Price { free: true, ..Price::default() }, NOON))
        .unwrap();
    store
        .write(|tx| {
            assert_eq!(
                record::record_relayed(tx, "r-direct", NOON, "custom", "llama3:8b", &usage(100, 20, 0, 0))?,
                None
            );
            assert_eq!(
                record::record_relayed(tx, "r-direct", NOON, "custom", "llama3", &usage(100, 20, 0, 0))?,
                Some(0)
            );
            Ok(())
        })
        .unwrap();
    let all = store.read(|c| totals(c, &Scope::All, day, day)).unwrap();
    assert_eq!((all.cost_micros, all.unpriced_tokens, all.tokens()), (0, 240, 360));
}

#[test]
fn a_subscription_run_counts_tokens_and_the_relay_wins_over_a_cli_report() {
    let (_dir, store) = store();
    store
        .write(|tx| {
            tx.execute_batch(SEED)?;
            assert!(record::record_cli_usage(tx, "r-cli", NOON, &usage(10, 5, 100, 0))?);
            record::mark_relayed(tx, "r-direct")?;
            record::record_relayed(tx, "r-direct", NOON, "anthropic", "claude-sonnet-4", &usage(10, 0, 0, 0))?;
            assert!(!record::record_cli_usage(tx, "r-direct", NOON, &usage(10, 0, 0, 0))?, "counted by the relay");
            Ok(())
        })
        .unwrap();
    let day = day_of(NOON);
    let all = store.read(|c| totals(c, &Scope::All, day, day)).unwrap();
    assert_eq!((all.requests, all.subscription_tokens, all.cost_micros, all.unpriced_tokens), (2, 115, 30, 0));
    assert_eq!(store.read(|c| filtered(c, day, day, &SpendFilter::default())).unwrap(), all, "subscription apart");
    let cli = store.read(|c| run_spend(c, "r-cli")).unwrap().unwrap();
    assert_eq!((cli.billing, cli.cost_micros, cli.model.as_str()), (Billing::Subscription, None, "claude-sonnet-4"));
}

#[test]
fn openai_style_input_counts_lose_their_cached_part() {
    let usage = Usage::from_provider_counts("openai", Some(1200), Some(10), Some(1000), None);
    assert_eq!((usage.input_tokens, usage.cache_read_tokens, usage.tokens()), (200, 1000, 1210));
    let usage = Usage::from_provider_counts("anthropic", Some(200), Some(10), Some(1000), Some(5));
    assert_eq!(usage.tokens(), 1215);
}

#[test]
fn a_price_out_of_bounds_or_for_no_provider_is_refused() {
    let (_dir, store) = store();
    let bad = Price { input_micros: -1, ..Price::default() };
    assert!(store.write(|tx| prices::set_price(tx, "custom", "m", &bad, 0)).is_err());
    assert!(store.write(|tx| prices::set_price(tx, "nowhere", "m", &Price::default(), 0)).is_err());
    assert!(store.write(|tx| prices::set_price(tx, "custom", "  ", &Price::default(), 0)).is_err());
    let mine = Price { input_micros: 1, output_micros: 2, cache_write_micros: 3, cache_read_micros: 4, free: false };
    store.write(|tx| prices::set_price(tx, "anthropic", "claude-sonnet-4", &mine, 0)).unwrap();
    assert_eq!(store.read(|c| prices::price_of(c, "anthropic", "claude-sonnet-4-x")).unwrap(), Some(mine));
    let table = store.read(prices::table).unwrap();
    let row = table.entries.iter().find(|e| e.model == "claude-sonnet-4").unwrap();
    assert_eq!((row.source, row.overrides_bundled), (PriceSource::Yours, true));
    store.write(|tx| prices::remove_price(tx, "anthropic", "claude-sonnet-4")).unwrap();
    assert_eq!(
        store.read(|c| prices::price_of(c, "anthropic", "claude-sonnet-4")).unwrap().unwrap().input_micros,
        3_000_000
    );
    assert!(store.write(|tx| prices::remove_price(tx, "anthropic", "claude-sonnet-4")).is_err());
}

#[test]
fn usage_recorded_before_the_aggregates_is_counted_once_at_the_next_open() {
    let (_dir, store) = store();
    let body = br#"{"model":"claude-sonnet-4-20250514","messages":[]}"#;
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    std::io::Write::write_all(&mut gz, body).unwrap();
    let gz = gz.finish().unwrap();
    store
        .write(|tx| {
            tx.execute_batch(SEED)?;
            tx.execute(
                "INSERT INTO run_requests (run_id, seq, at, provider, method, path, status, body_gz, body_bytes, body_stored, usage_json)
                 VALUES ('r-direct', 1, ?1, 'anthropic', 'POST', '/v1/messages', 200, ?2, 10, 10, '{\"input_tokens\":1000,\"output_tokens\":200}')",
                rusqlite::params![NOON, gz],
            )?;
            tx.execute(
                "INSERT INTO run_events (run_id, seq, at, event) VALUES ('r-cli', 1, ?1, ?2)",
                rusqlite::params![NOON, r#"{"type":"usage","inputTokens":7,"outputTokens":3,"cacheReadTokens":0,"cacheWriteTokens":0,"costUsd":0.5}"#],
            )?;
            Ok(())
        })
        .unwrap();
    assert_eq!(store.write(|tx| backfill::backfill_if_pending(tx)).unwrap(), 2);
    assert_eq!(store.write(|tx| backfill::backfill_if_pending(tx)).unwrap(), 0, "once");
    let day = day_of(NOON);
    let all = store.read(|c| totals(c, &Scope::All, day, day)).unwrap();
    assert_eq!((all.cost_micros, all.subscription_tokens, all.tokens()), (3000 + 3000, 10, 1210));
    let model: String = store
        .read(|c| Ok(c.query_row("SELECT model FROM run_requests WHERE run_id = 'r-direct'", [], |r| r.get(0))?))
        .unwrap();
    assert_eq!(model, "claude-sonnet-4-20250514");
}

#[test]
fn the_spend_page_sums_by_day_and_group_and_exports_its_runs() {
    let (_dir, store) = store();
    store
        .write(|tx| {
            tx.execute_batch(SEED)?;
            record::mark_relayed(tx, "r-room")?;
            record::record_relayed(tx, "r-room", NOON, "anthropic", "claude-sonnet-4", &usage(1000, 0, 0, 0))?;
            record::record_relayed(
                tx,
                "r-room",
                NOON + 86_400_000,
                "anthropic",
                "claude-sonnet-4",
                &usage(0, 1000, 0, 0),
            )?;
            assert!(record::record_cli_usage(tx, "r-cli", NOON, &usage(5, 5, 0, 0))?);
            Ok(())
        })
        .unwrap();
    let day = day_of(NOON);
    let query = SpendQuery {
        from: day.to_string(),
        to: day.tomorrow().unwrap().to_string(),
        group: GroupBy::Team,
        filter: SpendFilter::default(),
    };
    let page = store.read(|c| page::page(c, day, &query)).unwrap();
    assert_eq!(page.range_totals.cost_micros, 3000 + 15000);
    assert_eq!(page.today_totals.cost_micros, 3000);
    assert_eq!(page.days.len(), 3, "day 1: the team and no team (the CLI chat); day 2: the team");
    assert_eq!(page.top_teams[0].key, "crew");
    assert_eq!(page.teams, [Named { id: "crew".into(), name: "Crew".into() }]);
    assert_eq!(page.top_agents[0].totals.subscription_tokens, 10);
    assert_eq!(page.runtimes, ["claude-code", "native"]);

    let only_cli = SpendQuery {
        filter: SpendFilter { runtime: Some("claude-code".into()), ..Default::default() },
        ..query.clone()
    };
    let page = store.read(|c| page::page(c, day, &only_cli)).unwrap();
    assert_eq!((page.range_totals.cost_micros, page.range_totals.tokens()), (0, 10));

    let csv = store.read(|c| page::runs_csv(c, &query)).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 3, "{csv}");
    assert!(
        lines[1..].iter().any(|l| l.starts_with("r-room,") && l.contains(",Ada,Crew,") && l.contains(",0.018000,")),
        "{csv}"
    );
    assert!(lines[1..].iter().any(|l| l.starts_with("r-cli,") && l.contains(",subscription,")), "{csv}");
    assert!(store.read(|c| page::page(c, day, &SpendQuery { from: "soon".into(), ..query.clone() })).is_err());
}
