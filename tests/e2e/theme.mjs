// Light and dark: WebKitGTK takes the page's prefers-color-scheme from the GTK theme, so the app
// is opened again on the same data folder under GTK_THEME=Adwaita (light) and Adwaita:dark, and
// each time the page must report that scheme and its background colour must follow; screenshots
// of the team chat and Settings in both.

import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { WebDriver, waitFor } from "./webdriver.mjs";

const THEMES = [
  { gtk: "Adwaita", scheme: "light" },
  { gtk: "Adwaita:dark", scheme: "dark" },
];

/** Background of the page in each scheme (ui/src/styles/theme.css). */
const BACKGROUND = { light: "rgb(246, 246, 248)", dark: "rgb(17, 17, 20)" };

export async function themeSteps({ application, dataDir, artifacts, step, port = 4454 }) {
  for (const theme of THEMES) {
    await step(`GTK_THEME=${theme.gtk}: the app is ${theme.scheme}, in the team chat and Settings`, async () => {
      const driverProcess = spawn("tauri-driver", ["--port", String(port), "--native-port", String(port + 1)], {
        env: { ...process.env, CLAWBOO_DATA_DIR: dataDir, GTK_THEME: theme.gtk },
        stdio: ["ignore", "ignore", "inherit"],
      });
      const driver = new WebDriver(`http://127.0.0.1:${port}`);
      const shot = async (name) => writeFileSync(join(artifacts, name), Buffer.from(await driver.screenshot(), "base64"));
      try {
        await waitFor("tauri-driver to listen", () => fetch(`http://127.0.0.1:${port}/status`).then((r) => r.ok), 20000);
        await driver.start(application);
        const teamItem = await waitFor("the starter team", () => driver.find('[data-testid="team-item-Starter team"]'), 30000);
        const scheme = await driver.execute(
          "return matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light'",
        );
        if (scheme !== theme.scheme) throw new Error(`the page's scheme is ${scheme}`);
        const background = await driver.execute("return getComputedStyle(document.body).backgroundColor");
        if (background !== BACKGROUND[theme.scheme]) throw new Error(`the background is ${background}`);
        await driver.click(teamItem);
        await waitFor("the team chat", () => driver.find('[data-testid="chat-input"]'));
        await new Promise((r) => setTimeout(r, 400));
        await shot(`theme-${theme.scheme}-team-chat.png`);
        await driver.click(await driver.find('[data-testid="settings-link"]'));
        await waitFor("Settings", () => driver.find('[data-testid="settings-api-keys"]'));
        // Its runtimes and keys load after it opens and push the sections below them down: a
        // click before that lands wherever the button was (in CI it once hit the runtimes list).
        await waitFor("Settings to finish loading", async () =>
          !(await driver.execute("return document.querySelector('main').innerText.includes('Loading…')")), 30000);
        await shot(`theme-${theme.scheme}-settings.png`);
        await driver.click(await driver.find('[data-testid="setup-starter-team"]'));
        await waitFor("the first-run page", () => driver.find('[data-testid="onboarding-existing"], [data-testid="onboarding-proposal"]'), 30000);
        await shot(`theme-${theme.scheme}-onboarding.png`);
      } finally {
        await driver.quit().catch(() => {});
        driverProcess.kill("SIGTERM");
        await new Promise((r) => driverProcess.once("exit", r));
      }
    });
  }
}
