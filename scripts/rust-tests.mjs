// Runs the workspace's Rust test binaries, already built (`cargo test --no-run
// --message-format=json`, whose output is the file named first), several at once: `cargo test`
// runs them one after the other, and most of its time is spent waiting on real CLIs and their
// model servers. Each binary runs as `cargo test` would run it (in its package's
// folder, with cargo's environment), and its output is printed whole when it ends, so lines of
// two binaries never mix.
//
//   node scripts/rust-tests.mjs BUILD_JSON [--jobs N] [--gateway-jobs N]
//
// CLAWBOO_TEST_JOBS or --jobs sets how many binaries run at once (default 2: a third only added
// contention, and two timing tests, the file watcher's 5 s and the runner's two runs at once,
// failed at load 19 with three). The binaries that start OpenClaw Gateways (each start is ~10 s
// of one core's time, 20–40 s of wall on a busy machine) may fill every job too:
// CLAWBOO_TEST_GATEWAY_JOBS or --gateway-jobs caps how many of them run at once (default 2), and
// a second one starts only while the machine is not already overloaded (see gatewayLoadLimit).
// With one at a time they were ~80 % of the work in one line (768 s of wall for 951 s of work,
// 2026-12-05) while the other job sat idle once the short binaries were done; each Gateway
// takes a free port of its own, so two binaries never fight over one. Longest first, so none
// is left to run alone at the end.
// Exits non-zero when a binary fails; ends with one "Rust: N passed, N failed" line.

import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { availableParallelism, loadavg } from "node:os";
import { basename, dirname } from "node:path";

const args = process.argv.slice(2);
const buildJson = args[0];
if (!buildJson) throw new Error("usage: node scripts/rust-tests.mjs BUILD_JSON [--jobs N] [--gateway-jobs N]");
const jobsArg = args.indexOf("--jobs");
const jobs = Math.max(1, Number(jobsArg >= 0 ? args[jobsArg + 1] : process.env.CLAWBOO_TEST_JOBS ?? 2));
const gatewayJobsArg = args.indexOf("--gateway-jobs");
const gatewayJobs = Math.max(
  1,
  Number(gatewayJobsArg >= 0 ? args[gatewayJobsArg + 1] : process.env.CLAWBOO_TEST_GATEWAY_JOBS ?? 2),
);
// A second Gateway binary starts only while the machine's 1-minute load is under this many per
// core (CLAWBOO_TEST_GATEWAY_LOAD, default 3): alone they pass at any load seen, but two at once
// on a machine already at 15–19 on 2 cores (other engineers' builds, 2026-12-05) saw every
// OpenClaw turn of both run past its 240 s. A quiet CI machine stays well under it.
const gatewayLoadLimit = Number(process.env.CLAWBOO_TEST_GATEWAY_LOAD ?? 3);

// Each starts OpenClaw Gateways (a real OpenClaw agent through the engine): at most
// `gatewayJobs` of them run at any time. Two at once on a 2-core machine at load 22 (other work
// beside the tests) once left a Gateway not ready within 60 s (runner_cli, 2026-12-05); a start
// that keeps printing is now waited for up to three times that (openclaw/gateway.rs).
const GATEWAY_BINARIES = new Set(["openclaw_cli", "openclaw_cli_policies", "openclaw_existing_gateway",
  "agent_files_cli", "edits_apply", "read_only_cli", "runner_cli", "tools_cli", "connectors_cli", "connectors_bridge",
  "keys_out_of_reach", "sandbox_escape", "runtime_paths", "openclaw_remote_gateway", "openclaw_remote_tools",
  "openclaw_remote_agents", "openclaw_remote_team", "openclaw_remote_health", "many_chats", "team_inbox_runtimes"]);
// The long ones, longest first (seconds in the fresh-clone CI of 2026-12-05, before the split of
// openclaw_cli and one Gateway per test in read_only_cli), started first so none is left to
// run alone at the end. Others follow in the order cargo built them.
const LONG = ["openclaw_remote_team", "openclaw_remote_health", "openclaw_cli_policies", "openclaw_remote_agents", "openclaw_cli", "openclaw_remote_gateway", "agent_files_cli", "edits_apply",
  "many_chats", "runner_cli", "read_only_cli", "openclaw_existing_gateway", "team_inbox_runtimes", "sandbox_escape",
  "connectors_cli", "connectors_bridge", "tools_cli", "keys_out_of_reach", "hermes_cli", "openclaw_remote_tools"];

/** The test executables cargo built: one per lib, bin and integration test (benches excluded). */
function testBinaries(file) {
  const binaries = [];
  for (const line of readFileSync(file, "utf8").split("\n")) {
    if (!line.startsWith("{")) continue;
    const message = JSON.parse(line);
    if (message.reason !== "compiler-artifact" || !message.executable || !message.profile?.test) continue;
    const kind = message.target.kind[0];
    if (kind === "bench") continue;
    const packageDir = dirname(message.manifest_path);
    const label = kind === "test" ? `tests/${message.target.name}` : `${message.target.name} (${kind})`;
    binaries.push({ name: message.target.name, kind, label, executable: message.executable, packageDir, packageName: packageNameOf(message) });
  }
  const rank = (b) => (b.kind === "test" && LONG.includes(b.name) ? LONG.indexOf(b.name) : LONG.length);
  return binaries.sort((a, b) => rank(a) - rank(b));
}

