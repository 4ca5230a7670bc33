//! Project folders: two cards on one git repository run at once, each in its own worktree on its
//! own branch, each diff showing only its own work, the user's checkout untouched; worktrees
//! removed when their cards close (the branch kept for Done, deleted for Cancelled), or at the
//! next start when closed meanwhile; a team's folder; a plain folder used in place by one run at
//! a time.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::Ordering;
use std::time::Duration;

use clawboo_engine::board::{Actor, Card, CardStatus};
use clawboo_engine::context::files::{self, FileStatus};
use clawboo_engine::ErrorCode;
use clawboo_testkit::wait_for;

use super::{fixture, Fixture};

/// `git -C dir args…` with the machine's own git configuration left out; its stdout.
pub(super) fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap().trim().to_owned()
}

/// A repository on branch `main` with one commit (README.md).
pub(super) fn repo() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().canonicalize().unwrap();
    git(&path, &["init", "-q", "-b", "main"]);
    git(&path, &["config", "user.name", "Tester"]);
    git(&path, &["config", "user.email", "tester@example.com"]);
    std::fs::write(path.join("README.md"), "# The project\n").unwrap();
    git(&path, &["add", "README.md"]);
    git(&path, &["commit", "-q", "-m", "First"]);
    (dir, path)
}

pub(super) fn in_folder(f: &Fixture, title: &str, folder: &Path, check: Option<&str>) -> Card {
    f.card_with(title, |new| {
        new.project_folder = Some(folder.display().to_string());
        new.check_command = check.map(str::to_owned);
    })
}

pub(super) fn worktree_of(f: &Fixture, card: &Card) -> PathBuf {
    f.runtime.inputs_for(&card.title)[0].workspace.clone()
}

#[test]
fn two_cards_on_one_repository_work_apart_and_never_touch_the_users_checkout() {
    let f = fixture();
    let (_keep, repo) = repo();
    let head = git(&repo, &["rev-parse", "HEAD"]);
    // a's check passes only in a's own worktree, so a ends Done (its worktree then goes, its
    // branch stays); b has no check and waits In review in its worktree.
    let a = in_folder(&f, "put a.txt", &repo, Some("test -f a.txt && test ! -f b.txt"));
    let b = in_folder(&f, "put b.txt", &repo, None);
    f.start(&a);
    f.start(&b);
    assert_eq!(f.settled(&a).status, CardStatus::Done, "its check ran in its own worktree");
    assert_eq!(f.settled(&b).status, CardStatus::InReview);
    assert_eq!(f.runtime.most_at_once.load(Ordering::SeqCst), 2, "one repository, two runs at once");

    let (tree_a, tree_b) = (worktree_of(&f, &a), worktree_of(&f, &b));
    assert_ne!(tree_a, tree_b);
    for tree in [&tree_a, &tree_b] {
        assert!(tree.starts_with(f.data.data_dir().join("worktrees")), "{}", tree.display());
    }
    let agent_dir = f.engine.agents().workspaces().dir(&f.agent_id);
    let input = &f.runtime.inputs_for(&a.title)[0];
    assert_eq!(input.homes.agent_dir(), agent_dir, "the agent's private homes stay in its own folder");
    assert_eq!(git(&tree_b, &["rev-parse", "--abbrev-ref", "HEAD"]), format!("clawboo/card-{}", b.number));

    // Done: the work left uncommitted is committed on the branch, the worktree goes, the branch
    // stays for the user to merge, its diff still shown (the branch's commits).
    wait_for("a's worktree to go", Duration::from_secs(20), || (!tree_a.exists()).then_some(()));
    let branch_a = format!("clawboo/card-{}", a.number);
    assert_eq!(git(&repo, &["branch", "--list", &branch_a]).trim_start_matches(['*', '+', ' ']), branch_a);
    let kept = f.engine.runner().diff(&a.id).unwrap();
    assert_eq!(
        (kept.files_changed.clone(), kept.live, kept.base.clone()),
        (vec!["a.txt".to_owned()], false, head.clone())
    );
    assert!(!kept.patch.contains("b.txt"), "{}", kept.patch);
    assert_eq!(git(&repo, &["log", "-1", "--format=%an", &branch_a]), "Clawboo");
    assert_eq!(git(&repo, &["show", &format!("{branch_a}:a.txt")]), "written by put a.txt");

    // b, still open: its worktree as it is now, with only its own file.
    let diff = f.engine.runner().diff(&b.id).unwrap();
    assert_eq!(diff.files_changed, ["b.txt"]);
    assert_eq!(diff.base, head);
    assert_eq!(diff.branch, format!("clawboo/card-{}", b.number));
    assert!(diff.live && !diff.truncated);
    assert!(diff.patch.contains("+written by put b.txt"), "{}", diff.patch);
    assert!(!diff.patch.contains("a.txt"), "{}", diff.patch);

    // The user's checkout: same branch, same commit, nothing changed or added.
    assert_eq!(git(&repo, &["rev-parse", "--abbrev-ref", "HEAD"]), "main");
    assert_eq!(git(&repo, &["rev-parse", "HEAD"]), head);
    assert_eq!(git(&repo, &["status", "--porcelain"]), "");
    assert!(!repo.join("a.txt").exists() && !repo.join("b.txt").exists());

    // Cancelled: the worktree and its branch go.
    f.engine.board().move_card(Actor::User, &b.id, CardStatus::Cancelled, None, None).unwrap();
    let branch_b = format!("clawboo/card-{}", b.number);
    wait_for("b's worktree and branch to go", Duration::from_secs(20), || {
        (!tree_b.exists() && git(&repo, &["branch", "--list", &branch_b]).is_empty()).then_some(())
    });
    assert_eq!(f.engine.runner().diff(&b.id).unwrap_err().code(), ErrorCode::NotFound);
    assert_eq!(git(&repo, &["worktree", "list", "--porcelain"]).matches("worktree ").count(), 1, "only the user's");
    assert_eq!(git(&repo, &["status", "--porcelain"]), "");
}

