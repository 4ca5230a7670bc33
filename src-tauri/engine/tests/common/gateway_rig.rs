//! The proof rig for a member on "another machine's" OpenClaw Gateway: two network namespaces
//! joined by a veth pair and nothing else (no address outside them, no route anywhere). The
//! Gateway runs in one ("the other machine", its own home and config); the test re-runs itself
//! in the other ("the user's computer"), so the Gateway is reached only over that link, never
//! over a shared loopback. Needs root and `ip`; [`run_inside`] says why it skipped otherwise.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use clawboo_engine::runtimes::process::{CommandSpec, SpawnedChild, Spawner, SystemSpawner};

use clawboo_testkit::FakeModelServer;
use serde_json::json;
use tokio::io::{AsyncBufReadExt, BufReader};

/// The Gateway's port on the other machine.
pub const PORT: u16 = 18789;
/// How long a Gateway may take to be ready (a start after a killed one took over 240 s on a
/// loaded machine).
const LIMIT: Duration = Duration::from_secs(420);
pub const QUIET: &[(&str, &str)] = &[
    ("OPENCLAW_NO_AUTO_UPDATE", "1"),
    ("DO_NOT_TRACK", "1"),
    ("OPENCLAW_DISABLE_BONJOUR", "1"),
    ("OPENCLAW_SKIP_CHANNELS", "1"),
    ("NO_COLOR", "1"),
    // One Node start per CLI call instead of two, as the app runs OpenClaw.
    ("NODE_OPTIONS", "--disable-warning=ExperimentalWarning"),
];

/// The endpoint source of a member on the other machine's Gateway: it needs none from Clawboo
/// (its model is that Gateway's), so asking is a test failure.
pub struct NoEndpoint;

impl clawboo_engine::runtimes::EndpointSource for NoEndpoint {
    fn endpoint(
        &self,
        _provider: clawboo_engine::secrets::Provider,
        _run_id: &str,
    ) -> clawboo_engine::Result<clawboo_engine::runtimes::Endpoint> {
        panic!("a member on another machine's Gateway needs no endpoint from Clawboo")
    }
}

/// The test's stand-in for the keychain the app reads a Gateway's token from: one Gateway, one token.
pub struct OneToken(pub &'static str);

impl clawboo_engine::runtimes::openclaw::GatewayTokens for OneToken {
    fn gateway_token(&self, _agent_id: &str) -> clawboo_engine::Result<Option<String>> {
        Ok(Some(self.0.to_owned()))
    }
}

/// The namespaces' names and addresses as the inner run gets them: "CB_NS GW_NS CB_IP GW_IP".
pub struct Inside {
    pub gw: String,
    pub cb_ip: String,
    pub gw_ip: String,
}

/// In the inner run (`inner` set): where it is. None in the outer run.
pub fn inside(inner: &str) -> Option<Inside> {
    let spec = std::env::var(inner).ok()?;
    let parts: Vec<&str> = spec.split_whitespace().collect();
    let [_cb, gw, cb_ip, gw_ip] = parts[..] else { panic!("{inner}={spec}") };
    Some(Inside { gw: gw.to_owned(), cb_ip: cb_ip.to_owned(), gw_ip: gw_ip.to_owned() })
}

/// The outer run: makes the namespaces and runs test `inner_test` of this binary inside the
/// user's one, with `inner` set. Returns without running it (and says why) when it cannot.
pub fn run_inside(inner: &str, inner_test: &str) {
    if std::env::var_os(inner).is_some() {
        return;
    }
    if super::cli("openclaw").is_none() || super::cli("node24").is_none() {
        return;
    }
    let root = std::fs::read_to_string("/proc/self/status")
        .map(|s| s.lines().any(|l| l.starts_with("Uid:") && l.split_whitespace().nth(1) == Some("0")))
        .unwrap_or(false);
    if !root {
        eprintln!("skipped: making network namespaces needs root");
        return;
    }
    let link = match Link::make() {
        Ok(link) => link,
        Err(why) => {
            eprintln!("skipped: cannot make the network namespaces ({why})");
            return;
        }
    };
    let exe = std::env::current_exe().unwrap();
    let status = Command::new("ip")
        .args(["netns", "exec", &link.cb])
        .arg(exe)
        .args([inner_test, "--exact", "--nocapture", "--test-threads=1"])
        .env(inner, format!("{} {} {} {}", link.cb, link.gw, link.cb_ip, link.gw_ip))
        .status()
        .unwrap();
    assert!(status.success(), "the turns inside the user's namespace passed");
}

fn ip(args: &[&str]) -> Result<(), String> {
    let out = Command::new("ip").args(args).output().map_err(|e| format!("ip {}: {e}", args.join(" ")))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!("ip {}: {}", args.join(" "), String::from_utf8_lossy(&out.stderr).trim()))
    }
}

