// Screenshots of a team with a member on an OpenClaw Gateway the user runs (#29 item 6): the team's
// member list and the member's profile (Gateway), at 1440x900 and 900x600, light and dark. The
// member points at a port nobody listens on, so its link is lost and reconnecting; with
// CLAWBOO_GATEWAY_URL and CLAWBOO_GATEWAY_TOKEN set (a Gateway running there), one more shot shows
// it connected. Not part of run.mjs: run it alone, like run.mjs:
//   node tests/e2e/remote-members.mjs target/debug/clawboo [out]   (out: docs/screenshots)

import { spawn } from "node:child_process";
import { mkdtempSync, mkdirSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join, resolve } from "node:path";
import { WebDriver, waitFor } from "./webdriver.mjs";

const application = resolve(process.argv[2] ?? "target/debug/clawboo");
const out = resolve(process.argv[3] ?? "docs/screenshots");
mkdirSync(out, { recursive: true });
mkdirSync(resolve(".cache"), { recursive: true });
const dataDir = mkdtempSync(join(resolve(".cache"), "e2e-remote-"));
const THEMES = [
  { gtk: "Adwaita", scheme: "light" },
  { gtk: "Adwaita:dark", scheme: "dark" },
];
const SIZES = [
  [1440, 900],
  [900, 600],
];

/** A loopback port nobody listens on (bound, then closed). */
const closedPort = await new Promise((done) => {
  const server = createServer().listen(0, "127.0.0.1", () => {
    const { port } = server.address();
    server.close(() => done(port));
  });
});

async function withApp(theme, port, body) {
  const driverProcess = spawn("tauri-driver", ["--port", String(port), "--native-port", String(port + 1)], {
    env: { ...process.env, CLAWBOO_DATA_DIR: dataDir, GTK_THEME: theme.gtk },
    stdio: ["ignore", "ignore", "inherit"],
  });
  const driver = new WebDriver(`http://127.0.0.1:${port}`);
  try {
    await waitFor("tauri-driver to listen", () => fetch(`http://127.0.0.1:${port}/status`).then((r) => r.ok), 20000);
    await driver.start(application);
    const sel = (id) => `[data-testid="${id}"]`;
    const find = (id) => driver.find(sel(id));
    // The first match a user can see, scrolled into view (a narrow window may keep a hidden copy,
    // or put the element below the fold).
    const shown = async (id) => {
      const index = await driver.execute(
        `const all = [...document.querySelectorAll('${sel(id)}')];
         const i = all.findIndex((e) => e.getClientRects().length > 0);
         if (i >= 0) all[i].scrollIntoView({ block: "center" });
         return i;`,
      );
      return index >= 0 ? (await driver.findAll(sel(id)))[index] : undefined;
    };
    const click = async (id) => driver.click(await waitFor(id, () => shown(id), 20000));
    const type = async (id, text) => driver.type(await waitFor(id, () => find(id), 20000), text);
    const choose = (id, value) =>
      driver.execute(
        `const s = document.querySelector('${sel(id)}');
         Object.getOwnPropertyDescriptor(HTMLSelectElement.prototype, 'value').set.call(s, '${value}');
         s.dispatchEvent(new Event('change', { bubbles: true }));`,
      );
    const textOf = async (id) => driver.text(await find(id));
    await body({ driver, find, click, type, choose, textOf });
  } finally {
    await driver.quit().catch(() => {});
    driverProcess.kill("SIGTERM");
    await new Promise((r) => driverProcess.once("exit", r));
  }
}

const pause = (ms) => new Promise((r) => setTimeout(r, ms));

async function openProfile({ click, driver }) {
  await click("agent-item-ivy");
  await click("tab-details");
  await click("subtab-profile");
  await waitFor("the Gateway's health line", () => driver.find('[data-testid="gateway-health-profile"]'), 20000);
  await driver.execute(`document.querySelector('[data-testid="gateway-fields"]').scrollIntoView({block: "start"})`);
  await pause(400);
}

