//! The agent-file delivery plan (`context::files`), per runtime and per state of the runtime
//! session: golden snapshots of each (new session, warm turn, changed file, cold resume,
//! oversize), and the rules they follow.

use clawboo_engine::agents::{AgentFileName, RuntimeKind};
use clawboo_engine::context::files::{
    self, AgentFiles, Delivered, FilePlan, FileRoute, FileSession, FileStatus, FilesTurn, MAX_PREPARED_BYTES,
};
use clawboo_engine::vocab::thousands;
use clawboo_engine::ErrorCode;

use super::fixture::RUNTIMES;

fn agent_files() -> AgentFiles {
    AgentFiles::default()
        .with(AgentFileName::Soul, "You are Ada. You write plain, friendly copy.\n")
        .with(AgentFileName::Identity, "- Name: Ada\n- Voice: warm\n")
        .with(AgentFileName::User, "Sam runs a bakery and likes short answers.\n")
        .with(AgentFileName::Agents, "Run `make check` before calling anything done.\n")
        .with(AgentFileName::Memory, "- 2026-11-02: prices moved to docs/prices.md\n")
        .with(AgentFileName::Bootstrap, "Introduce yourself and ask Sam about the menu.\n")
        .with(AgentFileName::Heartbeat, "Check the oven log.\n")
}

struct Case {
    runtime: RuntimeKind,
    files: AgentFiles,
    memory_tools: bool,
    in_workspace: bool,
    session: FileSession,
    heartbeat: bool,
    unmanaged: bool,
    project: Option<files::ProjectFile>,
}

impl Case {
    fn new(runtime: RuntimeKind) -> Self {
        Self {
            runtime,
            files: agent_files(),
            memory_tools: false,
            in_workspace: true,
            session: FileSession::New,
            heartbeat: false,
            unmanaged: false,
            project: None,
        }
    }

    fn plan(&self) -> clawboo_engine::Result<FilePlan> {
        files::plan(&FilesTurn {
            runtime: self.runtime,
            files: &self.files,
            memory_tools: self.memory_tools,
            discovers_agents_md: self.in_workspace,
            unmanaged: self.unmanaged,
            session: &self.session,
            heartbeat: self.heartbeat,
            project: self.project.as_ref(),
        })
    }

    /// What a run in this case delivers, as the next turn's session would hold it.
    fn delivered(&self) -> Vec<Delivered> {
        self.plan().unwrap().delivered_references()
    }
}

fn render(state: &str, plan: &clawboo_engine::Result<FilePlan>) -> String {
    let mut out = format!("════ {state} ════\n");
    let plan = match plan {
        Ok(plan) => plan,
        Err(e) => {
            out.push_str(&format!("refused ({:?}): {e}\n", e.code()));
            return out;
        }
    };
    for (slot, text) in [
        ("setup", &plan.setup),
        ("persona", &plan.persona),
        ("instructions", &plan.instructions),
        ("references", &plan.references),
    ] {
        if !text.is_empty() {
            out.push_str(&format!("── {slot} ──\n{text}\n"));
        }
    }
    out.push_str("── files ──\n");
    for f in &plan.files {
        out.push_str(&format!(
            "{:<13}{:<15}{:<18}{:>5} / {:<6}{}\n",
            f.file.as_str(),
            format!("{:?}", f.route),
            format!("{:?}", f.status),
            f.chars,
            f.budget,
            f.route_label
        ));
    }
    out
}

