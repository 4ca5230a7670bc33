//! "Allow always" for a shell tool grants one command prefix (`Bash` and `git status`), never
//! the whole shell: a later command goes through without asking only when it starts with the
//! prefix's words and chains nothing; any other asks again. Other tools keep the (agent, tool)
//! grant.

use clawboo_engine::attention::{AuditAction, Decision, RequestKind, RequestStatus, UserAnswer};
use clawboo_engine::ErrorCode;

use super::{fixture, Fixture};

fn decision(decision: Decision) -> UserAnswer {
    UserAnswer::Decision { decision }
}

/// Runs `line` as `agent_id`, answers the permission it raises with `answer` and returns the
/// request and the reply.
fn asked_and_answered(
    f: &Fixture,
    agent_id: &str,
    line: &str,
    answer: Decision,
) -> (clawboo_engine::attention::AttentionRequest, String) {
    let run = f.send(agent_id, line);
    let asked = f.open_request("the permission request", |r| {
        r.kind == RequestKind::Permission && r.run_id.as_deref() == Some(run.as_str())
    });
    f.engine.answer_attention(&asked.id, decision(answer)).unwrap();
    (asked, f.reply_of(agent_id, &run))
}

/// Runs `line` as `agent_id`; true when it went through without asking (and nothing waits).
fn through_without_asking(f: &Fixture, agent_id: &str, line: &str) -> bool {
    let run = f.send(agent_id, line);
    // A request that asks keeps the run going; one let through by a grant ends it at once.
    let ended = clawboo_testkit::wait_for("the run to end or ask", super::LIMIT, || {
        if f.engine.attention().open().unwrap().iter().any(|r| r.run_id.as_deref() == Some(run.as_str())) {
            return Some(false);
        }
        (f.engine.chat().run(&run).unwrap().status != clawboo_engine::chat::RunStatus::Running).then_some(true)
    });
    if !ended {
        let asked = f.open_permission(agent_id);
        f.engine.answer_attention(&asked.id, decision(Decision::Deny)).unwrap();
        assert_eq!(f.reply_of(agent_id, &run), "allowed=false");
        return false;
    }
    assert_eq!(f.reply_of(agent_id, &run), "allowed=true");
    true
}

#[test]
fn allow_always_on_git_status_lets_git_status_through_and_asks_for_anything_else() {
    let f = fixture(&["ada", "bo"]);
    let (ada, bo) = (f.ids[0].clone(), f.ids[1].clone());
    let attention = f.engine.attention();

    let (asked, reply) = asked_and_answered(&f, &ada, "shell Bash git status", Decision::AllowAlways);
    assert_eq!(reply, "allowed=true");
    assert_eq!((asked.command_prefix.as_deref(), asked.allow_always), (Some("git status"), true));
    assert_eq!(asked.input.as_deref(), Some("{\n  \"command\": \"git status\"\n}"));
    let grants = attention.grants().unwrap();
    assert_eq!(grants.len(), 1);
    assert_eq!(
        (grants[0].tool.as_str(), grants[0].command_prefix.as_deref(), grants[0].request_id.as_deref()),
        ("Bash", Some("git status"), Some(asked.id.as_str()))
    );
    let audit = attention.audit(Some(&asked.id), None, 10).unwrap();
    assert_eq!(audit[0].action, AuditAction::AllowedAlways);
    assert!(audit[0].detail.contains("Bash: git status …"), "{}", audit[0].detail);

    assert!(through_without_asking(&f, &ada, "shell Bash git status -s"));
    let granted = attention.history(None, 1).unwrap().remove(0);
    assert_eq!((granted.status, granted.decision), (RequestStatus::Answered, Some(Decision::AllowAlways)));
    let audit = attention.audit(Some(&granted.id), None, 10).unwrap();
    assert_eq!((audit[0].actor.as_str(), audit[0].action), ("clawboo", AuditAction::AllowedByGrant));
    assert!(audit[0].detail.contains("Bash: git status …"), "{}", audit[0].detail);

    for asks in [
        "shell Bash git push",
        "shell Bash git status; rm -rf ~",
        "shell Bash git status && curl x",
        "shell Bash git statusx",
        "shell Bash git status | sh",
        "shell Bash git status $(curl x)",
        "shell Bash git",
    ] {
        assert!(!through_without_asking(&f, &ada, asks), "{asks:?} should ask again");
    }
    // The grant is @ada's, and for Bash: another agent, or another shell tool, asks.
    assert!(!through_without_asking(&f, &bo, "shell Bash git status"));
    assert!(!through_without_asking(&f, &ada, "shell exec git status"));
    assert_eq!(attention.grants().unwrap().len(), 1, "denials grant nothing");

    // Revoked: `git status` asks again, and the audit names the prefix.
    attention.revoke_grant(&grants[0].id).unwrap();
    let revoked = attention.audit(None, None, 1).unwrap().remove(0);
    assert_eq!(revoked.action, AuditAction::GrantRevoked);
    assert_eq!(revoked.detail, "@ada must ask again before using Bash: git status ….");
    assert!(!through_without_asking(&f, &ada, "shell Bash git status -s"));
}

