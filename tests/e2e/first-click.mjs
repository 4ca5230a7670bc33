// A click in the app's first moments is kept. The page shows while the engine still opens (its
// first reads wait for it), so a user can click before the place kept from last time is known:
// that click must win over the place, and be the place the next start opens on. Launched on the
// e2e's data folder with Settings as the last place; Home, then Spend, is clicked the moment the
// sidebar is drawn. Usage alone (the app under Xvfb, e.g. to try it against another build):
//   node tests/e2e/first-click.mjs APP DATA_DIR

import { spawn, execSync } from "node:child_process";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { WebDriver, waitFor } from "./webdriver.mjs";

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const testId = (id) => `document.querySelector('[data-testid="${id}"]')`;

/** One launch of the app on `dataDir` under WebDriver; `body(driver)` runs while it is up. */
async function withApp({ application, dataDir, port }, body) {
  const driverProcess = spawn("tauri-driver", ["--port", String(port), "--native-port", String(port + 1)], {
    env: { ...process.env, CLAWBOO_DATA_DIR: dataDir },
    stdio: ["ignore", "ignore", "inherit"],
  });
  const driver = new WebDriver(`http://127.0.0.1:${port}`);
  try {
    await waitFor("tauri-driver to listen", () => fetch(`http://127.0.0.1:${port}/status`).then((r) => r.ok), 20000);
    await driver.start(application);
    return await body(driver);
  } finally {
    await driver.quit().catch(() => {});
    driverProcess.kill("SIGTERM");
    await new Promise((r) => driverProcess.once("exit", r));
    // One app per data folder: given a few seconds to exit, then ended by its id.
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
}

/** Which page the window shows: Home, Spend or Settings. */
const pageShown = (driver) =>
  driver.execute(
    `return ${testId("home")} ? "home" : ${testId("spend-page")} ? "spend" : document.querySelector(".settings-page") ? "settings" : "other"`,
  );

/** Clicks `nav` the moment it is drawn (in the page, not a WebDriver round trip later); resolves
 *  with whether the sidebar had its agents by then (the last place known or not). */
const clickAtOnce = (driver, nav) =>
  driver.executeAsync(`
    const done = arguments[arguments.length - 1];
    const click = () => {
      const dataIn = !!document.querySelector('[data-testid="boo-zero-link"], [data-testid^="agent-item-"]');
      ${testId(nav)}.click();
      done(dataIn);
    };
    if (${testId(nav)}) return click();
    new MutationObserver((_, seen) => {
      if (${testId(nav)}) { seen.disconnect(); click(); }
    }).observe(document.documentElement, { childList: true, subtree: true });
  `);

/** Waits for the sidebar's data (the last place is known then), and a moment more. */
async function settled(driver) {
  await waitFor("the sidebar's agents", () =>
    driver.execute(`return !!document.querySelector('[data-testid="boo-zero-link"], [data-testid^="agent-item-"]')`), 30000);
  await sleep(1500);
}

export async function firstClickSteps({ application, dataDir, step, port = 4464 }) {
  const app = { application, dataDir, port };
  // Settings is the place kept from last time.
  const leaveAtSettings = async (driver) => {
    await driver.execute(`document.querySelector('[data-testid="settings-link"]').click()`);
    await waitFor("Settings", async () => (await pageShown(driver)) === "settings", 10000);
    await sleep(1000);
  };
  await withApp(app, async (driver) => {
    await settled(driver);
    await leaveAtSettings(driver);
  });
  for (const [nav, page] of [["nav-home", "home"], ["nav-spend", "spend"]]) {
    await step(`a click on ${page} in the app's first moments wins over the last place (Settings)`, async () => {
      const early = await withApp(app, async (driver) => {
        const dataIn = await clickAtOnce(driver, nav);
        await settled(driver);
        const shown = await pageShown(driver);
        if (shown !== page) throw new Error(`clicked ${nav} ${dataIn ? "after" : "before"} the sidebar's data, the window shows ${shown}`);
        return !dataIn;
      });
      // The next start opens where the user went.
      await withApp(app, async (driver) => {
        await settled(driver);
        const shown = await pageShown(driver);
        if (shown !== page) throw new Error(`the next start opened ${shown}, not ${page}`);
        await leaveAtSettings(driver);
      });
      if (!early) console.log(`      (the click came after the sidebar's data: the race was not run this time)`);
    });
  }
}

// Alone: node tests/e2e/first-click.mjs APP DATA_DIR (a data folder the app has opened before).
if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  let failed = 0;
  const step = async (name, body) => {
    try {
      await body();
      console.log(`  ✓ ${name}`);
    } catch (e) {
      failed++;
      console.log(`  ✗ ${name}\n      ${e.message}`);
    }
  };
  await firstClickSteps({ application: resolve(process.argv[2]), dataDir: resolve(process.argv[3]), step });
  process.exit(failed ? 1 : 0);
}