/// Every state of a one-to-one session on `runtime`, in turn order.
fn states(runtime: RuntimeKind) -> String {
    let first = Case::new(runtime);
    let mut out = render("turn 1: new session", &first.plan());

    let mut warm = Case::new(runtime);
    warm.session = FileSession::Warm(first.delivered());
    out.push_str(&render("turn 2: warm, nothing changed", &warm.plan()));

    let mut changed = Case::new(runtime);
    changed.files = agent_files().with(AgentFileName::Bootstrap, "Menu is done; ask Sam about opening hours.\n");
    changed.session = FileSession::Warm(first.delivered());
    out.push_str(&render("turn 3: warm, BOOTSTRAP.md changed", &changed.plan()));

    let mut cold = Case::new(runtime);
    cold.session = FileSession::ColdResume;
    out.push_str(&render("cold resume", &cold.plan()));

    let mut tools = Case::new(runtime);
    tools.memory_tools = true;
    out.push_str(&render("new session, memory tools on", &tools.plan()));

    let mut project = Case::new(runtime);
    project.in_workspace = false;
    out.push_str(&render("task run in a project folder (not the agent's own)", &project.plan()));

    let mut heartbeat = Case::new(runtime);
    heartbeat.heartbeat = true;
    out.push_str(&render("heartbeat run", &heartbeat.plan()));

    let mut oversize = Case::new(runtime);
    oversize.files = agent_files().with(AgentFileName::User, "Sam likes bread. ".repeat(150));
    out.push_str(&render("oversize USER.md", &oversize.plan()));
    out
}

#[test]
fn golden_plans_per_runtime_and_state() {
    for runtime in RUNTIMES {
        insta::assert_snapshot!(format!("files_{}", runtime.as_str()), states(runtime));
    }
    let mut gateway = Case::new(RuntimeKind::Openclaw);
    gateway.unmanaged = true;
    insta::assert_snapshot!("files_openclaw_own_gateway", render("a user's own Gateway", &gateway.plan()));
}

fn status(plan: &FilePlan, file: AgentFileName) -> FileStatus {
    plan.files.iter().find(|f| f.file == file).unwrap().status
}

#[test]
fn a_reference_goes_on_a_new_session_is_left_out_while_unchanged_and_goes_again_when_changed() {
    for runtime in RUNTIMES {
        let first = Case::new(runtime);
        let plan = first.plan().unwrap();
        assert_eq!(status(&plan, AgentFileName::Bootstrap), FileStatus::Sent);
        assert_eq!(plan.references.matches("Introduce yourself").count(), 1, "{runtime:?}");

        let mut warm = Case::new(runtime);
        warm.session = FileSession::Warm(first.delivered());
        let plan = warm.plan().unwrap();
        assert_eq!(status(&plan, AgentFileName::Bootstrap), FileStatus::AlreadyDelivered);
        assert_eq!(status(&plan, AgentFileName::Memory), FileStatus::AlreadyDelivered);
        assert!(plan.references.is_empty(), "{runtime:?}: {}", plan.references);
        assert!(plan.delivered_references().is_empty());

        warm.files = agent_files().with(AgentFileName::Bootstrap, "New first-run steps.");
        let plan = warm.plan().unwrap();
        assert_eq!(status(&plan, AgentFileName::Bootstrap), FileStatus::Sent);
        assert_eq!(status(&plan, AgentFileName::Memory), FileStatus::AlreadyDelivered);
        assert!(plan.references.contains("New first-run steps.") && !plan.references.contains("prices moved"));

        warm.session = FileSession::ColdResume;
        let plan = warm.plan().unwrap();
        assert!(plan.references.contains("New first-run steps.") && plan.references.contains("prices moved"));
    }
}

#[test]
fn each_file_lands_once_in_its_slot() {
    for runtime in RUNTIMES {
        let plan = Case::new(runtime).plan().unwrap();
        let all = [&plan.setup, &plan.persona, &plan.instructions, &plan.references].map(|s| s.as_str()).join("\n");
        let once = |needle: &str| all.matches(needle).count();
        let (persona, agents_md) = match runtime {
            RuntimeKind::Native => (&plan.setup, &plan.setup),
            _ => (&plan.persona, &plan.instructions),
        };
        for text in ["You are Ada", "Voice: warm", "short answers"] {
            // OpenClaw reads the persona files from its workspace copy: none in Clawboo's text.
            let expected = usize::from(runtime != RuntimeKind::Openclaw);
            assert_eq!(once(text), expected, "{runtime:?} {text}");
            assert_eq!(persona.contains(text), expected == 1, "{runtime:?} {text}");
        }
        // AGENTS.md is discovered by Codex, Hermes and OpenClaw; Claude Code and Native get it
        // as instructions.
        let sent_agents = matches!(runtime, RuntimeKind::Native | RuntimeKind::ClaudeCode);
        assert_eq!(once("make check"), usize::from(sent_agents), "{runtime:?}");
        assert_eq!(agents_md.contains("make check"), sent_agents);
        assert_eq!(plan.references.matches("Introduce yourself").count(), 1);
        assert_eq!(once("oven log"), 0, "HEARTBEAT.md only on heartbeat runs");
    }
}

