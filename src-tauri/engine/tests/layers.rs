//! The engine's imports point only down: each top-level module may use only the modules below it
//! in [`LAYERS`] (the order `src-tauri/ARCHITECTURE.md` draws). A new import running back up —
//! the start of an import loop — fails here with the file and the line. The layers under these
//! (vocab, store, context and the domain) are crates of their own, where the compiler refuses
//! an upward import; the engine's re-exports of them (`crate::board`, ...) are below every
//! module here. Read from the sources, so it needs no build of its own.

use std::path::{Path, PathBuf};

/// The engine's own top-level modules, bottom first. A module may import the ones before it,
/// and every crate below the engine (whose re-exports are not listed).
const LAYERS: &[&str] = &[
    // The loop every loopback server (relay, tools bridge, local API) accepts connections with.
    "loopback",
    // What a link or a path in a reply may open (checked here; the shell opens it).
    "links",
    // Clawboo's tools for agents, the connectors behind them, and the processes that run agents.
    "tools",
    "connectors",
    "runtimes",
    "relay",
    // Every run's preparation, drive loop, record, slots and end, whoever starts it.
    "run",
    // Running work: Boo Zero, chats, the first run, the task runner; the local API over them.
    "boo_zero",
    "chat",
    "onboarding",
    "runner",
    "api",
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

#[test]
fn every_import_between_engine_modules_points_down() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let rank = |name: &str| LAYERS.iter().position(|m| *m == name);
    let mut upward = Vec::new();
    for (module, path) in modules(&src) {
        let own = rank(&module).unwrap_or_else(|| {
            panic!("`{module}` is not in LAYERS (tests/layers.rs): place it, and in src-tauri/ARCHITECTURE.md")
        });
        let mut files = Vec::new();
        rust_files(&path, &mut files);
        for file in files {
            let text = std::fs::read_to_string(&file).unwrap();
            for (name, line) in imports(&text) {
                let Some(theirs) = rank(&name) else { continue };
                let allowed = ALLOWED_UPWARD.iter().any(|(from, to, _)| *from == module && *to == name);
                if theirs > own && !allowed {
                    let at = file.strip_prefix(&src).unwrap().display();
                    upward.push(format!("{at}:{line}: `{module}` imports `{name}`, a layer above it"));
                }
            }
        }
    }
    assert!(upward.is_empty(), "imports running back up (see src-tauri/ARCHITECTURE.md):\n{}", upward.join("\n"));
}

#[test]
fn grouped_and_nested_imports_are_read() {
    let text = "use crate::{agents::Agent, vocab};\nlet x = crate::chat::now(); // crate::runner\n#[cfg(test)]\nuse crate::api;";
    let found: Vec<(String, usize)> = imports(text);
    assert_eq!(found, [("agents".into(), 1), ("vocab".into(), 1), ("chat".into(), 2)]);
}
