#!/usr/bin/env node
// Measures a running public Clawboo (github.com/clawboo/clawboo) on the figures our
// `team_chat` bench gives, so scripts/bench can print both side by side:
// - own overhead per team-chat message: send → the reply stored, minus the same model request
//   sent bare to the same model server (median of 5), at the given exchanges;
// - request bytes per exchange: what the answering agent's model request grew by over the
//   previous exchange's (the whole body at exchange 1), from the model server's request log.
//
//   node scripts/bench-public/measure.mjs --url URL --exchanges 1,8,16 --model-log PATH_OR_URL
//        [--rounds N] [--target default|leader] [--requests-out FILE]
//
// The instance must run a Native team on our fake model server (see README.md here), whose
// `--log` file (JSON lines with path, headers, raw_body) is --model-log
// (or CLAWBOO_PUBLIC_MODEL_LOG). It drives the instance only through its own HTTP API, as its
// UI does: seed a team, set the user's introduction and rules, post messages, watch the
// team's SSE stream. Prints one JSON object on stdout; any failure exits 1 with the reason.
// --requests-out writes the first round's model requests (every one of each exchange) as JSON
// lines `{"exchange": N, "body": …}`, for billed-tokens.mjs.
// Node 20, no dependencies.

import { open, writeFile } from "node:fs/promises";
import http from "node:http";
import https from "node:https";

const MODEL_PATHS = ["/v1/chat/completions", "/v1/messages", "/v1/responses"];
/** The same team and messages as src-tauri/engine/benches/team_chat.rs. */
const ABOUT_YOU = "I run a small shop and like short answers. ".repeat(20);
const RULES = ["Answer in English.", "Cite sources when you make a claim.", "Keep replies under 200 words."];
const question = (i) => `Question ${i}: what should we stock next week?`;
const REPLY_TIMEOUT_MS = 60_000;
/** The fake model server appends its log every 100 ms; a log quiet this long means the turn's requests are in. */
const LOG_QUIET_MS = 400;

function fail(reason) {
  process.stderr.write(`measure.mjs: ${reason}\n`);
  process.exit(1);
}

function parseArgs(argv) {
  const opts = { exchanges: [1, 8, 16], rounds: 5, target: "default", provider: "anthropic", modelLog: process.env.CLAWBOO_PUBLIC_MODEL_LOG };
  for (let i = 0; i < argv.length; i++) {
    const value = () => argv[++i] ?? fail(`${argv[i - 1]} needs a value`);
    switch (argv[i]) {
      case "--url": opts.url = value().replace(/\/+$/, ""); break;
      case "--exchanges": opts.exchanges = value().split(",").map((s) => Number(s.trim())); break;
      case "--model-log": opts.modelLog = value(); break;
      case "--rounds": opts.rounds = Number(value()); break;
      case "--target": opts.target = value(); break;
      case "--provider": opts.provider = value(); break;
      case "--requests-out": opts.requestsOut = value(); break;
      default: fail(`unknown argument ${argv[i]} (see the usage at the top of this file)`);
    }
  }
  if (!opts.url) fail("--url URL of a running public Clawboo is required");
  if (!opts.exchanges.length || !opts.exchanges.every((n) => Number.isInteger(n) && n >= 1)) {
    fail("--exchanges takes positive whole numbers, e.g. 1,8,16");
  }
  if (!Number.isInteger(opts.rounds) || opts.rounds < 1) fail("--rounds takes a positive whole number");
  if (!["default", "leader"].includes(opts.target)) fail("--target is default (as a user types) or leader");
  if (!opts.modelLog) {
    fail("--model-log (or CLAWBOO_PUBLIC_MODEL_LOG) is required: the fake model server's --log file the instance talks to; " +
      "without it the model's own time and the request bytes cannot be known");
  }
  return opts;
}

/** One HTTP request; resolves {status, text}. Rejects on network errors. */
function request(url, { method = "GET", body, headers = {} } = {}) {
  return new Promise((resolve, reject) => {
    const lib = url.startsWith("https:") ? https : http;
    const req = lib.request(url, { method, headers: body === undefined ? headers : { "content-type": "application/json", ...headers } }, (res) => {
      const chunks = [];
      res.on("data", (c) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode, text: Buffer.concat(chunks).toString("utf8") }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(body);
  });
}

async function api(base, method, path, payload) {
  let res;
  try {
    res = await request(base + path, { method, body: payload === undefined ? undefined : JSON.stringify(payload) });
  } catch (e) {
    fail(`${method} ${base}${path}: cannot reach the public Clawboo (${e.code ?? e.message})`);
  }
  let json = null;
  try { json = JSON.parse(res.text); } catch { /* reported below */ }
  if (res.status < 200 || res.status >= 300 || json === null) {
    fail(`${method} ${path} answered ${res.status}: ${res.text.slice(0, 300)} (not the public Clawboo API this script knows)`);
  }
  return json;
}

/** The team's SSE stream: calls onStatus({agentId, status}) for each `event: status` frame. */
function openTeamStream(base, teamId, onStatus) {
  return new Promise((resolve, reject) => {
    const req = http.get(`${base}/api/teams/${teamId}/chat/stream`, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`chat stream answered ${res.statusCode}`));
      let buffer = "";
      res.setEncoding("utf8");
      res.on("data", (chunk) => {
        buffer += chunk;
        let end;
        while ((end = buffer.indexOf("\n\n")) !== -1) {
          const frame = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const event = /^event: (.*)$/m.exec(frame)?.[1];
          const data = /^data: (.*)$/m.exec(frame)?.[1];
          if (event === "status" && data) onStatus(JSON.parse(data));
        }
      });
      resolve(() => req.destroy());
    });
    req.on("error", reject);
  });
}

