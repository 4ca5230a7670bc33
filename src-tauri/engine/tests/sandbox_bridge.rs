//! The sandbox's network bridge (Linux), with real bubblewrap and the real `clawboo-netns`
//! helper, **as a normal user**: the engine's process is multithreaded, and the kernel lets a
//! normal user's multithreaded process into no sandbox's namespace; only the helper can. This
//! machine runs as root, where everything is allowed, so each test here runs itself again as
//! uid 65534 (`setpriv`) and checks there: a connection from inside reaches the relay-like
//! port the sandbox may reach, and no other loopback port; a port published by a program
//! inside is reached from the host; a missing helper refuses the run (`sandbox_unavailable`).

#![cfg(target_os = "linux")]

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use clawboo_engine::runtimes::process::{CommandSpec, Spawner, SystemSpawner};
use clawboo_engine::runtimes::sandbox::netns::HELPER_ENV;
use clawboo_engine::runtimes::sandbox::{folder_view, spawn_error, Confinement, NetworkAccess};
use clawboo_engine::ErrorCode;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// Set in the copy of this test binary that runs as the normal user.
const AS_USER: &str = "CLAWBOO_TEST_AS_USER";
const NOBODY: &str = "65534";

/// Runs `test` of this binary again as uid 65534 (when this is root; as this user otherwise,
/// when `env` must be set), with `env`; true when the caller should run the test body itself
/// (in the copy, or already a normal user with nothing to set).
fn as_normal_user(test: &str, env: &[(&str, &str)]) -> bool {
    if std::env::var_os(AS_USER).is_some() || (!is_root() && env.is_empty()) {
        return true;
    }
    let exe = std::env::current_exe().unwrap();
    let mut command = Command::new(if is_root() { "setpriv" } else { exe.to_str().unwrap() });
    if is_root() {
        if Command::new("setpriv").arg("--version").output().is_err() {
            eprintln!("skipped: running as root and no setpriv to become a normal user (util-linux)");
            return false;
        }
        command
            .args(["--reuid", NOBODY, "--regid", NOBODY, "--clear-groups", "--inh-caps=-all", "--bounding-set=-all"])
            .arg(&exe);
    }
    let out = command
        .args(["--exact", test, "--nocapture", "--test-threads=1"])
        .env_clear()
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .env("HOME", "/tmp")
        .env("TMPDIR", "/tmp")
        .env(AS_USER, "1")
        .env(HELPER_ENV, env!("CARGO_BIN_EXE_clawboo-netns"))
        .envs(env.iter().copied())
        .current_dir("/tmp")
        .output()
        .unwrap();
    let said = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "as uid {NOBODY}:\n{said}");
    assert!(said.contains("1 passed"), "the test ran as uid {NOBODY}:\n{said}");
    false
}

fn is_root() -> bool {
    std::fs::read_to_string("/proc/self/status")
        .unwrap()
        .lines()
        .find_map(|l| l.strip_prefix("Uid:"))
        .and_then(|ids| ids.split_whitespace().next().map(|uid| uid == "0"))
        .unwrap()
}

fn spec(folder: &Path, program: &str, args: &[&str], confine: Confinement) -> CommandSpec {
    CommandSpec {
        program: program.into(),
        args: args.iter().map(|s| (*s).to_owned()).collect(),
        inherit_env: vec!["PATH".into()],
        cwd: folder.to_owned(),
        confine: Some(confine),
        ..Default::default()
    }
}

/// Starts `spec` confined and returns its stdout and whether it exited 0.
async fn run(spec: &CommandSpec) -> (String, String, bool) {
    let mut child = SystemSpawner.spawn(spec).expect("spawn");
    let (mut out, mut err) = (String::new(), String::new());
    child.stdout.read_to_string(&mut out).await.unwrap();
    child.stderr.read_to_string(&mut err).await.unwrap();
    let exit = tokio::time::timeout(Duration::from_secs(30), child.control.wait()).await.unwrap().unwrap();
    (out, err, exit.success())
}