#[test]
fn memory_md_is_a_pointer_when_the_run_has_the_memory_tools() {
    for runtime in RUNTIMES {
        let mut case = Case::new(runtime);
        case.memory_tools = true;
        // A MEMORY.md over its budget does not stop a run that only gets the pointer.
        case.files = agent_files().with(AgentFileName::Memory, "x".repeat(files::MEMORY_BUDGET + 1));
        let plan = case.plan().unwrap();
        let slot = if runtime == RuntimeKind::Native { &plan.setup } else { &plan.instructions };
        assert!(slot.contains("memory_get") && slot.contains("\"MEMORY.md\""), "{runtime:?}");
        assert!(!plan.references.contains("xxx"));
        let memory = plan.files.iter().find(|f| f.file == AgentFileName::Memory).unwrap();
        assert_eq!((memory.route, memory.status), (FileRoute::MemoryPointer, FileStatus::Sent));
        case.memory_tools = false;
        let err = case.plan().unwrap_err();
        assert!(err.to_string().starts_with("MEMORY.md has 8,001 characters, over its budget of 8,000"), "{err}");
    }
}

#[test]
fn oversize_refuses_naming_every_file_over_and_never_cuts() {
    let mut case = Case::new(RuntimeKind::Codex);
    case.files = agent_files()
        .with(AgentFileName::User, "é".repeat(files::USER_BUDGET + 1))
        .with(AgentFileName::Agents, "a".repeat(files::CODEX_AGENTS_LIMIT + 345));
    let err = case.plan().unwrap_err();
    assert_eq!(err.code(), ErrorCode::ContextTooLarge);
    let text = err.to_string();
    assert!(text.contains("USER.md has 2,001 characters, over its budget of 2,000"), "{text}");
    // Codex reads AGENTS.md itself: over Codex's own limit it is not Clawboo's to refuse.
    assert!(!text.contains("AGENTS.md"), "{text}");
    assert!(text.ends_with("nothing was sent."), "{text}");
    // Exactly at the budget: sent whole.
    case.files = agent_files().with(AgentFileName::User, "é".repeat(files::USER_BUDGET));
    assert!(case.plan().unwrap().persona.contains(&"é".repeat(files::USER_BUDGET)));
}

#[test]
fn the_whole_prepared_context_has_a_maximum() {
    let half = "x".repeat(MAX_PREPARED_BYTES / 2);
    assert!(files::check_prepared(&[&half, &half]).is_ok());
    let err = files::check_prepared(&[&half, &half, "y"]).unwrap_err();
    assert_eq!(err.code(), ErrorCode::ContextTooLarge);
    assert!(err.to_string().contains("262,145 bytes, over the maximum of 262,144 (256 KiB)"), "{err}");
}

#[test]
fn empty_files_are_marked_and_send_nothing() {
    let mut case = Case::new(RuntimeKind::ClaudeCode);
    case.files = AgentFiles::default().with(AgentFileName::Soul, "You are Ada.").with(AgentFileName::Bootstrap, "  \n");
    let plan = case.plan().unwrap();
    assert_eq!(status(&plan, AgentFileName::Bootstrap), FileStatus::Empty);
    assert_eq!(status(&plan, AgentFileName::User), FileStatus::Empty);
    assert!(plan.references.is_empty() && plan.instructions.is_empty());
    assert!(!plan.persona.contains("USER.md"));
}

