// Everyday use: a failed run is an error card with its code, kept in the history, whose Retry
// works once the model answers again (a scripted HTTP 500 from the fake model server in the
// one-to-one chat, tried again before it fails; an HTTP 400, which fails at once, in a team room
// and a card); Home lists a run while it goes; an agent that cannot
// run carries the can't-run badge. Then screenshots of Home, the room and the card with their
// error cards, at 1440x900 and 900x600, light and dark (`everydayShots`, on the same data folder).

import { spawn, execSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { WebDriver, waitFor } from "./webdriver.mjs";

/** The fake model server fails the next `count` model requests of the turn whose message
 *  contains `only` with HTTP `status` (a routine firing meanwhile is answered). Native tries a
 *  call that failed with 500 twice more (1 s, then 4 s later), so 3 failures fail a run and the
 *  next run succeeds; a 400 is not tried again, so 1 fails a run at once. */
async function failNext(modelUrl, count, only, status = 500) {
  const response = await fetch(`${await modelUrl}/testkit/fail-next`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ count, status, only }),
  });
  if (!response.ok) throw new Error(`the fake model server refused fail-next: ${response.status}`);
}

export async function everydaySteps(h, { driver, modelUrl }) {
  const { step, find, click, present, typeInto, saveScreenshot, createAgent, byTestId } = h;
  const pageText = () => driver.execute("return document.body.innerText");

  await step("a model's HTTP 500 is an error card with its code; its Retry answers once the model does", async () => {
    await click("agent-item-local");
    await click("tab-chat");
    await failNext(modelUrl, 3, "Check the folder again");
    await typeInto("chat-input", "Check the folder again");
    await click("chat-send");
    // Tried three times (1 s, then 4 s apart), then the error card.
    const card = await waitFor("the error card", () => find("run-error"), 40000);
    const text = await driver.text(card);
    if (!text.includes("HTTP 500")) throw new Error(`the card does not say what failed: ${text}`);
    const code = await driver.execute(`return document.querySelector('[data-testid="run-error"]').dataset.code`);
    if (code !== "provider_busy") throw new Error(`the card's code is ${code}`);
    const activity = await driver.execute(
      `const a = document.querySelector('[data-testid="activity-card"]'); return a ? a.innerText : ""`,
    );
    if (!activity.includes("Trying again in 1 s (1 of 2)")) throw new Error(`Activity does not say it retried: ${activity.slice(0, 400)}`);
    await saveScreenshot("chat-error-card.png");
    await click("run-retry");
    // The message again, then its answer last (older rows may have left the virtual list).
    await waitFor("the retried message's answer", () => driver.execute(
      `const rows = [...document.querySelectorAll('[data-testid="chat-message"]')];
       const last = rows[rows.length - 1];
       return rows.filter((r) => r.innerText.includes("Check the folder again")).length === 2 &&
         last?.dataset.role === "assistant" && last.innerText.includes("All done: I listed your files.");`,
    ), 30000);
    if (!(await present("run-error"))) throw new Error("the failed run's card left the history");
  });

  await step("Home lists a run while it goes: who, on what, since when, and opens where it shows", async () => {
    await typeInto("chat-input", "Take your time on the summary");
    await click("chat-send");
    await click("nav-home");
    const row = await waitFor("the running run on Home", async () => {
      const rows = await driver.execute(
        `return [...document.querySelectorAll('[data-testid="home-run"]')].map(r => r.innerText)`,
      );
      return rows.find((r) => r.includes("Local") && r.includes("Take your time")) ?? null;
    }, 10000);
    if (!/since/.test(row)) throw new Error(`the row does not say since when: ${row}`);
    await saveScreenshot("home-running.png");
    // Open takes the user to where the run shows: @local's chat, its reply still streaming.
    await click("home-run-open");
    await waitFor("@local's chat with the running message", async () =>
      (await present("chat-input")) && (await pageText()).includes("Take your time on the summary"), 10000);
    await click("nav-home");
    await waitFor("the run to leave Home when it ends", async () =>
      (await driver.execute(`return document.getElementById("home-running") !== null`)) &&
      !(await pageText()).includes("Take your time on the summary"), 30000);
  });

  await step("an agent that cannot run carries the can't-run badge, with why", async () => {
    // OpenRouter has no key here: a Native agent on it cannot run.
    await click("new-agent-button");
    await typeInto("agent-name-input", "Router");
    await typeInto("agent-handle-input", "router");
    await h.choose("agent-runtime-select", "native");
    await h.choose("agent-provider-select", "openrouter");
    await typeInto("agent-model-input", "some-model");
    await click("create-agent-submit");
    await waitFor("the badge in the sidebar", () =>
      driver.find(`${byTestId("agent-item-router")} ${byTestId("cant-run-badge")}`), 10000);
    const label = await driver.execute(
      `return document.querySelector('[data-testid="agent-item-router"] [data-testid="cant-run-badge"]').getAttribute("title")`,
    );
    if (!/OpenRouter API key/.test(label)) throw new Error(`the badge says: ${label}`);
    await click("agent-item-router");
    await waitFor("the notice in its chat", () => find("cant-run-notice"), 10000);
    await saveScreenshot("cant-run.png");
  });

  await step("a team room keeps a failed turn as an error card; its Retry sends the message again", async () => {
    await click("team-item-Launch");
    await waitFor("the room", () => find("room-chat"), 10000);
    await failNext(modelUrl, 1, "Status check, please", 400);
    await typeInto("chat-input", "Status check, please");
    await click("chat-send");
    const card = await waitFor("the room's error card", () => find("room-run-error"), 40000);
    const text = await driver.text(card);
    if (!text.includes("@lead's run failed.") || !text.includes("HTTP 400")) throw new Error(`the card says: ${text}`);
    await saveScreenshot("team-error-card.png");
    await click("run-retry");
    await waitFor("the message again, then the leader's answer", () => driver.execute(
      `const rows = [...document.querySelectorAll('[data-testid="room-timeline"] [data-testid^="room-message-"]')];
       const last = rows[rows.length - 1];
       return rows.filter((r) => r.innerText.includes("Status check, please")).length === 2 &&
         last?.dataset.testid === "room-message-reply" && last.innerText.includes("All done: I listed your files.");`,
    ), 40000);
  });

  await step("a card's failed run is an error card in its panel, its code and Retry with it", async () => {
    await click("nav-board");
    await click("board-new-card");
    await typeInto("card-title-input", "Count the jars");
    const localId = await driver.execute(
      `return [...document.querySelectorAll('[data-testid="card-assignee-select"] option')].find(o => o.textContent.includes('@local')).value`,
    );
    await h.choose("card-assignee-select", localId);
    await click("card-submit");
    const tile = await waitFor("the card in To do", async () =>
      driver.execute(
        `const t = [...document.querySelectorAll('[data-testid="column-todo"] .card-tile')].find(e => e.innerText.includes('Count the jars')); return t && t.dataset.testid`,
      ), 10000);
    await driver.execute(`document.querySelector('[data-testid="${tile}"] .card-tile__title').click()`);
    await failNext(modelUrl, 1, "Count the jars", 400);
    await click("card-run-start");
    const card = await waitFor("the card's error card", () => find("card-run-error"), 40000);
    const text = await driver.text(card);
    if (!text.includes("Attempt 1 failed.")) throw new Error(`the card says: ${text}`);
    if (!(await present("run-retry")) || !(await present("run-error-code"))) throw new Error("the card's error card has no Retry or code");
    await saveScreenshot("card-error-card.png");
    // Kept open for the screenshots of every theme and size; closed here.
    await driver.execute(`document.dispatchEvent(new KeyboardEvent('keydown', {key: 'Escape', bubbles: true}))`);
  });
}

