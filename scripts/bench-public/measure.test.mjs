// Tests measure.mjs against a small stand-in for the public Clawboo's API (seed, onboarding, rules,
// chat ingest, SSE status frames, chat history) whose agent calls a stand-in model endpoint that
// logs requests the way our fake model server's --log does. `node --test scripts/bench-public/`.

import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { appendFileSync, mkdtempSync, writeFileSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";

const SCRIPT = new URL("./measure.mjs", import.meta.url).pathname;
/** What the stand-in spends on each message besides the model call. */
const OWN_DELAY_MS = 40;
/** What the stand-in model takes to answer, in the agent's run and in a bare replay alike. */
const MODEL_DELAY_MS = 60;
/** Each past exchange is carried in full: the request grows by a fixed amount per exchange. */
const HISTORY_ITEM = "x".repeat(1000);

function run(args) {
  return new Promise((resolve) => {
    const env = { ...process.env };
    delete env.CLAWBOO_PUBLIC_MODEL_LOG;
    execFile(process.execPath, [SCRIPT, ...args], { timeout: 60_000, env }, (error, stdout, stderr) =>
      resolve({ code: error ? error.code ?? 1 : 0, stdout, stderr }));
  });
}

/** The stand-in instance. Its agent "boo" answers every team message after OWN_DELAY_MS. */
function startInstance(log, { seedStatus = 201 } = {}) {
  // Like our fake model server, the log is appended every 100 ms, not as requests arrive.
  let pending = "";
  const flusher = setInterval(() => {
    if (pending) appendFileSync(log, pending);
    pending = "";
  }, 100);
  const record = (entry) => (pending += `${JSON.stringify(entry)}\n`);
  const streams = new Map();
  const history = new Map();
  const turns = new Map();
  let port;
  const json = (res, status, body) => res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
  const publish = (teamId, frame) => {
    for (const res of streams.get(teamId) ?? []) res.write(`event: status\ndata: ${JSON.stringify(frame)}\n\n`);
  };
  const server = http.createServer(async (req, res) => {
    let body = "";
    for await (const chunk of req) body += chunk;
    const url = new URL(req.url, "http://x");
    const path = url.pathname;
    if (path === "/api/system/self-version") return json(res, 200, { current: "9.9.9" });
    if (path === "/api/onboarding/seed-native-team") {
      const teamId = `team-${streams.size + turns.size}-${Date.now()}`;
      turns.set(teamId, 0);
      return json(res, seedStatus, { teamId, leaderAgentId: "lead-1", specialistAgentId: "spec-1" });
    }
    if (/^\/api\/teams\/[^/]+\/onboarding$/.test(path) || path.startsWith("/api/team-rules/")) return json(res, 200, {});
    const stream = /^\/api\/teams\/([^/]+)\/chat\/stream$/.exec(path);
    if (stream) {
      res.writeHead(200, { "content-type": "text/event-stream" }).write(": connected\n\n");
      streams.set(stream[1], [...(streams.get(stream[1]) ?? []), res]);
      return;
    }
    const chat = /^\/api\/teams\/([^/]+)\/chat$/.exec(path);
    if (chat) {
      const teamId = chat[1];
      const { message } = JSON.parse(body);
      const n = turns.get(teamId) + 1;
      turns.set(teamId, n);
      json(res, 202, { ok: true });
      publish(teamId, { agentId: "boo", status: "running" });
      const request = { model: "m", messages: [...Array(n - 1).fill({ role: "user", content: HISTORY_ITEM }), { role: "user", content: message }] };
      const raw = JSON.stringify(request);
      record({ method: "POST", path: "/v1/messages", query: "", headers: [["host", `127.0.0.1:${port}`]], body: request, raw_body: raw });
      await new Promise((r) => setTimeout(r, MODEL_DELAY_MS + OWN_DELAY_MS));
      const key = `agent:boo:team:${teamId}`;
      history.set(key, [...(history.get(key) ?? []), { role: "user", text: message }, { role: "assistant", text: "Noted." }]);
      publish(teamId, { agentId: "boo", status: "idle" });
      return;
    }
    if (path === "/api/chat-history") return json(res, 200, { entries: history.get(url.searchParams.get("sessionKey")) ?? [] });
    if (path === "/v1/messages") {
      const headers = Object.entries(req.headers);
      record({ method: "POST", path, query: "", headers, body: JSON.parse(body), raw_body: body });
      await new Promise((r) => setTimeout(r, MODEL_DELAY_MS));
      return json(res, 200, { content: [{ type: "text", text: "Noted." }] });
    }
    json(res, 404, { error: `no route ${path}` });
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => {
      port = server.address().port;
      resolve({
        url: `http://127.0.0.1:${port}`,
        close: () => {
          clearInterval(flusher);
          for (const list of streams.values()) for (const res of list) res.end();
          server.close();
        },
      });
    }));
}

function freshLog() {
  const path = join(mkdtempSync(join(tmpdir(), "bench-public-")), "model.jsonl");
  writeFileSync(path, "");
  return path;
}

test("prints own overhead net of the model's time and the request growth per exchange", async () => {
  const log = freshLog();
  const instance = await startInstance(log);
  try {
    const { code, stdout, stderr } = await run(["--url", instance.url, "--exchanges", "1,3", "--rounds", "2", "--model-log", log]);
    assert.equal(code, 0, stderr);
    const out = JSON.parse(stdout);
    assert.equal(out.version, "9.9.9");
    assert.deepEqual(Object.keys(out.own_overhead_ms), ["1", "3"]);
    for (const ms of Object.values(out.own_overhead_ms)) {
      // Net of the model's time: well under what the model alone takes on top of the own delay.
      assert.ok(ms >= OWN_DELAY_MS * 0.9 && ms < OWN_DELAY_MS + MODEL_DELAY_MS * 0.75, `own overhead ${ms} ms`);
    }
    const message = (i) => `Question ${i}: what should we stock next week?`;
    const body = (n, i) => JSON.stringify({ model: "m", messages: [...Array(n - 1).fill({ role: "user", content: HISTORY_ITEM }), { role: "user", content: message(i) }] });
    assert.equal(out.request_total_bytes["1"], body(1, 0).length);
    assert.equal(out.request_bytes_per_exchange["1"], body(1, 0).length);
    assert.equal(out.request_bytes_per_exchange["3"], body(3, 2).length - body(2, 1).length);
    // The script's own bare replays were logged too, and were not counted as the instance's.
    assert.match(out.notes, /1 per exchange/);
  } finally {
    instance.close();
  }
});

test("fails with a reason when the URL does not answer", async () => {
  const { code, stderr } = await run(["--url", "http://127.0.0.1:9", "--model-log", freshLog()]);
  assert.notEqual(code, 0);
  assert.match(stderr, /cannot reach the public Clawboo/);
});

test("fails with a reason when the API is not the one it knows", async () => {
  const log = freshLog();
  const instance = await startInstance(log, { seedStatus: 404 });
  try {
    const { code, stderr } = await run(["--url", instance.url, "--exchanges", "1", "--rounds", "1", "--model-log", log]);
    assert.notEqual(code, 0);
    assert.match(stderr, /seed-native-team answered 404/);
  } finally {
    instance.close();
  }
});

test("refuses to run without the model server's log", async () => {
  const { code, stderr } = await run(["--url", "http://127.0.0.1:9"]);
  assert.notEqual(code, 0);
  assert.match(stderr, /--model-log/);
});
