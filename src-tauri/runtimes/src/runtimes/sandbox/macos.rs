//! The Seatbelt profile (`sandbox-exec -p PROFILE`) for one confined process on macOS, as Codex
//! and Claude Code confine themselves there. Text in, text out; unit-tested as text on every OS
//! (it cannot be run on the Linux machines that build Clawboo).
//!
//! Reads: the system (`/System`, `/usr`, `/bin`, `/sbin`, `/Library`, `/private/etc`,
//! `/Applications`, `/opt`), the runtime's install and the named folders; writes: the writable
//! folders and the process's own temp. Network: the allowed loopback ports; with a host list or
//! "any", outbound TCP (Seatbelt cannot filter by host name, so a host list acts as "any" there,
//! and the profile page says so). No Mach lookups of the keychain or the pasteboard.

use super::{Confinement, NetworkAccess};

fn quote(path: &std::path::Path) -> String {
    let text = path.to_string_lossy();
    format!("\"{}\"", text.replace('\\', "\\\\").replace('"', "\\\""))
}

pub fn profile(confinement: &Confinement) -> String {
    let mut p = String::from("(version 1)\n(deny default)\n");
    p.push_str("(allow process-exec process-fork signal (target same-sandbox))\n");
    p.push_str("(allow sysctl-read)\n(allow file-read-metadata)\n");
    p.push_str("(allow mach-lookup (global-name \"com.apple.system.logger\") (global-name \"com.apple.system.notification_center\"))\n");
    p.push_str("(allow file-read* (subpath \"/System\") (subpath \"/usr\") (subpath \"/bin\") (subpath \"/sbin\") \
        (subpath \"/Library/Frameworks\") (subpath \"/private/etc\") (subpath \"/Applications\") (subpath \"/opt\") \
        (subpath \"/private/var/db/timezone\") (literal \"/dev/null\") (literal \"/dev/urandom\") (literal \"/dev/random\"))\n");
    p.push_str("(allow file-write* (literal \"/dev/null\") (literal \"/dev/tty\"))\n");
    for path in confinement.readable.iter().chain(&confinement.writable) {
        p.push_str(&format!("(allow file-read* (subpath {}))\n", quote(path)));
    }
    for path in &confinement.writable {
        p.push_str(&format!("(allow file-write* (subpath {}))\n", quote(path)));
    }
    for path in &confinement.hidden {
        // Later rules win: the hidden folder is denied even inside a readable one, and only
        // the writable folders under it are given back.
        p.push_str(&format!("(deny file-read* file-write* (subpath {}))\n", quote(path)));
        for inner in confinement.writable.iter().filter(|w| w.starts_with(path)) {
            p.push_str(&format!("(allow file-read* file-write* (subpath {}))\n", quote(inner)));
        }
    }
    for port in &confinement.loopback_ports {
        p.push_str(&format!("(allow network-outbound (remote ip \"localhost:{port}\"))\n"));
    }
    if confinement.network != NetworkAccess::ClawbooOnly || !confinement.allowed_hosts.is_empty() {
        p.push_str("(allow network-outbound (remote tcp))\n(allow system-socket)\n");
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_profile_denies_by_default_and_names_only_the_given_places() {
        let c = Confinement {
            writable: vec!["/Users/u/Clawboo/agents/a/.clawboo/claude-code".into()],
            readable: vec!["/Users/u/Clawboo/agents/a".into()],
            hidden: vec!["/Users/u/Clawboo/agents/a/.clawboo".into()],
            loopback_ports: vec![4100, 4200],
            ..Default::default()
        };
        let p = profile(&c);
        assert!(p.starts_with("(version 1)\n(deny default)\n"));
        assert!(p.contains("(allow file-read* (subpath \"/Users/u/Clawboo/agents/a\"))"));
        assert!(!p.contains("(allow file-write* (subpath \"/Users/u/Clawboo/agents/a\"))"), "read-only workspace");
        let deny = p.find("(deny file-read* file-write* (subpath \"/Users/u/Clawboo/agents/a/.clawboo\"))").unwrap();
        let back = p
            .rfind("(allow file-read* file-write* (subpath \"/Users/u/Clawboo/agents/a/.clawboo/claude-code\"))")
            .unwrap();
        assert!(deny < back);
        assert!(p.contains("(remote ip \"localhost:4100\")") && p.contains("(remote ip \"localhost:4200\")"));
        assert!(!p.contains("(remote tcp)"), "Clawboo only: no other network");
        assert!(!p.contains("/Users/u\")") && !p.contains("com.apple.SecurityServer"), "no home, no keychain");
        let any = profile(&Confinement { network: NetworkAccess::Any, ..c });
        assert!(any.contains("(allow network-outbound (remote tcp))"));
        assert!(profile(&Confinement { writable: vec!["/x\"y".into()], ..Default::default() }).contains("\"/x\\\"y\""));
    }
}
