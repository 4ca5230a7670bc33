//! Assembling a team-chat turn's context at full budgets: 50 teammates, 10,000 waiting items
//! (half of them peer posts), rules, About you and persona at 4,000 chars each. Goal: ≤ 1 ms
//! median. And building the memory injection block (top 5 + 2 related facts, one too big to
//! fit): goal ≤ 1 ms median. And a task-runner run's three tiers at full budgets (persona 4,000
//! chars, description 20,000, resume and hand-off notes at their maximum, 100 KB of check output,
//! 10,000 waiting items, a full memory block): goal ≤ 1 ms median. And the agent-file plan with
//! all seven files at their budgets, on a warm session: goal ≤ 1 ms median. Pure code, no I/O.
//! The persona in the turns and tiers is the plan's: all seven files at their budgets.
//!
//! `cargo bench -p clawboo-engine --bench context` (scripts/bench runs it with the others).

use std::hint::black_box;
use std::time::{Duration, Instant};

use clawboo_engine::agents::{AgentFileName, RuntimeKind};
use clawboo_engine::context::files::{self, AgentFiles, Delivered, FilePlan, FileSession, FilesTurn};
use clawboo_engine::context::{
    memory_block, task_tiers, team_turn, BlockFact, FailedCheck, Member, PeerPost, TaskRun, TeamTurn, ToolName,
    TurnKind, TurnMessage, WaitingItem, WaitingKind, PROGRESS_NOTE_CHARS,
};

const TEAMMATES: usize = 50;
const WAITING: usize = 10_000;
const RUNS: usize = 500;
/// The memory block is tiny: more runs for a steady median.
const MEMORY_RUNS: usize = 5_000;

fn main() {
    turn_bench();
    memory_block_bench();
    task_tiers_bench();
    file_plan_bench();
}

/// Every agent file at its budget (SOUL.md 4,000 chars … AGENTS.md 16,000), non-ASCII included.
fn full_files() -> AgentFiles {
    AgentFileName::ALL.into_iter().fold(AgentFiles::default(), |files, file| {
        let text: String =
            "Règle: write plain copy, check the work. ".repeat(500).chars().take(files::budget(file)).collect();
        files.with(file, text)
    })
}

fn plan(files: &AgentFiles, session: &FileSession) -> FilePlan {
    files::plan(&FilesTurn {
        runtime: RuntimeKind::ClaudeCode,
        files,
        memory_tools: false,
        discovers_agents_md: false,
        unmanaged: false,
        session,
        heartbeat: false,
        project: None,
    })
    .expect("every file at its budget")
}

/// The plan for a warm turn of a session holding last turn's references: hashing seven files at
/// their budgets (52,000 chars) and comparing.
fn file_plan_bench() {
    let files = full_files();
    let first = plan(&files, &FileSession::New);
    let warm: Vec<Delivered> = first.delivered_references();
    let session = FileSession::Warm(warm);
    let mut samples = Vec::with_capacity(RUNS);
    for _ in 0..RUNS {
        let start = Instant::now();
        black_box(plan(black_box(&files), black_box(&session)));
        samples.push(start.elapsed());
    }
    samples.sort();
    println!(
        "context: the agent-file plan, seven files at their budgets, a warm session: median {:.3} ms, p90 {:.3} ms ({} chars of persona and instructions)",
        samples[RUNS / 2].as_secs_f64() * 1e3,
        samples[RUNS * 9 / 10].as_secs_f64() * 1e3,
        first.persona.chars().count() + first.instructions.chars().count(),
    );
}