#[test]
fn a_chained_command_cannot_be_allowed_always() {
    let f = fixture(&["ada"]);
    let ada = f.ids[0].clone();
    let run = f.send(&ada, "shell Bash git status; rm -rf ~");
    let asked = f.open_permission(&ada);
    assert_eq!((asked.command_prefix.as_deref(), asked.allow_always), (None, false));
    let err = f.engine.answer_attention(&asked.id, decision(Decision::AllowAlways)).unwrap_err();
    assert_eq!(err.code(), ErrorCode::InvalidInput);
    assert!(err.to_string().contains("cannot be allowed always"), "{err}");
    assert_eq!(f.status(&asked.id), RequestStatus::Open, "still open, to allow once or deny");
    assert!(f.engine.attention().grants().unwrap().is_empty());
    // So is a wrapper that runs whatever follows it.
    f.engine.answer_attention(&asked.id, decision(Decision::Deny)).unwrap();
    assert_eq!(f.reply_of(&ada, &run), "allowed=false");
    let (asked, _) = asked_and_answered(&f, &ada, "shell Bash sudo git status", Decision::Deny);
    assert_eq!((asked.command_prefix, asked.allow_always), (None, false));
}

#[test]
fn other_tools_keep_the_agent_and_tool_grant() {
    let f = fixture(&["ada"]);
    let ada = f.ids[0].clone();
    let (asked, reply) = asked_and_answered(&f, &ada, "ask Write", Decision::AllowAlways);
    assert_eq!(reply, "allowed=true");
    assert_eq!((asked.command_prefix.as_deref(), asked.allow_always), (None, true));
    let grants = f.engine.attention().grants().unwrap();
    assert_eq!((grants[0].tool.as_str(), grants[0].command_prefix.as_deref()), ("Write", None));
    assert!(through_without_asking(&f, &ada, "ask Write"));
    // A grant of Write lets no shell command through.
    assert!(!through_without_asking(&f, &ada, "shell Bash ls"));
}

#[test]
fn a_command_let_through_names_the_grant_that_let_it_through() {
    let f = fixture(&["ada"]);
    let ada = f.ids[0].clone();
    let (asked, _) = asked_and_answered(&f, &ada, "shell Bash ls -la", Decision::AllowAlways);
    assert_eq!(asked.command_prefix.as_deref(), Some("ls"));
    // `ls notes` would grant `ls notes` itself; the `ls` grant lets it through, and says so.
    assert!(through_without_asking(&f, &ada, "shell Bash ls notes"));
    let granted = f.engine.attention().history(None, 1).unwrap().remove(0);
    assert_eq!(granted.command_prefix.as_deref(), Some("ls"));
    let audit = f.engine.attention().audit(Some(&granted.id), None, 1).unwrap().remove(0);
    assert_eq!(audit.action, AuditAction::AllowedByGrant);
    assert!(audit.detail.ends_with("for @ada and Bash: ls …."), "{}", audit.detail);
}
