//! Assembling a team-chat turn's context at full budgets: 50 teammates, 10,000 waiting items
//! (half of them peer posts), rules, About you and persona at 4,000 chars each. Goal: ≤ 1 ms
//! median. Pure code, no I/O.
//!
//! `cargo bench -p clawboo-engine --bench context` (scripts/bench runs it with the others).

use std::hint::black_box;
use std::time::{Duration, Instant};

use clawboo_engine::agents::RuntimeKind;
use clawboo_engine::context::{
    team_turn, Member, PeerPost, TeamTurn, ToolName, TurnKind, TurnMessage, WaitingItem, WaitingKind,
};

const TEAMMATES: usize = 50;
const WAITING: usize = 10_000;
const RUNS: usize = 500;

fn main() {
    let runtimes =
        [RuntimeKind::ClaudeCode, RuntimeKind::Codex, RuntimeKind::Hermes, RuntimeKind::Openclaw, RuntimeKind::Native];
    let members: Vec<Member> = (0..=TEAMMATES)
        .map(|i| Member {
            handle: format!("agent{i}"),
            name: format!("Agent number {i}"),
            runtime: runtimes[i % runtimes.len()],
            role: "Writes, reviews and checks the parts of the site handed to it, then reports back.".into(),
            is_leader: i == 0,
        })
        .collect();
    let persona = "I plan the work and keep answers short. ".repeat(100);
    let rules: Vec<String> = (0..40).map(|i| format!("Rule {i:02}: {}", "keep it plain. ".repeat(6))).collect();
    let about_you = "I run a small bakery and want a website. ".repeat(97);
    let kinds = [WaitingKind::Result, WaitingKind::Alert, WaitingKind::Notice];
    let waiting: Vec<WaitingItem> = (0..WAITING / 2)
        .map(|i| WaitingItem {
            id: format!("w{i}"),
            kind: kinds[i % 3],
            from: Some(format!("agent{}", 1 + i % TEAMMATES)),
            text: format!("Item {i}: {}", "the menu page is done and reviewed. ".repeat(5)),
        })
        .collect();
    let peer_posts: Vec<PeerPost> = (0..WAITING / 2)
        .map(|i| PeerPost {
            id: format!("p{i}"),
            author: format!("agent{}", 1 + i % TEAMMATES),
            text: format!("Post {i}: {}", "I found the prices list in the shared folder. ".repeat(8)),
        })
        .collect();
    let message = TurnMessage::User("Plan the bakery website: pages and who does what.".into());
    let tools = [ToolName::Handoff, ToolName::PeerPost, ToolName::PeerRead];
    let turn = TeamTurn {
        runtime: RuntimeKind::ClaudeCode,
        persona: &persona,
        rules: &rules,
        about_you: &about_you,
        team_name: "Bakery",
        room_name: "General",
        is_general: true,
        me: "agent0",
        members: &members,
        kind: TurnKind::Leader,
        tools: &tools,
        routine: None,
        connectors: None,
        waiting: &waiting,
        peer_posts: &peer_posts,
        message: &message,
    };
    let sample = team_turn(&turn);
    let mut samples = Vec::with_capacity(RUNS);
    for _ in 0..RUNS {
        let start = Instant::now();
        black_box(team_turn(black_box(&turn)));
        samples.push(start.elapsed());
    }
    samples.sort();
    let median: Duration = samples[RUNS / 2];
    println!(
        "context: a leader's turn, {TEAMMATES} teammates, {WAITING} waiting items (half peer posts), persona {} / rules {} / About you {} chars: median {:.3} ms, p90 {:.3} ms ({} chars sent, {} delivered, {} wait)",
        persona.chars().count(),
        rules.iter().map(|r| r.chars().count()).sum::<usize>(),
        about_you.chars().count(),
        median.as_secs_f64() * 1e3,
        samples[RUNS * 9 / 10].as_secs_f64() * 1e3,
        sample.preamble().chars().count() + sample.message_text().chars().count(),
        sample.delivered.len(),
        sample.deferred.len(),
    );
}