const THEMES = [
  { gtk: "Adwaita", scheme: "light" },
  { gtk: "Adwaita:dark", scheme: "dark" },
];
const SIZES = [
  [1440, 900],
  [900, 600],
];

/** Home, the team room with its error card and the card with its error, in each theme and size;
 *  saved to `out` (CLAWBOO_SHOTS_DIR, else the artifacts folder). */
export async function everydayShots({ application, dataDir, out, step, port = 4464 }) {
  mkdirSync(out, { recursive: true });
  for (const theme of THEMES) {
    for (const [width, height] of SIZES) {
      await step(`screenshots at ${width}x${height}, ${theme.scheme}: Home, a room's and a card's error cards`, async () => {
        const driverProcess = spawn("tauri-driver", ["--port", String(port), "--native-port", String(port + 1)], {
          env: { ...process.env, CLAWBOO_DATA_DIR: dataDir, GTK_THEME: theme.gtk },
          stdio: ["ignore", "ignore", "inherit"],
        });
        const driver = new WebDriver(`http://127.0.0.1:${port}`);
        const name = (what) => `${what}-${width}x${height}-${theme.scheme}.png`;
        const shot = async (what) => writeFileSync(join(out, name(what)), Buffer.from(await driver.screenshot(), "base64"));
        const clickOn = async (id) => driver.click(await waitFor(id, () => driver.find(`[data-testid="${id}"]`), 20000));
        try {
          await waitFor("tauri-driver to listen", () => fetch(`http://127.0.0.1:${port}/status`).then((r) => r.ok), 20000);
          await driver.start(application);
          await driver.call("POST", driver.s("/window/rect"), { width, height });
          await clickOn("nav-home");
          await waitFor("Home", () => driver.find('[data-testid="home"]'), 20000);
          await new Promise((r) => setTimeout(r, 500));
          await shot("home");
          await clickOn("team-item-Launch");
          await waitFor("the room's error card", () => driver.find('[data-testid="room-run-error"]'), 20000);
          await driver.execute(`document.querySelector('[data-testid="room-run-error"]').scrollIntoView({block: "center"})`);
          await new Promise((r) => setTimeout(r, 500));
          await shot("team-error");
          await clickOn("nav-board");
          const tile = await waitFor("the failed card", async () =>
            driver.execute(
              `const t = [...document.querySelectorAll('.card-tile')].find(e => e.innerText.includes('Count the jars')); return t && t.dataset.testid`,
            ), 20000);
          await driver.execute(`document.querySelector('[data-testid="${tile}"] .card-tile__title').click()`);
          await waitFor("the card's error card", () => driver.find('[data-testid="card-run-error"]'), 20000);
          await driver.execute(`document.querySelector('[data-testid="card-run-error"]').scrollIntoView({block: "center"})`);
          await new Promise((r) => setTimeout(r, 500));
          await shot("card-error");
        } finally {
          await driver.quit().catch(() => {});
          driverProcess.kill("SIGTERM");
          await new Promise((r) => driverProcess.once("exit", r));
          // One app per data folder: the next would hand over to this one and end. Given a few
          // seconds to exit (it may stay in the tray), then ended by its id.
          const running = () => {
            try {
              return execSync(`pgrep -f '^${application}$'`).toString().split("\n").filter(Boolean);
            } catch {
              return [];
            }
          };
          await waitFor("the app to exit", () => running().length === 0, 10000).catch(() => {
            for (const pid of running()) process.kill(Number(pid), "SIGTERM");
          });
          await waitFor("the app to be ended", () => running().length === 0, 10000).catch(() => {});
        }
      });
    }
  }
}