/** The model log so far. A file is read from where the last read stopped (it only grows). */
const logCache = { offset: 0, partial: Buffer.alloc(0), entries: [] };
async function readModelLog(source) {
  let bytes;
  try {
    if (/^https?:/.test(source)) {
      bytes = Buffer.from((await request(source)).text, "utf8");
      logCache.offset = 0;
      logCache.partial = Buffer.alloc(0);
      logCache.entries = [];
    } else {
      const file = await open(source, "r");
      try {
        const { size } = await file.stat();
        const fresh = Buffer.alloc(Math.max(0, size - logCache.offset));
        const { bytesRead } = fresh.length ? await file.read(fresh, 0, fresh.length, logCache.offset) : { bytesRead: 0 };
        logCache.offset += bytesRead;
        bytes = fresh.subarray(0, bytesRead);
      } finally {
        await file.close();
      }
    }
  } catch (e) {
    if (e.code === "ENOENT") return logCache.entries;
    fail(`cannot read the model log ${source}: ${e.message}`);
  }
  // The server may be mid-way through writing its last line: only whole lines count.
  const all = Buffer.concat([logCache.partial, bytes]);
  const cut = all.lastIndexOf(0x0a) + 1;
  logCache.partial = all.subarray(cut);
  for (const line of all.subarray(0, cut).toString("utf8").split("\n")) {
    if (line.trim()) logCache.entries.push(JSON.parse(line));
  }
  return logCache.entries;
}

/** Waits until the log has grown past `from` and then stayed unchanged for LOG_QUIET_MS. */
async function newModelRequests(source, from) {
  const deadline = Date.now() + REPLY_TIMEOUT_MS;
  let last = -1;
  let stableSince = Date.now();
  for (;;) {
    const all = await readModelLog(source);
    if (all.length !== last) { last = all.length; stableSince = Date.now(); }
    const fresh = all.slice(from).filter((r) => MODEL_PATHS.includes(r.path) && !isReplay(r));
    if (fresh.length > 0 && Date.now() - stableSince >= LOG_QUIET_MS) return fresh;
    if (Date.now() > deadline) fail(`no model request reached the log ${source} within ${REPLY_TIMEOUT_MS / 1000}s: is the instance using that fake model server?`);
    await sleep(50);
  }
}

/** Our own bare replays are logged too: they carry this header so they are never counted. */
const REPLAY_HEADER = "x-clawboo-bench-replay";
const isReplay = (r) => (r.headers ?? []).some(([k]) => k.toLowerCase() === REPLAY_HEADER);

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function lastUserText(body) {
  const messages = body?.messages ?? body?.input ?? [];
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m.role !== "user") continue;
    if (typeof m.content === "string") return m.content;
    return (m.content ?? []).map((p) => p.text ?? "").join("");
  }
  return "";
}

