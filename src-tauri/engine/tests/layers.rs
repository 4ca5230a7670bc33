//! The engine's imports point only down: each top-level module may use only the modules below it
//! in [`LAYERS`] (the order `src-tauri/ARCHITECTURE.md` draws). A new import running back up —
//! the start of an import loop — fails here with the file and the line. Everything under these
//! modules is a crate of its own (vocab, store, context, the domain, then `clawboo-tools`,
//! `clawboo-runtimes` and `clawboo-run`), where the compiler refuses an upward import: a crate
//! cannot name one that depends on it. The engine's re-exports of them (`crate::board`,
//! `crate::run`, ...) are below every module here. Two of those crates hold a few modules each,
//! whose order inside the crate no compiler checks: [`CRATE_LAYERS`] checks it here the same
//! way. Read from the sources, so it needs no build of its own.

use std::path::{Path, PathBuf};

/// The engine's own top-level modules, bottom first. A module may import the ones before it,
/// and every crate below the engine (whose re-exports are not listed).
const LAYERS: &[&str] = &[
    // How long each step of opening the engine took (the start-up report).
    "open_steps",
    // What a link or a path in a reply may open (checked here; the shell opens it).
    "links",
    // Home's summary of what runs and what needs the user, read from the crates below.
    "home",
    // What agents spent (the Spend page, totals per scope, prices), read from clawboo-spend.
    "spending",
    // The long-lived links to the OpenClaw Gateways agents run on (their health).
    "gateway_links",
    // Running work: Boo Zero, chats, the first run, the task runner; the local API over them.
    "boo_zero",
    "chat",
    // What conversations keep between turns, given back once they are quiet.
    "idle",
    "onboarding",
    "runner",
    "api",
];

/// The crates below the engine that hold more than one module (by folder under `src-tauri`),
/// each with its modules bottom first: the same rule inside each.
const CRATE_LAYERS: &[(&str, &[&str])] = &[
    // The accept loop of every loopback server; Clawboo's tools; the connectors behind them.
    ("tools", &["loopback", "tools", "connectors"]),
    // The processes that run agents; the model relay they reach models through; a provider's
    // model list (asked the way the relay asks).
    ("runtimes", &["runtimes", "relay", "models"]),
];

/// Imports allowed to run back up, each with why (none today).
const ALLOWED_UPWARD: &[(&str, &str, &str)] = &[];

fn modules(src: &Path) -> Vec<(String, PathBuf)> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(src).unwrap().flatten() {
        let path = entry.path();
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        // `bin/`: the executables shipped beside the app, outside the engine's module tree.
        if name == "lib"
            || name == "main"
            || name == "bin"
            || (path.is_file() && path.extension().is_none_or(|e| e != "rs"))
        {
            continue;
        }
        out.push((name, path));
    }
    out
}

fn rust_files(path: &Path, out: &mut Vec<PathBuf>) {
    if path.is_file() {
        out.push(path.to_owned());
    } else if let Ok(entries) = std::fs::read_dir(path) {
        for entry in entries.flatten() {
            let p = entry.path();
            let name = p.file_name().unwrap().to_string_lossy();
            // Unit tests may reach anywhere.
            if name == "tests" || name == "tests.rs" || name == "snapshots" {
                continue;
            }
            if p.is_dir() || name.ends_with(".rs") {
                rust_files(&p, out);
            }
        }
    }
}

/// The modules a source text names as `crate::<module>` (also inside `use crate::{a, b::c}`),
/// each with its line; comments and a trailing `#[cfg(test)]` module left out.
fn imports(text: &str) -> Vec<(String, usize)> {
    let code = text.split("#[cfg(test)]").next().unwrap_or("");
    let mut out = Vec::new();
    for (n, line) in code.lines().enumerate() {
        let line = line.split("//").next().unwrap_or("");
        let mut rest = line;
        while let Some(at) = rest.find("crate::") {
            rest = &rest[at + "crate::".len()..];
            let names: Vec<&str> = if let Some(group) = rest.strip_prefix('{') {
                let inner = group.split('}').next().unwrap_or("");
                inner.split(',').map(|part| part.trim().split("::").next().unwrap_or("").trim()).collect()
            } else {
                vec![rest.split(|c: char| !(c.is_alphanumeric() || c == '_')).next().unwrap_or("")]
            };
            out.extend(names.into_iter().filter(|n| !n.is_empty()).map(|name| (name.to_owned(), n + 1)));
        }
    }
    out
}

/// Every import in `src` (a crate's sources) naming a module of `layers` above its own, as
/// `file:line: ...`; a module missing from `layers` fails the test (it must be placed).
fn upward_imports(src: &Path, layers: &[&str], list: &str) -> Vec<String> {
    let rank = |name: &str| layers.iter().position(|m| *m == name);
    let mut upward = Vec::new();
    for (module, path) in modules(src) {
        let own = rank(&module).unwrap_or_else(|| {
            panic!("`{module}` is not in {list} (tests/layers.rs): place it, and in src-tauri/ARCHITECTURE.md")
        });
        let mut files = Vec::new();
        rust_files(&path, &mut files);
        for file in files {
            let text = std::fs::read_to_string(&file).unwrap();
            for (name, line) in imports(&text) {
                let Some(theirs) = rank(&name) else { continue };
                let allowed = ALLOWED_UPWARD.iter().any(|(from, to, _)| *from == module && *to == name);
                if theirs > own && !allowed {
                    let at = file.strip_prefix(src).unwrap().display();
                    upward.push(format!("{at}:{line}: `{module}` imports `{name}`, a layer above it"));
                }
            }
        }
    }
    upward
}

#[test]
fn every_import_between_engine_modules_points_down() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let upward = upward_imports(&src, LAYERS, "LAYERS");
    assert!(upward.is_empty(), "imports running back up (see src-tauri/ARCHITECTURE.md):\n{}", upward.join("\n"));
}

#[test]
fn every_import_between_modules_of_one_crate_below_points_down() {
    for (dir, layers) in CRATE_LAYERS {
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(dir).join("src");
        let upward = upward_imports(&src, layers, &format!("CRATE_LAYERS ({dir})"));
        assert!(upward.is_empty(), "imports running back up in src-tauri/{dir}:\n{}", upward.join("\n"));
    }
}

#[test]
fn grouped_and_nested_imports_are_read() {
    let text = "use crate::{agents::Agent, vocab};\nlet x = crate::chat::now(); // crate::runner\n#[cfg(test)]\nuse crate::api;";
    let found: Vec<(String, usize)> = imports(text);
    assert_eq!(found, [("agents".into(), 1), ("vocab".into(), 1), ("chat".into(), 2)]);
}
