// The whole app's start time and idle cost, measured on the built binary under Xvfb.
// Usage (through scripts/bench): node tests/e2e/bench-app.mjs APP SEED_BENCH_DATA [--start-only]
//   --start-only: the bundle's weight and the start times only, with each step's median (the
//   shell's milestones, the engine's open steps, the page's steps): for work on the start.
//   BENCH_UI_DIST names the built UI to weigh (default ui/dist), e.g. a copy kept from before.
//
// - start → first interactive screen: the app launched directly (no WebDriver) on a seeded data
//   dir with CLAWBOO_STARTUP_REPORT=1; the UI reports once the sidebar has rendered with its data
//   and a frame is painted (ui/src/shell/startup.ts), the shell prints it to stderr. Timed here from
//   spawn to that line; the first launch of the run is quoted apart (cold-ish; with BENCH_COLD=1
//   and root, the page cache is dropped before it: cold), the rest warm.
// - idle memory: PSS summed over the app's process tree (the app, WebKit's network and web
//   processes) from /proc/<pid>/smaps_rollup, 10 s after a team's page and then a 10,000-message
//   chat were opened through WebDriver; then CPU time and context switches (wake-ups) over an
//   idle stretch. Once as shipped, once with WebKit's compositing mode forced back on (before).
//   And once as a user has it after a restart: launched directly (no WebDriver, like the floor
//   below), reopening the chat the WebDriver session left open. Then what the page's JavaScript
//   holds there (a heap snapshot through WebKit's remote inspector, heap-snapshot.mjs).
// - the webview's own floor: WebKitGTK's MiniBrowser on about:blank, same measure.
// Every figure is printed as `BENCH_JSON {...}` for scripts/bench-report.mjs.

import { spawn, execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, readlinkSync, realpathSync, existsSync, rmSync, mkdirSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { WebDriver, waitFor } from "./webdriver.mjs";
import { heapSnapshot, summarize } from "./heap-snapshot.mjs";

const flags = process.argv.slice(2).filter((a) => a.startsWith("--"));
const [appArg, seederArg] = process.argv.slice(2).filter((a) => !a.startsWith("--"));
const startOnly = flags.includes("--start-only");
const application = realpathSync(resolve(appArg ?? "target/release/clawboo"));
const seeder = resolve(seederArg ?? "target/release/examples/seed_bench_data");
const quick = !!process.env.BENCH_QUICK && process.env.BENCH_QUICK !== "0";
const LAUNCHES = Number(process.env.BENCH_LAUNCHES ?? (quick ? 3 : 9));
const SETTLE_MS = 10_000;
const IDLE_MS = Number(process.env.BENCH_IDLE_SECS ?? (quick ? 10 : 30)) * 1000;
const PORT = 4446;
const artifacts = resolve(".cache/bench-app");
mkdirSync(artifacts, { recursive: true });

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const figure = (id, label, unit, value, n) =>
  console.log(`BENCH_JSON ${JSON.stringify({ id, label, unit, median: value, n })}`);

// ---- /proc readers ----
const read = (path) => {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return null;
  }
};
function statFields(pid) {
  const stat = read(`/proc/${pid}/stat`);
  if (!stat) return null;
  // Fields after the command name, which may hold spaces: state is field 3.
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
}
function descendants(root) {
  const children = new Map();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const fields = statFields(entry);
    if (!fields) continue;
    const parent = Number(fields[1]);
    if (!children.has(parent)) children.set(parent, []);
    children.get(parent).push(Number(entry));
  }
  const tree = [root];
  for (let i = 0; i < tree.length; i++) tree.push(...(children.get(tree[i]) ?? []));
  return tree;
}
const comm = (pid) => (read(`/proc/${pid}/comm`) ?? "?").trim();
const pssKiB = (pid) => Number(/^Pss:\s+(\d+) kB/m.exec(read(`/proc/${pid}/smaps_rollup`) ?? "")?.[1] ?? 0);
const TICK_MS = 1000 / Number(execFileSync("getconf", ["CLK_TCK"]).toString().trim());
function cpuMs(pid) {
  const f = statFields(pid);
  return f ? (Number(f[11]) + Number(f[12])) * TICK_MS : 0; // utime + stime, all threads
}
/** Context switches per thread (tid → count): a thread's sleeps and wake-ups. */
function switches(pid) {
  const byThread = new Map();
  for (const task of readdirSync(`/proc/${pid}/task`, { throwIfNoEntry: false }) ?? []) {
    const status = read(`/proc/${pid}/task/${task}/status`) ?? "";
    let count = 0;
    for (const m of status.matchAll(/^(?:non)?voluntary_ctxt_switches:\s+(\d+)/gm)) count += Number(m[1]);
    byThread.set(`${pid}/${task}`, count);
  }
  return byThread;
}
/** Which part of the tree a process is: the app itself, or one of WebKit's helpers. */
function role(pid) {
  const name = comm(pid);
  if (/WebKitNetwork/.test(name)) return "network";
  if (/WebKitWebProces/.test(name)) return "web";
  if (/WebKitGPU/.test(name)) return "gpu";
  return "app";
}
function memory(root) {
  const parts = { app: 0, network: 0, web: 0, gpu: 0 };
  const processes = [];
  for (const pid of descendants(root)) {
    const kib = pssKiB(pid);
    parts[role(pid)] += kib / 1024;
    processes.push(`${comm(pid)}(${pid}) ${(kib / 1024).toFixed(1)} MiB`);
  }
  return { total: Object.values(parts).reduce((a, b) => a + b, 0), parts, processes };
}
async function idleActivity(root) {
  const tree = descendants(root);
  const before = tree.map((p) => [cpuMs(p), switches(p)]);
  await sleep(IDLE_MS);
  let cpu = 0;
  let wakeups = 0;
  tree.forEach((p, i) => {
    cpu += cpuMs(p) - before[i][0];
    // Threads alive at both ends: one that exited meanwhile takes its count with it.
    for (const [tid, count] of switches(p)) {
      if (before[i][1].has(tid)) wakeups += count - before[i][1].get(tid);
    }
  });
  const secs = IDLE_MS / 1000;
  return { cpuMsPerMin: (cpu / secs) * 60, wakeupsPerSec: wakeups / secs };
}
const appPids = () =>
  readdirSync("/proc").filter((e) => /^\d+$/.test(e) && (() => {
    try {
      return readlinkSync(`/proc/${e}/exe`) === application;
    } catch {
      return false;
    }
  })()).map(Number);
