// How a chat's speed holds up as it grows, measured in the real app: the built Clawboo binary
// under Xvfb, driven through tauri-driver + WebKitWebDriver, a Native agent on the fake model.
// Usage (through scripts/bench-chat-ui): node tests/e2e/bench-chat.mjs APP FAKE_MODEL_SERVER
//
// Chats are seeded straight into SQLite while the app is closed (src-tauri/testkit/src/seed_chat.sql),
// then timed in the page itself (performance.now), so WebDriver's own round trips are not counted:
// - per exchange: send → the reply visible (the streaming row gone, the reply the last row), at
//   exchange 10 and 1,000, and in a 10,000-message chat (after /reset, its model request short);
// - reload + open: from location.reload() to the newest messages of a 10,000-message chat shown.

import { spawn, execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync, existsSync, rmSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { WebDriver, waitFor } from "./webdriver.mjs";

const application = resolve(process.argv[2] ?? "target/release/clawboo");
const fakeModelServer = resolve(process.argv[3] ?? "target/release/examples/fake_model_server");
for (const path of [application, fakeModelServer]) if (!existsSync(path)) throw new Error(`missing ${path}: build it first`);
const SEED_SQL = resolve("src-tauri/testkit/src/seed_chat.sql");
const EXCHANGES = Number(process.env.BENCH_EXCHANGES ?? 20);
const RELOADS = Number(process.env.BENCH_RELOADS ?? 5);

const dataDir = mkdtempSync(join(tmpdir(), "clawboo-bench-chat-"));
const artifacts = resolve(".cache/bench-chat");
mkdirSync(artifacts, { recursive: true });
const PORT = 4444;

const REPLY = [
  "Here is what I found:",
  "",
  "- the **input** is read once",
  "- each check is `O(1)`",
  "",
  "```rust",
  "fn check(input: &str) -> bool {",
  "    !input.is_empty()",
  "}",
  "```",
  "",
  "| step | median |",
  "| --- | ---: |",
  "| read | 0.2 ms |",
  "| check | 0.1 ms |",
].join("\n");

const driverProcess = spawn("tauri-driver", ["--port", String(PORT), "--native-port", "4445"], {
  env: { ...process.env, CLAWBOO_DATA_DIR: dataDir },
  stdio: ["ignore", "inherit", "inherit"],
});
const driver = new WebDriver(`http://127.0.0.1:${PORT}`);
const modelProcess = spawn(fakeModelServer, ["text", REPLY], { stdio: ["ignore", "pipe", "inherit"] });
const modelUrl = new Promise((resolveUrl, reject) => {
  let seen = "";
  modelProcess.stdout.on("data", (chunk) => {
    seen += chunk;
    const match = /listening (http:\/\/127\.0\.0\.1:\d+)/.exec(seen);
    if (match) resolveUrl(match[1]);
  });
  modelProcess.on("exit", (code) => reject(new Error(`fake model server exited with ${code}`)));
});

const byTestId = (id) => `[data-testid="${id}"]`;
const find = (id) => driver.find(byTestId(id));
const click = async (id) => driver.click(await waitFor(id, () => find(id), 30000));
const textOf = async (id) => driver.text(await find(id));
const typeInto = (id, text) =>
  waitFor(`${id} to take input`, async () => {
    await driver.type(await find(id), text);
    return true;
  });
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (ms) => `${ms.toFixed(0)} ms`;
// For scripts/bench-report.mjs: one machine-readable line per figure.
const figure = (id, label, unit, value, n) =>
  console.log(`BENCH_JSON ${JSON.stringify({ id, label, unit, median: value, n })}`);

async function screenshot(name) {
  const shot = await driver.screenshot().catch(() => null);
  if (shot) writeFileSync(join(artifacts, name), Buffer.from(shot, "base64"));
  return join(artifacts, name);
}

async function selectValue(testId, value) {
  await driver.execute(
    `const s = document.querySelector('[data-testid="${testId}"]');
     Object.getOwnPropertyDescriptor(HTMLSelectElement.prototype, 'value').set.call(s, '${value}');
     s.dispatchEvent(new Event('change', { bubbles: true }));`,
  );
}

async function createNativeAgent(name, handle) {
  await click("new-agent-button");
  await typeInto("agent-name-input", name);
  await typeInto("agent-handle-input", handle);
  await selectValue("agent-runtime-select", "native");
  await selectValue("agent-provider-select", "custom");
  const model = await find("agent-model-input");
  await driver.clear(model);
  await driver.type(model, "some-model");
  await click("create-agent-submit");
  await waitFor(`@${handle} in the sidebar`, () => find(`agent-item-${handle}`));
}

// In the page: true once the conversation's newest row is a reply to `asked` and nothing is on its way.
const REPLIED = `
  function replied(asked) {
    if (document.querySelector('[data-testid="chat-streaming"], [data-testid="chat-pending"]')) return false;
    const rows = [...document.querySelectorAll('[data-testid="chat-timeline"] .timeline__row')];
    rows.sort((a, b) => Number(a.dataset.index) - Number(b.dataset.index));
    const last = rows[rows.length - 1];
    const before = rows[rows.length - 2];
    // The user's bubble, not the whole row: the row also holds the message's actions (Copy, Edit…).
    const question = before && before.querySelector('[data-role="user"] .chat-bubble');
    return !!last && !!last.querySelector('[data-role="assistant"] table') && !!question && question.textContent === asked;
  }`;

/** One exchange timed in the page: submit → the reply rendered (and a frame painted). */
function timeExchange(text) {
  return driver.executeAsync(
    `${REPLIED}
     const [text, done] = arguments;
     const input = document.querySelector('[data-testid="chat-input"]');
     Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, 'value').set.call(input, text);
     input.dispatchEvent(new Event('input', { bubbles: true }));
     const button = document.querySelector('[data-testid="chat-send"]');
     let started = null;
     const timeline = document.querySelector('[data-testid="chat-timeline"]');
     const observer = new MutationObserver(check);
     const timer = setTimeout(() => { observer.disconnect(); done({ error: 'no reply within 20 s' }); }, 20000);
     function check() {
       if (started === null || !replied(text)) return;
       observer.disconnect();
       clearTimeout(timer);
       requestAnimationFrame(() => done({ ms: performance.now() - started }));
     }
     // The button takes the click once React has seen the text.
     (function send() {
       if (button.disabled) return setTimeout(send, 0);
       observer.observe(timeline, { childList: true, subtree: true, characterData: true });
       started = performance.now();
       button.click();
       check();
     })();`,
    [text],
  );
}

async function exchanges(handle, label) {
  await click(`agent-item-${handle}`);
  await waitFor("the chat", () => find("chat-timeline"));
  await waitFor("the composer to be free", async () => !(await present("chat-stop")));
  const samples = [];
  for (let i = 0; i < EXCHANGES; i++) {
    const result = await timeExchange(`${label} ping ${i + 1}`);
    if (result.error) throw new Error(`${label}: ${result.error}`);
    samples.push(result.ms);
    // The composer takes the next message once the run's end has been heard.
    await waitFor("the send to be possible", async () => !(await present("chat-stop")));
  }
  return samples;
}

const present = async (id) => (await driver.findAll(byTestId(id))).length > 0;

/** Reloads the webview and opens the agent's chat; times both from the page's own clock. */
async function reloadAndOpen(handle, newestText) {
  const before = Date.now();
  await driver.execute("setTimeout(() => location.reload(), 0); return true;");
  await new Promise((r) => setTimeout(r, 50));
  return driver.executeAsync(
    `const [handle, newest, done] = arguments;
     const now = () => performance.timeOrigin + performance.now();
     let clickedAt = null;
     const timer = setTimeout(() => done({ error: 'the chat did not open within 20 s' }), 20000);
     function step() {
       if (clickedAt === null) {
         const item = document.querySelector('[data-testid="agent-item-' + handle + '"]');
         if (item) { clickedAt = now(); item.click(); }
       } else {
         const rows = [...document.querySelectorAll('[data-testid="chat-timeline"] .timeline__row')];
         const last = rows.sort((a, b) => Number(a.dataset.index) - Number(b.dataset.index)).pop();
         if (last && last.textContent.includes(newest)) {
           clearTimeout(timer);
           return requestAnimationFrame(() => done({ clickedAt, shownAt: now(), rows: rows.length + 1 }));
         }
       }
       requestAnimationFrame(step);
     }
     step();`,
    [handle, newestText],
  ).then((r) => {
    if (r.error) throw new Error(r.error);
    return { total: r.shownAt - before, open: r.shownAt - r.clickedAt, rows: r.rows };
  });
}

function seed(handle, exchanges) {
  const db = join(dataDir, "clawboo.db");
  execFileSync("sqlite3", [
    db,
    `.parameter set :agent "(SELECT id FROM agents WHERE handle = '${handle}')"`,
    `.parameter set :count ${exchanges}`,
    `.read ${SEED_SQL}`,
  ]);
  return Number(
    execFileSync("sqlite3", [
      db,
      `SELECT COUNT(*) FROM messages m JOIN conversations c ON c.id = m.conversation_id JOIN agents a ON a.id = c.agent_id WHERE a.handle = '${handle}'`,
    ]).toString(),
  );
}

let failed = false;
try {
  await waitFor("tauri-driver to listen", () => fetch(`http://127.0.0.1:${PORT}/status`).then((r) => r.ok), 20000);

  // 1. Set up: a custom provider pointed at the fake model, three Native agents. Then quit.
  await driver.start(application);
  await waitFor("the app", () => find("new-agent-button"), 30000);
  const base = `${await modelUrl}/v1`;
  await click("settings-link");
  const baseInput = await waitFor("the custom base URL input", () => find("base-url-input-custom"));
  await driver.clear(baseInput);
  await driver.type(baseInput, base);
  await click("save-base-url-custom");
  await waitFor("the base URL to be saved", async () =>
    !(await driver.execute(`return document.querySelector('[data-testid="key-input-custom"]').disabled`)),
  );
  await typeInto("key-input-custom", "sk-local-bench");
  await click("save-key-custom");
  await waitFor("the key to show as set", async () => (await textOf("key-status-custom")).trim() === "Key set");
  const agents = [["Ten", "chat10"], ["Thousand", "chat1000"], ["Reset", "chat1000r"], ["Huge", "chat10000"]];
  for (const [name, handle] of agents) {
    await createNativeAgent(name, handle);
  }
  await driver.quit();
  await new Promise((r) => setTimeout(r, 1500));

  // 2. Seed while the app is closed: exchange 10, exchange 1,000, and a 10,000-message chat.
  const sizes = {
    chat10: seed("chat10", 9),
    chat1000: seed("chat1000", 999),
    chat1000r: seed("chat1000r", 999),
    chat10000: seed("chat10000", 5000),
  };
  console.log(`seeded: ${JSON.stringify(sizes)} messages`);
  // A hostile reply: it must show as text, run nothing, load nothing.
  const HOSTILE = `Try <script>window.__pwned = 1</script> or <img src="x" onerror="window.__pwned = 2"> [here](https://example.com)`;
  execFileSync("sqlite3", [
    join(dataDir, "clawboo.db"),
    `INSERT INTO messages (id, conversation_id, seq, role, content, run_id, epoch, created_at)
     SELECT 'hostile', c.id, (SELECT MAX(seq) + 1 FROM messages WHERE conversation_id = c.id), 'assistant',
            '${HOSTILE.replaceAll("'", "''")}', NULL, c.epoch, 0
     FROM conversations c JOIN agents a ON a.id = c.agent_id WHERE a.handle = 'chat10'`,
  ]);

  // 3. Measure.
  await driver.start(application);
  await waitFor("the app", () => find("agent-item-chat10"), 30000);
  await click("agent-item-chat10");
  const hostile = await waitFor("the hostile reply", () =>
    driver.execute(
      `const rows = [...document.querySelectorAll('[data-testid="chat-timeline"] .timeline__row')];
       const row = rows.find((r) => r.textContent.includes('window.__pwned = 1'));
       return row && { pwned: window.__pwned ?? null, elements: row.querySelectorAll('script, img, a, [onerror]').length, text: row.textContent };`,
    ),
  );
  if (hostile.pwned !== null || hostile.elements !== 0) throw new Error(`raw HTML took effect: ${JSON.stringify(hostile)}`);
  console.log(`a reply with <script>, <img onerror> and a link shows as text: ${JSON.stringify(hostile.text)}`);
  await screenshot("hostile-reply.png");
  const small = await exchanges("chat10", "ten");
  const large = await exchanges("chat1000", "thousand");
  console.log(
    `per exchange (send → reply visible), ${EXCHANGES} each: at exchange 10 median ${fmt(median(small))}; ` +
      `at exchange 1,000 median ${fmt(median(large))}; ratio ${(median(large) / median(small)).toFixed(2)}x`,
  );
  figure("ui.exchange_ms.x10", "UI: send → reply visible at exchange 10", "ms", median(small), small.length);
  figure("ui.exchange_ms.x1000", "UI: send → reply visible at exchange 1,000", "ms", median(large), large.length);
  console.log(`  samples at 10: ${small.map((x) => x.toFixed(0)).join(" ")}`);
  console.log(`  samples at 1,000: ${large.map((x) => x.toFixed(0)).join(" ")}`);
  // A Native agent carries its whole conversation to the model, so at exchange 1,000 the model
  // request is ~1,000 exchanges long. After /reset the chat is as long but the request is not:
  // what is left is the cost of the chat's length alone.
  await click("agent-item-chat1000r");
  await typeInto("chat-input", "/reset");
  await click("chat-send");
  await waitFor("the reset notice", () => find("chat-notice"));
  const reset = await exchanges("chat1000r", "after reset");
  console.log(
    `per exchange at exchange 1,000 after /reset (same chat length, short model request): median ${fmt(median(reset))}; ` +
      `ratio to exchange 10 ${(median(reset) / median(small)).toFixed(2)}x`,
  );
  console.log(`  samples at 1,000 after /reset: ${reset.map((x) => x.toFixed(0)).join(" ")}`);
  figure("ui.exchange_ms.x1000_reset", "UI: send → reply visible at exchange 1,000 after /reset", "ms", median(reset), reset.length);
  await screenshot("long-chat-markdown.png");

  // Older pages: with a row in view near the top, load the page before; that row stays put.
  const kept = await driver.executeAsync(
    `const done = arguments[0];
     const scroller = document.querySelector('[data-testid="chat-timeline"]');
     const firstInView = () => {
       const top = scroller.getBoundingClientRect().top;
       const row = [...document.querySelectorAll('.timeline__row')]
         .sort((a, b) => a.getBoundingClientRect().top - b.getBoundingClientRect().top)
         .find((r) => r.getBoundingClientRect().top >= top);
       return row && { text: row.textContent.slice(0, 80), offset: row.getBoundingClientRect().top - top };
     };
     scroller.scrollTop = 400;
     setTimeout(() => {
       const before = firstInView();
       const rowsBefore = document.querySelectorAll('.timeline__row').length;
       document.querySelector('[data-testid="timeline-load-older"]').click();
       setTimeout(() => {
         const top = scroller.getBoundingClientRect().top;
         const same = [...document.querySelectorAll('.timeline__row')].find((r) => r.textContent.slice(0, 80) === before.text);
         done({ anchor: before.text, offsetBefore: before.offset, offsetAfter: same ? same.getBoundingClientRect().top - top : null,
                scrollTop: scroller.scrollTop, rowsBefore });
       }, 1500);
     }, 500);`,
  );
  console.log(`load older: ${JSON.stringify(kept)}`);
  if (kept.offsetAfter === null || Math.abs(kept.offsetAfter - kept.offsetBefore) > 2) {
    console.log("  the row in view moved when older messages were added");
  } else {
    console.log("  the row in view stayed in place when older messages were added above");
  }

  const opens = [];
  for (let i = 0; i < RELOADS; i++) opens.push(await reloadAndOpen("chat10000", "Part 5000"));
  console.log(
    `reload + open of a ${sizes.chat10000}-message chat, ${RELOADS} times: median ${fmt(median(opens.map((o) => o.total)))} ` +
      `(of which opening the chat: ${fmt(median(opens.map((o) => o.open)))}; rows in the DOM: ${opens[0].rows})`,
  );
  figure("ui.open_10k_ms", "UI: reload + open a 10,000-message chat", "ms", median(opens.map((o) => o.total)), opens.length);
  figure("ui.open_10k_click_ms", "UI: open a 10,000-message chat (click → shown)", "ms", median(opens.map((o) => o.open)), opens.length);
  await screenshot("huge-chat.png");

  // Per exchange in the 10,000-message chat, after /reset as above (the model request short, the
  // chat as long): what the chat's length costs the UI at 10,000 messages.
  await click("agent-item-chat10000");
  await typeInto("chat-input", "/reset");
  await click("chat-send");
  await waitFor("the reset notice", () => find("chat-notice"));
  const huge = await exchanges("chat10000", "ten thousand");
  console.log(
    `per exchange in a ${sizes.chat10000}-message chat after /reset: median ${fmt(median(huge))}; ` +
      `ratio to exchange 10 ${(median(huge) / median(small)).toFixed(2)}x`,
  );
  console.log(`  samples at 10,000 messages: ${huge.map((x) => x.toFixed(0)).join(" ")}`);
  figure("ui.exchange_ms.x10k_reset", "UI: send → reply visible in a 10,000-message chat after /reset", "ms", median(huge), huge.length);
} catch (e) {
  failed = true;
  console.log(`bench-chat failed: ${e.message}`);
  await screenshot("failed.png");
} finally {
  await driver.quit();
  driverProcess.kill("SIGTERM");
  modelProcess.kill("SIGTERM");
  rmSync(dataDir, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