/// A loopback server that answers every connection with `greeting`; its port.
async fn server(greeting: &'static str) -> u16 {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move {
        while let Ok((mut s, _)) = listener.accept().await {
            let _ = s.write_all(greeting.as_bytes()).await;
        }
    });
    port
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn as_a_normal_user_the_relay_is_reached_from_inside_and_no_other_loopback_port() {
    if !as_normal_user("as_a_normal_user_the_relay_is_reached_from_inside_and_no_other_loopback_port", &[]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().canonicalize().unwrap();
    let relay = server("hello from the relay").await;
    let other = server("the user's own service").await;
    let mut confine = folder_view(&folder, NetworkAccess::ClawbooOnly);
    confine.loopback_ports = vec![relay];
    // bash's /dev/tcp: the relay answers; the other port is refused (nothing listens on it in
    // the sandbox's own loopback); through the proxy it is blocked.
    let script = format!(
        "exec 3<>/dev/tcp/127.0.0.1/{relay} && timeout 5 cat <&3; echo; \
         if (exec 4<>/dev/tcp/127.0.0.1/{other}) 2>/dev/null; then echo REACHED-OTHER; else echo other-refused; fi; \
         exec 5<>/dev/tcp/127.0.0.1/3128 && printf 'CONNECT 127.0.0.1:{other} HTTP/1.1\\r\\n\\r\\n' >&5 && timeout 5 head -c 200 <&5"
    );
    let (out, err, ok) = run(&spec(&folder, "/bin/bash", &["-c", &script], confine)).await;
    assert!(ok, "{out}\n{err}");
    assert!(out.contains("hello from the relay"), "{out}\n{err}");
    assert!(out.contains("other-refused") && !out.contains("REACHED-OTHER"), "{out}\n{err}");
    assert!(out.contains("HTTP/1.1 403") && out.contains("Blocked by Clawboo's sandbox"), "{out}\n{err}");
    assert!(!out.contains("the user's own service"), "{out}\n{err}");
    eprintln!("bridge checked as uid {}", if is_root() { "0" } else { NOBODY });
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn as_a_normal_user_a_port_published_inside_is_reached_from_the_host() {
    if !as_normal_user("as_a_normal_user_a_port_published_inside_is_reached_from_the_host", &[]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().canonicalize().unwrap();
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let mut confine = folder_view(&folder, NetworkAccess::ClawbooOnly);
    confine.published_ports = vec![port];
    // A stand-in for a Gateway: listens inside, answers two connections, then exits.
    let gateway = format!(
        "import socket\ns = socket.socket()\ns.bind(('127.0.0.1', {port}))\ns.listen()\nprint('listening', flush=True)\n\
         for _ in range(2):\n    c, _ = s.accept()\n    c.sendall(b'hello from the gateway inside')\n    c.close()\n"
    );
    let mut child = SystemSpawner.spawn(&spec(&folder, "/usr/bin/python3", &["-c", &gateway], confine)).unwrap();
    let mut line = [0u8; 10];
    child.stdout.read_exact(&mut line).await.unwrap();
    for _ in 0..2 {
        let mut s = tokio::net::TcpStream::connect(("127.0.0.1", port)).await.unwrap();
        let mut answer = String::new();
        tokio::time::timeout(Duration::from_secs(10), s.read_to_string(&mut answer)).await.unwrap().unwrap();
        assert_eq!(answer, "hello from the gateway inside");
    }
    let exit = tokio::time::timeout(Duration::from_secs(10), child.control.wait()).await.unwrap().unwrap();
    assert!(exit.success(), "{exit:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_helper_refuses_the_run_and_never_runs_it_unconfined() {
    if as_normal_user("a_missing_helper_refuses_the_run_and_never_runs_it_unconfined", &[(HELPER_ENV, "/nonexistent")])
    {
        refused_and_nothing_ran("clawboo-netns").await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_helper_that_fails_refuses_the_run_and_the_held_sandbox_never_runs_it() {
    // /bin/false stands in for a helper that cannot enter the namespace: bubblewrap has started
    // and is held; it must be stopped before the program runs.
    if as_normal_user(
        "a_helper_that_fails_refuses_the_run_and_the_held_sandbox_never_runs_it",
        &[(HELPER_ENV, "/bin/false")],
    ) {
        refused_and_nothing_ran("helper failed").await;
    }
}

/// A bridged start is refused with `sandbox_unavailable` saying `why`, and its program never ran.
async fn refused_and_nothing_ran(why: &str) {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().canonicalize().unwrap();
    let marker = folder.join("ran");
    let mut confine = folder_view(&folder, NetworkAccess::ClawbooOnly);
    confine.loopback_ports = vec![9];
    let touch = format!("touch {}", marker.display());
    let e = SystemSpawner.spawn(&spec(&folder, "/bin/sh", &["-c", &touch], confine)).err().expect("refused");
    let error = spawn_error(e, |e| panic!("not a sandbox error: {e}"));
    assert_eq!(error.code(), ErrorCode::SandboxUnavailable, "{error}");
    assert!(error.to_string().contains(why), "{error}");
    std::thread::sleep(Duration::from_millis(200));
    assert!(!marker.exists(), "nothing ran");
}