#[test]
fn a_card_started_again_goes_on_in_its_worktree() {
    let f = fixture();
    let (_keep, repo) = repo();
    let card = in_folder(&f, "put again.txt", &repo, None);
    f.start(&card);
    f.settled(&card);
    f.engine.board().move_card(Actor::User, &card.id, CardStatus::Todo, None, None).unwrap();
    f.start(&card);
    f.wait_inputs(&card.title, 2);
    assert_eq!(f.settled(&card).status, CardStatus::InReview);
    let inputs = f.runtime.inputs_for(&card.title);
    assert_eq!(inputs[0].workspace, inputs[1].workspace, "the same worktree, its earlier work kept");
    assert_eq!(f.engine.runner().diff(&card.id).unwrap().files_changed, ["again.txt"]);
}

#[test]
fn a_plain_folder_is_used_in_place_by_one_run_at_a_time() {
    let f = fixture();
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().canonicalize().unwrap();
    let a = in_folder(&f, "put one.txt", &path, None);
    let b = in_folder(&f, "put two.txt", &path, None);
    let first = f.engine.runner().start(&a.id, Default::default()).unwrap();
    let second = f.engine.runner().start(&b.id, Default::default()).unwrap();
    assert!(!first.queued);
    assert!(second.queued, "the folder is in use: the second card waits in the queue");
    assert_eq!(f.settled(&a).status, CardStatus::InReview);
    assert_eq!(f.settled(&b).status, CardStatus::InReview);
    assert_eq!(f.runtime.most_at_once.load(Ordering::SeqCst), 1);
    assert_eq!(worktree_of(&f, &a), path);
    assert!(path.join("one.txt").exists() && path.join("two.txt").exists());
    let err = f.engine.runner().diff(&a.id).unwrap_err();
    assert_eq!(err.code(), ErrorCode::InvalidInput, "{err}");
}

#[test]
fn a_card_on_a_team_works_in_the_teams_project_folder_unless_it_names_its_own() {
    let f = fixture();
    let (_keep, repo) = repo();
    let own = tempfile::tempdir().unwrap();
    let own = own.path().canonicalize().unwrap();
    let teams = f.engine.teams();
    let team = teams
        .create(clawboo_engine::teams::NewTeam {
            name: "Crew".into(),
            member_ids: vec![f.agent_id.clone()],
            leader_id: Some(f.agent_id.clone()),
        })
        .unwrap();
    let err = teams.set_project_folder(&team.id, Some("relative/dir")).unwrap_err();
    assert_eq!(err.code(), ErrorCode::InvalidInput);
    let team = teams.set_project_folder(&team.id, Some(&repo.display().to_string())).unwrap();
    assert_eq!(team.project_folder, Some(repo.display().to_string()));

    let on_team = f.card_with("put team.txt", |c| c.team_id = Some(team.id.clone()));
    let mine = f.card_with("put mine.txt", |c| {
        c.team_id = Some(team.id.clone());
        c.project_folder = Some(own.display().to_string());
    });
    f.start(&on_team);
    f.start(&mine);
    assert_eq!(f.settled(&on_team).status, CardStatus::InReview);
    assert_eq!(f.settled(&mine).status, CardStatus::InReview);
    assert!(worktree_of(&f, &on_team).starts_with(f.data.data_dir().join("worktrees")));
    assert_eq!(f.engine.runner().diff(&on_team.id).unwrap().files_changed, ["team.txt"]);
    assert_eq!(worktree_of(&f, &mine), own, "the card's own folder wins");
    assert_eq!(git(&repo, &["status", "--porcelain"]), "");

    let team = teams.set_project_folder(&team.id, Some("  ")).unwrap();
    assert_eq!(team.project_folder, None, "blank clears it");
}

