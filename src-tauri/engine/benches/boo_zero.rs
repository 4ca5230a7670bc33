//! Assembling what rides in front of a Boo Zero message at its maximum: 200 team names to match
//! `@TeamName` against, 3 teams mentioned (plus one over the cap), each with an 8,000-char brief,
//! 1,000 open cards, 200 team facts and 100 General messages of 2,000 chars, far over every
//! budget. Goal: ≤ 1 ms median, like the other context assemblies. Pure code, no I/O.
//!
//! `cargo bench -p clawboo-engine --bench boo_zero`

use std::hint::black_box;
use std::time::Instant;

use clawboo_engine::context::boo_zero::{
    boo_zero_context, mentioned_teams, BooZeroTurn, TeamCard, TeamChatLine, TeamFact, TeamSnapshot,
    MAX_TEAMS_PER_MESSAGE,
};

const RUNS: usize = 500;

fn team(name: &str) -> TeamSnapshot {
    TeamSnapshot {
        name: name.to_owned(),
        brief: (0..80)
            .map(|i| format!("Paragraphe {i}: le but de l'équipe, {}", "b".repeat(60)))
            .collect::<Vec<_>>()
            .join("\n\n"),
        cards: (1..=1_000)
            .map(|n| TeamCard {
                number: n,
                title: format!("Carte {n} à faire"),
                status: "todo".into(),
                assignee: Some("dev".into()),
            })
            .collect(),
        facts: (0..200).map(|i| TeamFact { id: format!("m-{i:04x}"), text: "Un fait utile. ".repeat(8) }).collect(),
        chat: (0..100)
            .map(|i| TeamChatLine { who: "@lead".into(), text: format!("{i}: {}", "é".repeat(2_000)) })
            .collect(),
    }
}

fn main() {
    let names: Vec<String> = (0..200).map(|i| format!("Team number {i}")).collect();
    let name_refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let message = "Compare @team number 3, @Team Number 17 and @team number 150 with @team number 42, please.";
    let teams: Vec<TeamSnapshot> = ["Team number 3", "Team number 17", "Team number 150"].map(team).into();
    let mut samples = Vec::with_capacity(RUNS);
    let mut chars = 0;
    // The snapshots are the chat's gathering (store reads), made before assembly starts.
    let mut turn = BooZeroTurn { rules: "Réponds brièvement. ", teams, over_cap: Vec::new() };
    for _ in 0..RUNS {
        let start = Instant::now();
        let mentioned = mentioned_teams(black_box(message), black_box(&name_refs));
        turn.over_cap = mentioned.iter().skip(MAX_TEAMS_PER_MESSAGE).map(|i| names[*i].clone()).collect();
        let context = black_box(boo_zero_context(black_box(&turn))).unwrap();
        samples.push(start.elapsed());
        chars = context.text.chars().count();
    }
    samples.sort();
    println!(
        "boo_zero: 3 teams at 10x their budgets + 200 names to match: median {:.4} ms, p90 {:.4} ms ({chars} chars sent)",
        samples[RUNS / 2].as_secs_f64() * 1e3,
        samples[RUNS * 9 / 10].as_secs_f64() * 1e3,
    );
}