/// Every tier at its fullest, on Claude Code (the persona is sent) without live streaming (the
/// runtime note too), so every section is built.
fn task_tiers_bench() {
    let description = "Add the menu page: every bread, its price, a photo — crème, brûlée. ".repeat(300);
    let description: String = description.chars().take(20_000).collect();
    let note: String = "Wrote src/menu.html; prices next. ".repeat(70).chars().take(PROGRESS_NOTE_CHARS).collect();
    let mut output = "test menu::renders_item ... ok — ```pain``` 日本語\n".repeat(2_000);
    let end = (0..=100_000).rev().find(|i| output.is_char_boundary(*i)).unwrap_or(0);
    output.truncate(end);
    let check = FailedCheck { command: "cargo test -p bakery", exit_code: Some(101), output: &output };
    let kinds = [WaitingKind::Result, WaitingKind::Alert, WaitingKind::Notice];
    let waiting: Vec<WaitingItem> = (0..WAITING)
        .map(|i| WaitingItem {
            id: format!("w{i}"),
            kind: kinds[i % 3],
            from: Some(format!("agent{}", 1 + i % TEAMMATES)),
            text: format!("Item {i}: {}", "the menu page is done and reviewed. ".repeat(5)),
        })
        .collect();
    let texts: Vec<String> =
        (0..7).map(|i| format!("Fact {i}: {}", "Les prix sont dans docs/prix.md — pain à 4 €. ".repeat(4))).collect();
    let ids: Vec<String> = (0..7).map(|i| format!("m-{:04x}", 0x7f3a + i)).collect();
    let facts: Vec<BlockFact> = ids.iter().zip(&texts).map(|(id, text)| BlockFact { id, text }).collect();
    let memory = memory_block(&facts[..5], &facts[5..]);
    let tools = [
        ToolName::MemorySearch,
        ToolName::MemoryGet,
        ToolName::MemorySave,
        ToolName::PeerPost,
        ToolName::PeerRead,
        ToolName::NoteSave,
    ];
    let files = plan(&full_files(), &FileSession::New);
    let run = TaskRun {
        runtime: RuntimeKind::ClaudeCode,
        files: &files,
        number: 12,
        title: "Build the menu page",
        description: &description,
        tools: &tools,
        streams_text: false,
        resume: Some(&note),
        cut_off: true,
        failed_check: Some(&check),
        handoff_note: Some(&note),
        waiting: &waiting,
        memory: Some(&memory),
        routine: None,
    };
    let sample = task_tiers(&run);
    let mut samples = Vec::with_capacity(RUNS);
    for _ in 0..RUNS {
        let start = Instant::now();
        black_box(task_tiers(black_box(&run)));
        samples.push(start.elapsed());
    }
    samples.sort();
    let a = &sample.assembled;
    println!(
        "context: a task run's tiers, persona and instructions {} / description {} / notes {} chars, {} KB of check output, {WAITING} waiting items, {} facts: median {:.3} ms, p90 {:.3} ms ({} sections, {} chars sent, {} delivered, {} wait)",
        files.persona.chars().count() + files.instructions.chars().count(),
        description.chars().count(),
        note.chars().count(),
        check.output.len() / 1_000,
        sample.cited.len(),
        samples[RUNS / 2].as_secs_f64() * 1e3,
        samples[RUNS * 9 / 10].as_secs_f64() * 1e3,
        a.sections.len(),
        a.preamble().chars().count() + a.message_text().chars().count(),
        a.delivered.len(),
        a.deferred.len(),
    );
}

/// Facts as long as they come (`MAX_FACT_CHARS`-sized ones skipped), in a multi-byte script
/// where it matters: chars are counted, not bytes.
fn memory_block_bench() {
    let texts: Vec<String> = (0..7)
        .map(|i| match i {
            1 => format!("Fact {i}: {}", "Les prix sont dans docs/prix.md — pain à 4 €. ".repeat(42)),
            _ => format!("Fact {i}: {}", "Les prix sont dans docs/prix.md — pain à 4 €. ".repeat(4)),
        })
        .collect();
    let ids: Vec<String> = (0..7).map(|i| format!("m-{:04x}", 0x7f3a + i)).collect();
    let facts: Vec<BlockFact> = ids.iter().zip(&texts).map(|(id, text)| BlockFact { id, text }).collect();
    let (top, related) = facts.split_at(5);
    let sample = memory_block(top, related);
    let mut samples = Vec::with_capacity(MEMORY_RUNS);
    for _ in 0..MEMORY_RUNS {
        let start = Instant::now();
        black_box(memory_block(black_box(top), black_box(related)));
        samples.push(start.elapsed());
    }
    samples.sort();
    println!(
        "context: the memory block, top 5 + 2 related (one of {} chars skipped): median {:.4} ms, p90 {:.4} ms ({} chars, {} facts given)",
        texts[1].chars().count(),
        samples[MEMORY_RUNS / 2].as_secs_f64() * 1e3,
        samples[MEMORY_RUNS * 9 / 10].as_secs_f64() * 1e3,
        sample.text.chars().count(),
        sample.given.len(),
    );
}

fn turn_bench() {
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
    let files = plan(&full_files(), &FileSession::New);
    let turn = TeamTurn {
        runtime: RuntimeKind::ClaudeCode,
        files: &files,
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
        "context: a leader's turn, {TEAMMATES} teammates, {WAITING} waiting items (half peer posts), persona and instructions {} / rules {} / About you {} chars: median {:.3} ms, p90 {:.3} ms ({} chars sent, {} delivered, {} wait)",
        files.persona.chars().count() + files.instructions.chars().count(),
        rules.iter().map(|r| r.chars().count()).sum::<usize>(),
        about_you.chars().count(),
        median.as_secs_f64() * 1e3,
        samples[RUNS * 9 / 10].as_secs_f64() * 1e3,
        sample.preamble().chars().count() + sample.message_text().chars().count(),
        sample.delivered.len(),
        sample.deferred.len(),
    );
}