/** The model server's own time for this request: the same body sent bare, median of 5. */
async function bareRoundTrip(recorded) {
  const host = (recorded.headers ?? []).find(([k]) => k.toLowerCase() === "host")?.[1];
  if (!host) fail("the model log's requests carry no Host header; cannot replay them");
  const url = `http://${host}${recorded.path}${recorded.query ? `?${recorded.query}` : ""}`;
  const samples = [];
  for (let i = 0; i < 5; i++) {
    const started = performance.now();
    const res = await request(url, { method: "POST", body: recorded.raw_body, headers: { [REPLAY_HEADER]: "1" } });
    if (res.status !== 200) fail(`replaying a request to the model server ${url} answered ${res.status}`);
    samples.push(performance.now() - started);
  }
  return median(samples);
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** One round: a fresh team, `count` exchanges. Returns per exchange {ownMs, bytes, total, requests}. */
async function round(opts, count) {
  const { url } = opts;
  const seeded = await api(url, "POST", "/api/onboarding/seed-native-team", { provider: opts.provider });
  if (!seeded.teamId || !seeded.leaderAgentId) fail(`seed-native-team answered ${JSON.stringify(seeded)}: expected teamId and leaderAgentId`);
  const { teamId, leaderAgentId } = seeded;
  await api(url, "PATCH", `/api/teams/${teamId}/onboarding`, { agentsIntroduced: true, userIntroduced: true, userIntroText: ABOUT_YOU });
  await api(url, "PUT", `/api/team-rules/${teamId}`, { content: RULES.map((r) => `- ${r}`).join("\n") });

  let waiter = null;
  const close = await openTeamStream(url, teamId, (frame) => waiter?.(frame)).catch((e) =>
    fail(`GET /api/teams/${teamId}/chat/stream: ${e.message}`));
  const results = [];
  let previousBytes = 0;
  try {
    for (let i = 0; i < count; i++) {
      const text = question(i);
      const logBefore = (await readModelLog(opts.modelLog)).length;
      // The first agent that starts running after the send answers; its next idle is the reply stored.
      let responder = null;
      const done = new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error("no reply within 60s")), REPLY_TIMEOUT_MS);
        waiter = ({ agentId, status }) => {
          if (status === "running" && !responder) responder = agentId;
          else if (agentId === responder && status === "idle") { clearTimeout(timer); resolve(performance.now()); }
          else if (agentId === responder && status === "error") { clearTimeout(timer); reject(new Error(`${agentId} ended in error`)); }
        };
      });
      const started = performance.now();
      await api(url, "POST", `/api/teams/${teamId}/chat`, {
        message: text,
        ...(opts.target === "leader" ? { targetAgentId: leaderAgentId } : {}),
      });
      const stored = async () => {
        const key = encodeURIComponent(`agent:${responder}:team:${teamId}`);
        return (await api(url, "GET", `/api/chat-history?sessionKey=${key}&limit=1000`)).entries?.at(-1);
      };
      const finished = await done.catch(async (e) => {
        const said = responder ? ` It stored: ${JSON.stringify((await stored())?.text ?? null)?.slice(0, 300)}.` : "";
        fail(`exchange ${i + 1}: ${e.message}.${said} Is its model provider pointed at the fake model server (README.md)?`);
      });
      waiter = null;
      const total = finished - started;

      const last = await stored();
      if (last?.role !== "assistant" || !last.text) {
        fail(`exchange ${i + 1}: ${responder} went idle but its stored transcript ends with ${JSON.stringify(last)?.slice(0, 200)}, not a reply`);
      }
      const requests = await newModelRequests(opts.modelLog, logBefore);
      const own = requests.find((r) => lastUserText(r.body).includes(text)) ?? requests[0];
      if (!own) fail(`exchange ${i + 1}: the model log shows no model request for it`);
      const bare = await bareRoundTrip(own);
      const bytes = Buffer.byteLength(own.raw_body, "utf8");
      results.push({
        ownMs: total - bare,
        bytes: bytes - previousBytes,
        total: bytes,
        requests: requests.length,
        responder,
        bodies: requests.map((r) => r.body ?? JSON.parse(r.raw_body)),
        api: `${own.path} (${own.body?.model ?? "?"})`,
      });
      previousBytes = bytes;
    }
  } finally {
    close();
  }
  return { results, leaderAgentId };
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const version = await api(opts.url, "GET", "/api/system/self-version");
  await readModelLog(opts.modelLog); // fails early on an unreadable source
  const count = Math.max(...opts.exchanges);
  const rounds = [];
  for (let r = 0; r < opts.rounds; r++) rounds.push(await round(opts, count));

  if (opts.requestsOut) {
    const lines = rounds[0].results.flatMap((r, i) => r.bodies.map((body) => JSON.stringify({ exchange: i + 1, body })));
    await writeFile(opts.requestsOut, `${lines.join("\n")}\n`);
  }
  const pick = (n, key) => median(rounds.map((r) => r.results[n - 1][key]));
  const figure = (key, digits) =>
    Object.fromEntries(opts.exchanges.map((n) => [String(n), Number(pick(n, key).toFixed(digits))]));
  const responders = [...new Set(rounds.flatMap((r) => r.results.map((x) => (x.responder === r.leaderAgentId ? "the team lead" : x.responder.replace(/-[0-9a-f]+$/, "")))))];
  const apis = [...new Set(rounds.flatMap((r) => r.results.map((x) => x.api)))];
  const requestsPerExchange = [...new Set(rounds.flatMap((r) => r.results.map((x) => x.requests)))].sort();
  const out = {
    own_overhead_ms: figure("ownMs", 2),
    request_bytes_per_exchange: figure("bytes", 0),
    request_total_bytes: figure("total", 0),
    version: String(version.current ?? "unknown"),
    notes:
      `Medians over ${opts.rounds} rounds, each a freshly seeded Native team (seeded with provider ${opts.provider}) ` +
      `with the same introduction, rules and messages as our team_chat bench. Own overhead: POST /api/teams/:id/chat → ` +
      `the answering agent's SSE status back to idle (its reply stored, checked in /api/chat-history), minus the same ` +
      `model request replayed bare (median of 5). Answered by: ${responders.join(", ")} ` +
      `(${opts.target === "leader" ? "messages addressed to the team lead" : "messages sent as a user types them, no @mention"}). ` +
      `Its model requests: ${apis.join(", ")}, ${requestsPerExchange.join(" or ")} per exchange. Bytes: growth of the answering agent's request body ` +
      `over the previous exchange (whole body at exchange 1); request_total_bytes is the whole body.`,
  };
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

main().catch((e) => fail(e.stack ?? String(e)));