async function createAgent({ click, type, choose, driver }, name, handle, runtime) {
  await click("new-agent-button");
  await type("agent-name-input", name);
  await type("agent-handle-input", handle);
  await choose("agent-runtime-select", runtime);
  if (runtime === "native") await choose("agent-provider-select", "custom");
  const model = await driver.find('[data-testid="agent-model-input"]');
  await driver.clear(model);
  await driver.type(model, "some-model");
  await click("create-agent-submit");
  await waitFor(`@${handle} in the sidebar`, () => driver.find(`[data-testid="agent-item-${handle}"]`), 20000);
}

async function pointAt(app, url, token) {
  const { click, type, driver } = app;
  await click("agent-item-ivy");
  await click("tab-details");
  await click("subtab-profile");
  await click("gateway-mode-existing");
  const input = await waitFor("the URL input", () => driver.find('[data-testid="gateway-url-input"]'), 20000);
  await driver.clear(input);
  await driver.type(input, url);
  await type("gateway-token-input", token);
  await click("save-gateway-button");
  await waitFor("the Gateway saved", () => driver.find('[data-testid="gateway-saved"]'), 20000);
}

// The member's badge as shown (the list may also hold a hidden copy, whose WebDriver text is "").
const healthIn = (driver) => () =>
  driver.execute("return [...document.querySelectorAll('[data-testid=gateway-health-member]')].map((e) => e.textContent).join(' ');");
const shots = [];
await withApp(THEMES[0], 4474, async (app) => {
  const { click, type, driver } = app;
  if (await waitFor("the app", async () => (await driver.findAll('[data-testid="onboarding-skip"], [data-testid="new-agent-button"]')).length > 0, 30000)) {
    if ((await driver.findAll('[data-testid="onboarding-skip"]')).length) await click("onboarding-skip");
  }
  await createAgent(app, "Lead", "lead", "native");
  await createAgent(app, "Ivy", "ivy", "openclaw");
  await pointAt(app, `ws://127.0.0.1:${closedPort}`, "e2e-gateway-token");
  await click("new-team-button");
  await type("team-name-input", "Launch");
  for (const handle of ["lead", "ivy"]) await click(`new-team-member-${handle}`);
  await click("new-team-leader-lead");
  await click("create-team-submit");
});

for (const theme of THEMES) {
  await withApp(theme, 4474, async (app) => {
    const { click, driver, textOf } = app;
    const memberHealth = healthIn(driver);
    for (const [width, height] of SIZES) {
      await driver.call("POST", driver.s("/window/rect"), { width, height });
      await click("team-item-Launch");
      await waitFor("the member's Gateway lost", async () =>
        /Reconnecting/.test(await memberHealth()), 30000);
      await pause(500);
      const name = `remote-members-${theme.scheme}-${width}x${height}.png`;
      writeFileSync(join(out, name), Buffer.from(await driver.screenshot(), "base64"));
      shots.push(`${name}: ${await memberHealth()}`);
      await openProfile(app);
      const profile = `remote-member-profile-${theme.scheme}-${width}x${height}.png`;
      writeFileSync(join(out, profile), Buffer.from(await driver.screenshot(), "base64"));
      shots.push(`${profile}: ${await textOf("gateway-health-profile")}`);
    }
  });
}

const liveUrl = process.env.CLAWBOO_GATEWAY_URL;
if (liveUrl) {
  await withApp(THEMES[0], 4474, async (app) => {
    const { click, driver } = app;
    const memberHealth = healthIn(driver);
    await driver.call("POST", driver.s("/window/rect"), { width: 1440, height: 900 });
    await pointAt(app, liveUrl, process.env.CLAWBOO_GATEWAY_TOKEN ?? "");
    await click("team-item-Launch");
    await waitFor("the member's Gateway connected", async () =>
      /Gateway connected/.test(await memberHealth()), 60000);
    await pause(500);
    const name = "remote-members-connected-light-1440x900.png";
    writeFileSync(join(out, name), Buffer.from(await driver.screenshot(), "base64"));
    shots.push(`${name}: ${await memberHealth()}`);
  });
}
console.log(shots.join("\n"));