/** The package's name, as its Cargo.toml says (cargo's package ids leave it out at times). */
function packageNameOf(message) {
  const manifest = readFileSync(message.manifest_path, "utf8");
  return /^name\s*=\s*"([^"]+)"/m.exec(manifest)?.[1] ?? basename(dirname(message.manifest_path));
}

/** What cargo gives a test process besides the folder (see `cargo test`'s environment). */
function cargoEnv(binary) {
  const deps = dirname(binary.executable);
  return {
    ...process.env,
    CARGO: process.env.CARGO ?? "cargo",
    CARGO_MANIFEST_DIR: binary.packageDir,
    CARGO_PKG_NAME: binary.packageName,
    LD_LIBRARY_PATH: [deps, process.env.LD_LIBRARY_PATH].filter(Boolean).join(":"),
  };
}

function run(binary) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(binary.executable, [], { cwd: binary.packageDir, env: cargoEnv(binary), stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    let done = false;
    const finish = (code, signal) => {
      if (done) return;
      done = true;
      resolve({ binary, code: code ?? 1, signal, output, seconds: (Date.now() - started) / 1000 });
    };
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    // A binary that could not start ends here ('close' may never come).
    child.on("error", (error) => {
      output += `\n${error.message}\n`;
      finish(1, null);
    });
    child.on("close", finish);
    // Its own exit ends it too: a process it left behind may hold its output open for ever
    // (the rest of the output has a few seconds to arrive).
    child.on("exit", (code, signal) => setTimeout(() => finish(code, signal), 5000));
  });
}

function counts(output) {
  const sum = { passed: 0, failed: 0, ignored: 0 };
  for (const match of output.matchAll(/test result: \w+\. (\d+) passed; (\d+) failed; (\d+) ignored/g)) {
    sum.passed += Number(match[1]);
    sum.failed += Number(match[2]);
    sum.ignored += Number(match[3]);
  }
  return sum;
}

const queue = testBinaries(buildJson);
if (queue.length === 0) throw new Error(`no test binaries in ${buildJson}`);
console.log(
  `${queue.length} test binaries, ${jobs} at a time (OpenClaw Gateway ones ${gatewayJobs} at a time, ` +
    `a second one while the load is under ${gatewayLoadLimit} per core)`,
);

/** The 1-minute load average per core (what runs or waits to run, this runner's work included). */
function busyCores() {
  return loadavg()[0] / availableParallelism();
}

const results = [];
let gatewaysRunning = 0;
const started = Date.now();
let heldBack = 0;
await new Promise((allDone) => {
  let running = 0;
  let recheck = null;
  const next = () => {
    if (queue.length === 0 && running === 0) return allDone();
    while (running < jobs) {
      const gatewayMayStart = gatewaysRunning === 0 || busyCores() < gatewayLoadLimit;
      const index = queue.findIndex(
        (b) => !GATEWAY_BINARIES.has(b.name) || (gatewaysRunning < gatewayJobs && gatewayMayStart),
      );
      if (index < 0) {
        // A job is free but only Gateway binaries wait, held back by the load: look again soon.
        if (!gatewayMayStart && gatewaysRunning < gatewayJobs && queue.length && !recheck) {
          heldBack += 1;
          recheck = setTimeout(() => {
            recheck = null;
            next();
          }, 10_000);
        }
        break;
      }
      const [binary] = queue.splice(index, 1);
      const gateway = GATEWAY_BINARIES.has(binary.name);
      if (gateway) gatewaysRunning += 1;
      running += 1;
      run(binary).then((result) => {
        running -= 1;
        if (gateway) gatewaysRunning -= 1;
        results.push(result);
        const { code, signal, seconds } = result;
        console.log(`\n     Running ${binary.label} (${binary.executable}) — ${seconds.toFixed(1)} s`);
        process.stdout.write(result.output);
        if (code !== 0) console.log(`error: ${binary.label} failed (${signal ?? `exit ${code}`})`);
        next();
      });
    }
  };
  next();
});

const total = results.reduce((sum, r) => {
  const c = counts(r.output);
  return { passed: sum.passed + c.passed, failed: sum.failed + c.failed, ignored: sum.ignored + c.ignored };
}, { passed: 0, failed: 0, ignored: 0 });
const failedBinaries = results.filter((r) => r.code !== 0);
const serial = results.reduce((sum, r) => sum + r.seconds, 0);
console.log(`\nRust test binaries: ${((Date.now() - started) / 1000).toFixed(0)} s wall, ${serial.toFixed(0)} s one after the other; the longest:`);
for (const r of [...results].sort((a, b) => b.seconds - a.seconds).slice(0, 8)) {
  console.log(`  ${r.seconds.toFixed(1).padStart(6)} s  ${r.binary.label}`);
}
if (heldBack) console.log(`A second Gateway binary was held back by the load (over ${gatewayLoadLimit} per core) at ${heldBack} looks, 10 s apart`);
for (const r of failedBinaries) console.log(`FAILED: ${r.binary.label}`);
// A failed binary whose output names no failed test (a crash) still counts as one failure.
const failed = Math.max(total.failed, failedBinaries.length);
console.log(`Rust: ${total.passed} passed, ${failed} failed, ${total.ignored} skipped`);
process.exit(failedBinaries.length ? 1 : 0);