#[test]
fn a_users_own_gateway_gets_nothing_and_no_budget_stops_it() {
    let mut case = Case::new(RuntimeKind::Openclaw);
    case.unmanaged = true;
    case.files = agent_files().with(AgentFileName::Soul, "s".repeat(files::SOUL_BUDGET * 2));
    let plan = case.plan().unwrap();
    assert!(plan.files.iter().all(|f| f.status == FileStatus::NotSent));
    assert!([&plan.setup, &plan.persona, &plan.instructions, &plan.references].iter().all(|s| s.is_empty()));
}

#[test]
fn setup_parts_name_the_files_a_session_starts_with() {
    let plan = Case::new(RuntimeKind::Codex).plan().unwrap();
    let names: Vec<&str> = plan.setup_parts().into_iter().map(|(name, _)| name).collect();
    assert_eq!(names, ["SOUL.md", "AGENTS.md", "IDENTITY.md", "USER.md"]);
    // The hash is of the text as on disk, stable across builds (it is stored).
    assert_eq!(files::hash(""), "cbf29ce484222325");
}

#[test]
fn memory_md_behind_its_pointer_counts_by_the_pointer_not_its_text() {
    let mut case = Case::new(RuntimeKind::Codex);
    case.memory_tools = true;
    let before = case.plan().unwrap();
    case.files = agent_files().with(AgentFileName::Memory, "- A new durable note.");
    let after = case.plan().unwrap();
    assert_eq!(before.setup_parts(), after.setup_parts(), "editing MEMORY.md starts no fresh session");
    assert!(after.setup_parts().iter().any(|(name, _)| *name == "MEMORY.md"), "the pointer itself is a part");
}

/// Issue #24, item 7: AGENTS.md the runtime reads itself is held to that runtime's own limit,
/// never to the budget Clawboo keeps for what it sends; where Clawboo sends it, its budget holds.
#[test]
fn agents_md_a_runtime_reads_itself_is_held_to_the_runtimes_own_limit() {
    let over_clawboos = "a".repeat(files::AGENTS_BUDGET + 1);
    for (runtime, in_workspace, limit) in [
        (RuntimeKind::Codex, true, Some(files::CODEX_AGENTS_LIMIT)),
        (RuntimeKind::Hermes, true, Some(files::HERMES_CONTEXT_FILE_LIMIT)),
        (RuntimeKind::Openclaw, true, Some(files::OPENCLAW_BOOTSTRAP_FILE_LIMIT)),
        // Hermes working elsewhere, Claude Code and Native: Clawboo sends it, within its budget.
        (RuntimeKind::Hermes, false, None),
        (RuntimeKind::ClaudeCode, true, None),
        (RuntimeKind::Native, true, None),
    ] {
        let mut case = Case::new(runtime);
        case.in_workspace = in_workspace;
        case.files = agent_files().with(AgentFileName::Agents, over_clawboos.clone());
        let routes = files::routes(&FilesTurn {
            runtime,
            files: &case.files,
            memory_tools: false,
            discovers_agents_md: in_workspace,
            unmanaged: false,
            session: &FileSession::New,
            heartbeat: false,
            project: None,
        });
        let agents = routes.iter().find(|r| r.file == AgentFileName::Agents).unwrap();
        match limit {
            Some(limit) => {
                // Not blocked for Clawboo's budget; the editor's meter shows the runtime's limit.
                let plan = case.plan().unwrap_or_else(|e| panic!("{runtime:?}: {e}"));
                let delivery = plan.files.iter().find(|f| f.file == AgentFileName::Agents).unwrap();
                assert_eq!((delivery.status, delivery.budget as usize), (FileStatus::ReadByRuntime, limit));
                assert_eq!(agents.budget as usize, limit, "{runtime:?}");
                assert_eq!(delivery.note, None, "{runtime:?}: within the runtime's limit");
                // At the runtime's limit it runs; one over, it runs too (the runtime reads it, not
                // Clawboo), with a line saying what the runtime does with the rest.
                case.files = agent_files().with(AgentFileName::Agents, "b".repeat(limit));
                assert!(case.plan().is_ok(), "{runtime:?}");
                case.files = agent_files().with(AgentFileName::Agents, "b".repeat(limit + 1));
                let plan = case.plan().unwrap_or_else(|e| panic!("{runtime:?}: one over its own limit: {e}"));
                let delivery = plan.files.iter().find(|f| f.file == AgentFileName::Agents).unwrap();
                assert_eq!(delivery.status, FileStatus::ReadByRuntime);
                let note = delivery.note.as_deref().unwrap_or_else(|| panic!("{runtime:?}: no line over the limit"));
                let own = format!(
                    "AGENTS.md has {} characters, over {}'s own limit of {}: the run went on",
                    thousands(limit + 1),
                    runtime.label(),
                    thousands(limit)
                );
                assert!(note.starts_with(&own) && note.contains("Clawboo cuts nothing"), "{runtime:?}: {note}");
                assert!(!plan.instructions.contains("bbbb"), "{runtime:?}: read by the runtime, never sent");
            }
            None => {
                let err = case.plan().unwrap_err().to_string();
                assert!(err.contains("AGENTS.md has 16,001 characters, over its budget of 16,000"), "{err}");
                assert_eq!(agents.budget as usize, files::AGENTS_BUDGET, "{runtime:?}");
            }
        }
    }
    // The persona files OpenClaw reads keep the seed's persona budget.
    let mut case = Case::new(RuntimeKind::Openclaw);
    case.files = agent_files().with(AgentFileName::Soul, "s".repeat(files::SOUL_BUDGET + 1));
    assert!(case.plan().unwrap_err().to_string().contains("over its budget of 4,000"));
}

