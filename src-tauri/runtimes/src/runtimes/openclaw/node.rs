//! OpenClaw runs on the user's own Node.js, which must be 24.16 or newer.

use std::ffi::OsStr;
use std::time::Duration;

use crate::runtimes::detect::{find_binary, parse_version, version_at_least};

pub const MIN_NODE: &str = "24.16";

/// Why the `node` found in `path_var` cannot run OpenClaw, or None when it can.
pub async fn node_problem(path_var: Option<&OsStr>) -> Option<String> {
    let Some(node) = find_binary("node", path_var, None) else {
        return Some(format!("OpenClaw needs Node.js {MIN_NODE} or newer, and no `node` was found on PATH."));
    };
    let mut command = tokio::process::Command::new(&node);
    command.arg("--version").stdin(std::process::Stdio::null()).kill_on_drop(true);
    let output = match tokio::time::timeout(Duration::from_secs(15), command.output()).await {
        Ok(Ok(output)) => output,
        Ok(Err(e)) => {
            return Some(format!("OpenClaw needs Node.js {MIN_NODE} or newer; {} does not run: {e}", node.display()))
        }
        Err(_) => {
            return Some(format!(
                "OpenClaw needs Node.js {MIN_NODE} or newer; {} did not answer --version.",
                node.display()
            ))
        }
    };
    let text = String::from_utf8_lossy(&output.stdout);
    match parse_version(&text) {
        Some(version) if version_at_least(&version, MIN_NODE) => None,
        Some(version) => Some(format!(
            "OpenClaw needs Node.js {MIN_NODE} or newer; {} is {version}. Install Node 24 and put it first on PATH.",
            node.display()
        )),
        None => Some(format!("OpenClaw needs Node.js {MIN_NODE} or newer; {} printed no version.", node.display())),
    }
}