async function gone(pids, what) {
  for (let i = 0; i < 100 && pids.some((p) => existsSync(`/proc/${p}`)); i++) await sleep(50);
  for (const p of pids) if (existsSync(`/proc/${p}`)) {
    console.log(`  (${what}: ${comm(p)} ${p} still there, killing it)`);
    try { process.kill(p, "SIGKILL"); } catch {}
  }
}

// ---- the seeded data dir ----
const dataDir = mkdtempSync(join(tmpdir(), "clawboo-bench-app-"));
execFileSync(seeder, [dataDir, "5000"], { stdio: "inherit" });
const baseEnv = { ...process.env, CLAWBOO_DATA_DIR: dataDir };
delete baseEnv.WEBKIT_DISABLE_COMPOSITING_MODE;

/** Launches the app directly; resolves when it reports its first interactive screen. */
function launch(env = {}) {
  return new Promise((resolveLaunch, reject) => {
    const started = performance.now();
    const child = spawn(application, [], { env: { ...baseEnv, CLAWBOO_STARTUP_REPORT: "1", ...env }, stdio: ["ignore", "ignore", "pipe"] });
    let seen = "";
    const timer = setTimeout(() => reject(new Error(`no interactive report within 30 s; stderr: ${seen}`)), 30000);
    child.stderr.on("data", (chunk) => {
      seen += chunk;
      const m = /clawboo: interactive ([\d.]+) ms after start/.exec(seen);
      if (m) {
        clearTimeout(timer);
        resolveLaunch({ child, wall: performance.now() - started, inProcess: Number(m[1]), steps: startSteps(seen) });
      }
    });
    child.on("exit", (code) => reject(new Error(`the app exited with ${code} before it was interactive: ${seen}`)));
  });
}
/**
 * The steps a launch printed on its way (CLAWBOO_STARTUP_REPORT): the shell's milestones (ms after
 * the process started), the engine's open steps (each one's own duration) and the page's steps
 * (ms after its load began), as one map of name → ms.
 */