/// Issue #24, item 6: a run in a project folder gets the repository's own instructions: Claude
/// Code its CLAUDE.md, the others AGENTS.md; Hermes reads it itself, Clawboo sends it to the
/// rest; over its budget the run goes on and the delivery says what happened, in one line.
#[test]
fn the_repositorys_own_instructions_reach_every_runtime_within_a_stated_budget() {
    let repo_text = "Use tabs. REPO-INSTRUCTIONS-MARK";
    for runtime in RUNTIMES {
        let mut case = Case::new(runtime);
        case.in_workspace = false;
        case.project = Some(files::ProjectFile { folder: "/work/bakery".into(), text: repo_text.into() });
        let plan = case.plan().unwrap();
        let project = plan.project.clone().expect("a project delivery");
        let name = if runtime == RuntimeKind::ClaudeCode { "CLAUDE.md" } else { "AGENTS.md" };
        assert_eq!((project.name.as_str(), project.folder.as_str()), (name, "/work/bakery"));
        assert_eq!(project.chars as usize, repo_text.chars().count());
        assert_eq!(project.note, None);
        let slot = if runtime == RuntimeKind::Native { &plan.setup } else { &plan.instructions };
        if runtime == RuntimeKind::Hermes {
            assert_eq!((project.route, project.status), (FileRoute::Workspace, FileStatus::ReadByRuntime));
            assert_eq!(project.budget as usize, files::HERMES_CONTEXT_FILE_LIMIT);
            assert!(!slot.contains("REPO-INSTRUCTIONS-MARK"), "Hermes reads it itself: not sent twice");
        } else {
            assert_eq!((project.route, project.status), (FileRoute::Instructions, FileStatus::Sent), "{runtime:?}");
            assert_eq!(project.budget as usize, files::PROJECT_INSTRUCTIONS_BUDGET);
            assert_eq!(slot.matches("REPO-INSTRUCTIONS-MARK").count(), 1, "{runtime:?}: {slot}");
            assert!(slot.contains(&format!("## The project's instructions ({name})")), "{slot}");
        }
        assert!(project.route_label.contains(if runtime == RuntimeKind::Hermes {
            "read by Hermes"
        } else {
            "sent by Clawboo"
        }));

        // Over its budget: the run is not refused; nothing is cut; a clear line says what happened.
        let budget = project.budget as usize;
        case.project = Some(files::ProjectFile { folder: "/work/bakery".into(), text: "r".repeat(budget + 1) });
        let plan = case.plan().unwrap_or_else(|e| panic!("{runtime:?}: never blocked: {e}"));
        let project = plan.project.unwrap();
        let note = project.note.expect("a line about it");
        let slot = if runtime == RuntimeKind::Native { &plan.setup } else { &plan.instructions };
        assert!(!slot.contains("rrrr"), "{runtime:?}: not sent, never cut");
        if runtime == RuntimeKind::Hermes {
            assert_eq!(project.status, FileStatus::ReadByRuntime);
            assert!(
                note.contains("over Hermes's own limit of 20,000") || note.contains("over Hermes' own limit"),
                "{note}"
            );
        } else {
            assert_eq!(project.status, FileStatus::NotSent);
            assert!(note.contains(&format!("over its budget of {}: not sent", thousands(budget))), "{note}");
        }
        // No such file in the project: marked empty, nothing sent.
        case.project = Some(files::ProjectFile { folder: "/work/bakery".into(), text: String::new() });
        assert_eq!(case.plan().unwrap().project.unwrap().status, FileStatus::Empty);
    }
    // A user's own OpenClaw Gateway: Clawboo sends nothing.
    let mut case = Case::new(RuntimeKind::Openclaw);
    case.unmanaged = true;
    case.project = Some(files::ProjectFile { folder: "/work/bakery".into(), text: repo_text.into() });
    assert_eq!(case.plan().unwrap().project.unwrap().status, FileStatus::NotSent);
}