#[test]
fn a_card_closed_while_clawboo_was_not_running_loses_its_worktree_at_the_next_start() {
    let f = fixture();
    let (_keep, repo) = repo();
    let card = in_folder(&f, "put late.txt", &repo, None);
    f.start(&card);
    assert_eq!(f.settled(&card).status, CardStatus::InReview);
    let tree = worktree_of(&f, &card);
    assert!(tree.exists());
    let super::Fixture { data, engine, .. } = f;
    drop(engine);
    // Closed behind Clawboo's back (as by an older build, or a crash mid-removal).
    let db = rusqlite::Connection::open(data.data_dir().join("clawboo.db")).unwrap();
    db.execute("UPDATE cards SET status = 'cancelled' WHERE id = ?1", [&card.id]).unwrap();
    drop(db);
    let _f = super::fixture_with(data, super::Scripted::default(), false);
    assert!(!tree.exists(), "swept at start");
    assert_eq!(git(&repo, &["branch", "--list", &format!("clawboo/card-{}", card.number)]), "");
    assert_eq!(git(&repo, &["status", "--porcelain"]), "");
}

#[test]
fn a_repository_git_cannot_open_is_refused_never_worked_in_place() {
    let f = fixture();
    let folder = tempfile::tempdir().unwrap();
    std::fs::write(folder.path().join(".git"), "gitdir: /nowhere/at/all\n").unwrap();
    let card = in_folder(&f, "put here.txt", folder.path(), None);
    let err = f.engine.runner().start(&card.id, Default::default()).unwrap_err();
    assert_eq!(err.code(), ErrorCode::Git, "{err}");
    assert!(err.to_string().contains("looks like it is in a git repository"), "{err}");
    assert_eq!(f.engine.board().get(&card.id).unwrap().status, CardStatus::Todo, "nothing changed");
    assert!(!folder.path().join("here.txt").exists());
}

/// Issue #24, item 6: a run in a card's worktree gets the repository's own AGENTS.md (Native: in
/// its system prompt, from Clawboo), shown in What this agent saw with its route; over its
/// budget the run still goes, without it, and What this agent saw says so.
#[test]
fn a_run_in_a_worktree_gets_the_repositorys_own_instructions_within_their_budget() {
    let f = fixture();
    let (_dir, repo) = repo();
    std::fs::write(repo.join("AGENTS.md"), "Run `make test` first. REPO-AGENTS-MARK-3c1d\n").unwrap();
    git(&repo, &["add", "AGENTS.md"]);
    git(&repo, &["commit", "-q", "-m", "instructions"]);
    let card = f.card_with("follow the house rules", |c| c.project_folder = Some(repo.display().to_string()));
    let run_id = f.start(&card);
    f.settled(&card);
    let input = &f.runtime.inputs_for("follow the house rules")[0];
    let setup = input.setup.as_deref().unwrap();
    assert_eq!(setup.matches("REPO-AGENTS-MARK-3c1d").count(), 1, "{setup}");
    assert!(setup.contains("## The project's instructions (AGENTS.md)"), "{setup}");
    assert_ne!(input.workspace, f.engine.agents().workspaces().dir(&f.agent_id), "in the worktree");
    let seen = f.engine.runner().run_context(&run_id).unwrap();
    let project = seen.project_file.expect("the project's instructions listed");
    assert_eq!((project.name.as_str(), project.status), ("AGENTS.md", FileStatus::Sent));
    assert_eq!(project.folder, input.workspace.display().to_string());
    assert_eq!(project.route_label, "sent by Clawboo as instructions in the system prompt");
    assert_eq!(project.note, None);

    // Over its budget: the run goes on without it, and says so.
    std::fs::write(repo.join("AGENTS.md"), "x".repeat(files::PROJECT_INSTRUCTIONS_BUDGET + 1)).unwrap();
    git(&repo, &["commit", "-q", "-am", "long instructions"]);
    let card = f.card_with("follow the long rules", |c| c.project_folder = Some(repo.display().to_string()));
    let run_id = f.start(&card);
    assert_eq!(f.settled(&card).status, CardStatus::InReview, "never blocked by the project's file");
    let setup = f.runtime.inputs_for("follow the long rules")[0].setup.clone().unwrap_or_default();
    assert!(!setup.contains("xxxx"), "not sent, never cut");
    let project = f.engine.runner().run_context(&run_id).unwrap().project_file.unwrap();
    assert_eq!(project.status, FileStatus::NotSent);
    assert!(project.note.unwrap().contains("over its budget of 16,000: not sent"));

    // In the agent's own folder there is no project file.
    let card = f.card("write at home");
    let run_id = f.start(&card);
    f.settled(&card);
    assert_eq!(f.engine.runner().run_context(&run_id).unwrap().project_file, None);
}