/// Two namespaces and the link between them; removed (with the link) when dropped.
struct Link {
    cb: String,
    gw: String,
    cb_ip: String,
    gw_ip: String,
}

impl Link {
    fn make() -> Result<Self, String> {
        let tag = std::process::id();
        let octet = tag % 250 + 1;
        let link = Link {
            cb: format!("clawboo-cb-{tag}"),
            gw: format!("clawboo-gw-{tag}"),
            cb_ip: format!("10.229.{octet}.1"),
            gw_ip: format!("10.229.{octet}.2"),
        };
        let (cbv, gwv) = (format!("cb{tag}"), format!("gw{tag}"));
        ip(&["netns", "add", &link.cb])?;
        ip(&["netns", "add", &link.gw])?;
        ip(&["link", "add", &cbv, "type", "veth", "peer", "name", &gwv])?;
        ip(&["link", "set", &cbv, "netns", &link.cb])?;
        ip(&["link", "set", &gwv, "netns", &link.gw])?;
        ip(&["-n", &link.cb, "addr", "add", &format!("{}/30", link.cb_ip), "dev", &cbv])?;
        ip(&["-n", &link.gw, "addr", "add", &format!("{}/30", link.gw_ip), "dev", &gwv])?;
        for (ns, dev) in [(&link.cb, &cbv), (&link.gw, &gwv)] {
            ip(&["-n", ns, "link", "set", dev, "up"])?;
            ip(&["-n", ns, "link", "set", "lo", "up"])?;
        }
        Ok(link)
    }
}

impl Drop for Link {
    fn drop(&mut self) {
        let _ = ip(&["netns", "del", &self.cb]);
        let _ = ip(&["netns", "del", &self.gw]);
    }
}

/// The Gateway on the other machine: in its namespace, its own home, listening on its link
/// address only; killed (its group and its spawn broker's) when dropped.
pub struct OtherMachine {
    pub pid: u32,
    ns: String,
    pub home: PathBuf,
    program: PathBuf,
    node_dir: PathBuf,
    token: String,
}

pub fn path_with(dir: &Path) -> String {
    format!("{}:{}", dir.display(), std::env::var("PATH").unwrap_or_default())
}

impl OtherMachine {
    pub fn command(&self, args: &[&str]) -> tokio::process::Command {
        let state = self.home.join("state");
        let mut command = tokio::process::Command::new("ip");
        command
            .args(["netns", "exec", &self.ns])
            .arg(&self.program)
            .args(args)
            .env_clear()
            .env("PATH", path_with(&self.node_dir))
            .env("HOME", &self.home)
            .env("OPENCLAW_STATE_DIR", &state)
            .env("OPENCLAW_CONFIG_PATH", state.join("openclaw.json"))
            .env("TMPDIR", &self.home)
            .envs(QUIET.iter().copied())
            .stdin(std::process::Stdio::null());
        command
    }