/// The UI's fake backend (`ui/src/test/fakeFileRoutes.ts`) answers with what this writes:
/// every runtime's file routes in a one-to-one chat in the agent's folder with the memory tools
/// on, a user's own OpenClaw Gateway, each route's words per runtime, and the budgets. Out of
/// step, this fails: regenerate with `UPDATE_FILE_ROUTES=1` and commit the file.
#[test]
fn the_ui_fakes_file_routes_are_the_engines() {
    let files = AgentFiles::default();
    let turn = |runtime, unmanaged| FilesTurn {
        runtime,
        files: &files,
        memory_tools: true,
        discovers_agents_md: true,
        unmanaged,
        session: &FileSession::New,
        heartbeat: false,
        project: None,
    };
    let routes: serde_json::Map<String, serde_json::Value> = RUNTIMES
        .iter()
        .map(|&runtime| {
            (runtime.as_str().to_owned(), serde_json::to_value(files::routes(&turn(runtime, false))).unwrap())
        })
        .collect();
    let all_routes = [
        FileRoute::Instructions,
        FileRoute::Workspace,
        FileRoute::Reference,
        FileRoute::MemoryPointer,
        FileRoute::Heartbeat,
        FileRoute::NotSent,
    ];
    let labels: serde_json::Map<String, serde_json::Value> = RUNTIMES
        .iter()
        .map(|&runtime| {
            let words: serde_json::Map<String, serde_json::Value> = all_routes
                .iter()
                .map(|&route| {
                    let name = serde_json::to_value(route).unwrap().as_str().unwrap().to_owned();
                    (name, files::route_label(runtime, route).into())
                })
                .collect();
            (runtime.as_str().to_owned(), words.into())
        })
        .collect();
    let budgets: serde_json::Map<String, serde_json::Value> =
        AgentFileName::ALL.iter().map(|&f| (f.as_str().to_owned(), files::budget(f).into())).collect();
    let runtime_limits: serde_json::Map<String, serde_json::Value> =
        RUNTIMES.iter().map(|&r| (r.as_str().to_owned(), files::runtime_limit(r).into())).collect();
    let generated = serde_json::json!({
        "routes": routes,
        "ownGatewayRoutes": files::routes(&turn(RuntimeKind::Openclaw, true)),
        "labels": labels,
        "budgets": budgets,
        "runtimeLimits": runtime_limits,
    });
    let text = format!("{}\n", serde_json::to_string_pretty(&generated).unwrap());
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../ui/src/test/engineFileRoutes.json");
    if std::env::var_os("UPDATE_FILE_ROUTES").is_some() {
        std::fs::write(&path, &text).unwrap();
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == text,
        "{} is out of step with the engine's file routes: run UPDATE_FILE_ROUTES=1 cargo test -p clawboo-engine \
         --test context the_ui_fakes_file_routes and commit it",
        path.display()
    );
}