function startSteps(stderr) {
  const steps = new Map();
  for (const m of stderr.matchAll(/^clawboo: (.+?) ([\d.]+) ms after start$/gm)) steps.set(`shell: ${m[1]}`, Number(m[2]));
  const engine = /^clawboo: engine open steps \(([\d.]+) ms\): (.*)$/m.exec(stderr);
  if (engine) {
    steps.set("engine open: total", Number(engine[1]));
    // Step names may hold commas ("services, approvals recovered"): each step ends in "N ms".
    for (const m of engine[2].matchAll(/(.+?) ([\d.]+) ms(?:, |$)/g)) steps.set(`engine open: ${m[1]}`, Number(m[2]));
  }
  const page = /^clawboo: page steps \(ms after its load began\): (.*)$/m.exec(stderr);
  for (const part of page ? page[1].split(", ") : []) {
    const m = /^(.*) ([\d.]+)$/.exec(part);
    // A step seen twice (a command asked twice) keeps its first time.
    if (m && !steps.has(`page: ${m[1]}`)) steps.set(`page: ${m[1]}`, Number(m[2]));
  }
  return steps;
}

/** Each step's median over the warm launches, in the order of those medians within each part. */
function stepMedians(runs) {
  const names = new Set(runs.flatMap((r) => [...r.steps.keys()]));
  const rows = [...names].map((name) => {
    const values = runs.map((r) => r.steps.get(name)).filter((v) => v !== undefined);
    return { name, median: median(values), n: values.length };
  });
  const part = (name) => ["shell", "engine open", "page"].findIndex((p) => name.startsWith(`${p}:`));
  rows.sort((a, b) => part(a.name) - part(b.name) || (part(a.name) === 1 ? 0 : a.median - b.median));
  console.log(`steps, medians over ${runs.length} warm launches (shell: ms after the process started; engine open: each step's own time; page: ms after its load began):`);
  for (const r of rows) console.log(`  ${r.median.toFixed(1).padStart(8)} ms  ${r.name}${r.n < runs.length ? ` (in ${r.n} of ${runs.length})` : ""}`);
}

async function stop(child) {
  const tree = descendants(child.pid);
  child.removeAllListeners("exit");
  child.kill("SIGTERM");
  await gone(tree, "after quitting");
}

async function startTimes() {
  const runs = [];
  let cold = false;
  if (process.env.BENCH_COLD === "1") {
    try {
      execFileSync("sync");
      writeFileSync("/proc/sys/vm/drop_caches", "3\n");
      cold = true;
    } catch (e) {
      console.log(`  (BENCH_COLD: the page cache could not be dropped: ${e.message})`);
    }
  }
  for (let i = 0; i < LAUNCHES; i++) {
    const run = await launch();
    runs.push(run);
    const last = i === LAUNCHES - 1;
    if (last && !startOnly) {
      // The last launch stays up: the home screen at idle, no WebDriver attached.
      await sleep(SETTLE_MS);
      const home = memory(run.child.pid);
      console.log(`idle PSS, home screen, launched directly: ${home.total.toFixed(1)} MiB — ${home.processes.join(", ")}`);
      figure("app.idle_pss_home_mib", "Idle PSS, whole tree, home screen (no WebDriver)", "MiB", home.total, 1);
    }
    await stop(run.child);
    await sleep(500);
  }
  const warm = runs.slice(1);
  console.log(
    `start → first interactive screen: first launch ${runs[0].wall.toFixed(0)} ms; warm median ${median(warm.map((r) => r.wall)).toFixed(0)} ms ` +
      `(in-process ${median(warm.map((r) => r.inProcess)).toFixed(0)} ms) over ${warm.length}; samples ${runs.map((r) => r.wall.toFixed(0)).join(" ")}`,
  );
  stepMedians(warm);
  const first = cold ? "first launch, page cache dropped" : "first launch";
  figure("app.start_ms.first", `Start → first interactive screen, ${first}`, "ms", runs[0].wall, 1);
  figure("app.start_ms.warm", "Start → first interactive screen, warm", "ms", median(warm.map((r) => r.wall)), warm.length);
}