    pub async fn start(
        ns: &str,
        home: &Path,
        program: &Path,
        node_dir: &Path,
        model: &FakeModelServer,
        token: &str,
    ) -> Self {
        let state = home.join("state");
        std::fs::create_dir_all(home.join("workspace")).unwrap();
        std::fs::create_dir_all(&state).unwrap();
        let mut config = json!({
            "models": { "providers": { "fake": {
                "baseUrl": format!("{}/v1", model.base_url()),
                "apiKey": "sk-other-machines-key",
                "api": "openai-completions",
                "models": [{ "id": "some-model", "name": "some-model", "contextWindow": 128_000, "maxTokens": 8192 }],
            } } },
            "agents": { "defaults": {
                "model": { "primary": "fake/some-model" },
                "workspace": home.join("workspace"),
                "skipBootstrap": true,
                "heartbeat": { "every": "0m" },
            } },
            "logging": { "file": home.join("openclaw.log") },
            "update": { "checkOnStart": false },
            // Nothing of its own reaches out (catalog.openclaw.ai) or calls the model (dreaming).
            "plugins": { "entries": { "memory-core": { "config": { "dreaming": { "enabled": false } } } } },
        });
        config["models"]["catalogRefresh"] = json!({ "enabled": false });
        // A Gateway started again on the same home keeps its configuration (the agents made
        // there and their rules), as a restarted Gateway does.
        if !state.join("openclaw.json").exists() {
            std::fs::write(state.join("openclaw.json"), config.to_string()).unwrap();
        }
        let mut machine = OtherMachine {
            pid: 0,
            ns: ns.to_owned(),
            home: home.to_owned(),
            program: program.to_owned(),
            node_dir: node_dir.to_owned(),
            token: token.to_owned(),
        };
        let mut command =
            machine.command(&["gateway", "run", "--allow-unconfigured", "--bind", "lan", "--auth", "token"]);
        command
            .args(["--port", &PORT.to_string(), "--token", token])
            .stdout(std::process::Stdio::piped())
            // What it says on the way out is kept for a failed start's message.
            .stderr(std::fs::File::create(home.join("gateway-stderr.log")).unwrap())
            .process_group(0);
        let mut child = command.spawn().expect("the other machine's Gateway starts");
        machine.pid = child.id().unwrap();
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let clock = Instant::now();
        let mut said = Vec::new();
        let ready = tokio::time::timeout(LIMIT, async {
            while let Ok(Some(line)) = lines.next_line().await {
                if line.contains("[gateway] ready") {
                    return true;
                }
                said.push(line);
            }
            false
        })
        .await;
        let stderr = std::fs::read_to_string(home.join("gateway-stderr.log")).unwrap_or_default();
        let said = said[said.len().saturating_sub(15)..].join("\n");
        assert_eq!(ready, Ok(true), "the other machine's Gateway became ready: {said}\n{stderr}");
        eprintln!("the other machine's Gateway was ready after {:?}", clock.elapsed());
        tokio::spawn(async move {
            while let Ok(Some(_)) = lines.next_line().await {}
            drop(child);
        });
        machine
    }

    /// What the Gateway's owner does on that machine: approve the device that asked.
    pub async fn approve(&self, request: &str) {
        let url = format!("ws://127.0.0.1:{PORT}");
        let out = self
            .command(&["devices", "approve", request, "--url", &url, "--token", &self.token])
            .output()
            .await
            .expect("openclaw devices approve runs");
        assert!(out.status.success(), "approved: {}", String::from_utf8_lossy(&out.stderr));
    }

    pub fn kill(&self) {
        let mut groups = vec![self.pid];
        groups.extend(detached_child_groups(self.pid));
        for group in groups {
            let _ = Command::new("kill").args(["-KILL", "--", &format!("-{group}")]).status();
        }
    }
}

impl Drop for OtherMachine {
    fn drop(&mut self) {
        self.kill();
    }
}

/// The process groups of `pid`'s descendants that left its group (the Gateway's spawn broker).
pub fn detached_child_groups(pid: u32) -> Vec<u32> {
    let mut groups = Vec::new();
    let mut parents = vec![pid];
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else { continue };
        let Some(i) = stat.rfind(')') else { continue };
        let fields: Vec<&str> = stat[i + 1..].split_whitespace().collect();
        let (ppid, pgrp): (u32, u32) = (fields[1].parse().unwrap(), fields[2].parse().unwrap());
        if parents.contains(&ppid) && pgrp != pid {
            groups.push(pgrp);
            parents.push(entry.file_name().to_string_lossy().parse().unwrap_or(0));
        }
    }
    groups
}

/// The system's spawner, keeping every command it starts: the `openclaw gateway call`s Clawboo
/// makes on the Gateway (method and params) can then be counted.
#[derive(Default, Clone)]
pub struct Recording(pub Arc<Mutex<Vec<CommandSpec>>>);

impl Spawner for Recording {
    fn spawn(&self, spec: &CommandSpec) -> std::io::Result<SpawnedChild> {
        self.0.lock().unwrap().push(spec.clone());
        SystemSpawner.spawn(spec)
    }
}

impl Recording {
    /// The `gateway call` methods started so far, with their params.
    pub fn calls(&self) -> Vec<(String, serde_json::Value)> {
        let started = self.0.lock().unwrap();
        started
            .iter()
            .filter(|s| s.args.first().map(String::as_str) == Some("gateway"))
            .map(|s| (s.args[2].clone(), serde_json::from_str(s.args.last().unwrap()).unwrap_or_default()))
            .collect()
    }
}