/** The app through WebDriver with the team's page, then the long chat opened; then idle. */
async function idleWithLongChat(label, env) {
  const driverProcess = spawn("tauri-driver", ["--port", String(PORT), "--native-port", String(PORT + 1)], {
    env: { ...baseEnv, ...env },
    stdio: ["ignore", "ignore", "inherit"],
  });
  const driver = new WebDriver(`http://127.0.0.1:${PORT}`);
  try {
    await waitFor("tauri-driver to listen", () => fetch(`http://127.0.0.1:${PORT}/status`).then((r) => r.ok), 20000);
    await driver.start(application);
    const find = (id) => driver.find(`[data-testid="${id}"]`);
    await driver.click(await waitFor("the team in the sidebar", () => find("team-item-Shop"), 30000));
    await sleep(1000);
    await driver.click(await waitFor("@huge in the sidebar", () => find("agent-item-huge")));
    await waitFor("the long chat's newest message", () =>
      driver.execute(
        `return [...document.querySelectorAll('[data-testid="chat-timeline"] .timeline__row')].some((r) => r.textContent.includes('Part 5000'));`,
      ),
    20000);
    const rows = await driver.execute(`return document.querySelectorAll('.timeline__row').length`);
    const shot = await driver.screenshot().catch(() => null);
    if (shot) writeFileSync(join(artifacts, `idle-${label}.png`), Buffer.from(shot, "base64"));
    const pids = appPids();
    if (pids.length !== 1) throw new Error(`expected one app process, found ${pids.length}`);
    await sleep(SETTLE_MS);
    const mem = memory(pids[0]);
    const activity = await idleActivity(pids[0]);
    console.log(
      `idle (${label}), team page then a 10,000-message chat open (${rows} rows in the DOM): ${mem.total.toFixed(1)} MiB PSS — ` +
        `${mem.processes.join(", ")}; over ${IDLE_MS / 1000} s idle: ${activity.cpuMsPerMin.toFixed(0)} ms CPU/min, ${activity.wakeupsPerSec.toFixed(1)} wake-ups/s`,
    );
    return { mem, activity };
  } finally {
    await driver.quit().catch(() => {});
    driverProcess.kill("SIGTERM");
    await gone(appPids(), "after the session");
  }
}

/**
 * The long chat as a user has it after a restart: the app launched directly (no WebDriver, as
 * the floor's MiniBrowser), reopening the place it showed last (the chat the WebDriver session
 * left open); then idle. WebDriver's automation session is not in the tree.
 */
async function idleReopened() {
  const run = await launch();
  try {
    await sleep(SETTLE_MS);
    const mem = memory(run.child.pid);
    console.log(`idle, the long chat reopened at launch (no WebDriver): ${mem.total.toFixed(1)} MiB PSS — ${mem.processes.join(", ")}`);
    return mem;
  } finally {
    await stop(run.child);
  }
}

/**
 * What the page's JavaScript holds, the long chat reopened: a launch of its own with WebKit's
 * remote inspector served on loopback (not in the memory figures), a full collection, a heap
 * snapshot (kept in .cache/bench-app/heap.json), its cells by class.
 */
async function jsHeap() {
  const port = PORT + 2;
  const run = await launch({ WEBKIT_INSPECTOR_HTTP_SERVER: `127.0.0.1:${port}` });
  try {
    await sleep(SETTLE_MS);
    const snapshot = await heapSnapshot(port);
    writeFileSync(join(artifacts, "heap.json"), snapshot);
    const heap = summarize(snapshot);
    const code = heap.classes.filter((c) => /Executable|CodeBlock/.test(c.name)).reduce((a, c) => a + c.bytes, 0);
    console.log(`JS heap, the long chat reopened, after a full collection: ${(heap.total / 1048576).toFixed(2)} MiB in ${heap.cells} cells (code ${(code / 1048576).toFixed(2)} MiB); largest classes:`);
    for (const c of heap.classes) console.log(`  ${(c.bytes / 1024).toFixed(0).padStart(6)} KiB ${String(c.cells).padStart(6)} × ${c.name}`);
    figure("ui.js_heap_live_mib", "JS heap live after a full collection, the long chat reopened", "MiB", heap.total / 1048576, 1);
    figure("ui.js_heap_code_mib", "JS heap live: compiled code (executables, code blocks)", "MiB", code / 1048576, 1);
  } finally {
    await stop(run.child);
  }
}

/** WebKitGTK's own floor: its MiniBrowser on a blank page. */
async function webviewFloor(label, env) {
  const miniBrowser = ["/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser", "/usr/lib/webkit2gtk-4.1/MiniBrowser"].find(existsSync);
  if (!miniBrowser) return console.log("webview floor: MiniBrowser not found (package libwebkit2gtk-4.1-0)");
  const child = spawn(miniBrowser, ["about:blank"], { env: { ...baseEnv, ...env }, stdio: "ignore" });
  await sleep(SETTLE_MS);
  const mem = memory(child.pid);
  console.log(`webview floor (${label}): MiniBrowser on about:blank ${mem.total.toFixed(1)} MiB PSS — ${mem.processes.join(", ")}`);
  await stop(child);
  return mem;
}

/** The UI's weight: what index.html loads at start (scripts, preloads, styles) and all of it. */
function bundleWeight() {
  const dist = resolve(process.env.BENCH_UI_DIST ?? "ui/dist");
  const html = readFileSync(join(dist, "index.html"), "utf8");
  const size = (file) => statSync(join(dist, file)).size / 1024;
  const atStart = [...html.matchAll(/(?:src|href)="\/(assets\/[^"]+)"/g)].map((m) => m[1]);
  const all = readdirSync(join(dist, "assets")).map((f) => `assets/${f}`);
  const start = atStart.reduce((a, f) => a + size(f), 0);
  const total = all.reduce((a, f) => a + size(f), 0);
  console.log(`UI bundle: ${start.toFixed(0)} KiB loaded at start (${atStart.join(", ")}), ${total.toFixed(0)} KiB in all`);
  figure("ui.bundle_kib.start", "UI bundle loaded at start (JS + CSS, minified)", "KiB", start, 1);
  figure("ui.bundle_kib.total", "UI bundle in all (lazy chunks included)", "KiB", total, 1);
}

/** Idle memory and activity, as shipped and with compositing on, and the webview's floor. */
async function idleFigures() {
  const shipped = await idleWithLongChat("as shipped", {});
  const reopened = await idleReopened();
  await jsHeap();
  const composited = await idleWithLongChat("compositing forced on", { WEBKIT_DISABLE_COMPOSITING_MODE: "0" });
  for (const [suffix, run, what] of [["", shipped, "as shipped"], [".compositing_on", composited, "WebKit compositing on (before)"]]) {
    figure(`app.idle_pss_mib${suffix}`, `Idle PSS, whole tree, team + 10,000-message chat open (${what})`, "MiB", run.mem.total, 1);
    for (const part of ["app", "network", "web"]) {
      figure(`app.idle_pss_mib.${part}${suffix}`, `Idle PSS of the ${part} process (${what})`, "MiB", run.mem.parts[part], 1);
    }
  }
  figure("app.idle_pss_mib.reopened", "Idle PSS, whole tree, the 10,000-message chat reopened at launch (no WebDriver)", "MiB", reopened.total, 1);
  for (const part of ["app", "network", "web"]) {
    figure(`app.idle_pss_mib.${part}.reopened`, `Idle PSS of the ${part} process, the chat reopened at launch (no WebDriver)`, "MiB", reopened.parts[part], 1);
  }
  figure("app.idle_cpu_ms_per_min", "Idle CPU time, whole tree", "ms/min", shipped.activity.cpuMsPerMin, 1);
  figure("app.idle_wakeups_per_s", "Idle wake-ups (context switches), whole tree", "1/s", shipped.activity.wakeupsPerSec, 1);
  const floor = await webviewFloor("compositing off", { WEBKIT_DISABLE_COMPOSITING_MODE: "1" });
  const floorOn = await webviewFloor("compositing on", {});
  if (floor) {
    figure("webkit.floor_pss_mib", "WebKitGTK floor: MiniBrowser on about:blank, compositing off", "MiB", floor.total, 1);
    figure("webkit.floor_pss_mib.helpers", "WebKitGTK floor: its network + web processes only", "MiB", floor.parts.network + floor.parts.web, 1);
  }
  if (floorOn) figure("webkit.floor_pss_mib.compositing_on", "WebKitGTK floor: MiniBrowser on about:blank, compositing on", "MiB", floorOn.total, 1);
}

let failed = false;
try {
  bundleWeight();
  await startTimes();
  if (!startOnly) await idleFigures();
} catch (e) {
  failed = true;
  console.log(`bench-app failed: ${e.stack ?? e.message}`);
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
