// The first run in the real app, on an empty data folder: the runtimes looked for one by one,
// how to get one when nothing can run an agent, the shortcuts sheet, an error's Copy details
// (pasted back to prove the clipboard holds it), and the starter team made on the fake model
// server's key, its leader (Boo Zero) answering in the team chat.

import { waitFor } from "./webdriver.mjs";

const ESCAPE = "\uE00C";
const CONTROL = "\uE009";

/** Presses keys through the Actions API, as a user's keyboard would. */
async function press(driver, keys) {
  const down = keys.map((value) => ({ type: "keyDown", value }));
  const up = [...keys].reverse().map((value) => ({ type: "keyUp", value }));
  await driver.call("POST", driver.s("/actions"), {
    actions: [{ type: "key", id: "keyboard", actions: [...down, ...up] }],
  });
  await driver.call("DELETE", driver.s("/actions")).catch(() => {});
}

export async function onboardingSteps(h, { driver }) {
  const { step, find, click, textOf, present, typeInto, afterFadeIn, saveScreenshot, pointProviderAtFakeModel } = h;
  const pageText = () => driver.execute("return document.body.innerText");

  await step("on an empty data folder the first-run page looks for each runtime and says how to get one", async () => {
    await waitFor("the first-run page", () => find("onboarding"), 30000);
    await waitFor("every runtime looked for", async () => (await textOf("onboarding-progress")).startsWith("Looked for"), 30000);
    // Codex is on this PATH (the pinned CLI) but has no sign-in and no key; the others are not.
    const codex = await textOf("onboarding-runtime-codex");
    if (!/found/.test(codex)) throw new Error(`Codex row: ${codex}`);
    const claude = await textOf("onboarding-runtime-claude-code");
    if (!claude.includes("npm install -g @anthropic-ai/claude-code")) throw new Error(`Claude Code row: ${claude}`);
    await waitFor("how to get a runtime", () => find("onboarding-nothing"));
    // Each way in is said once: the runtimes with their commands (each with Copy), one key button.
    const page = await textOf("onboarding");
    for (const needed of ["Add an API key", "codex login", "pipx install", "Copy"]) {
      if (!page.includes(needed)) throw new Error(`"${needed}" missing from: ${page}`);
    }
    const keyButtons = await driver.execute(
      `return [...document.querySelectorAll('[data-testid="onboarding"] button')].filter(b => /key/i.test(b.innerText)).length`,
    );
    if (keyButtons !== 1) throw new Error(`${keyButtons} buttons to add a key`);
    await waitFor("the how-to in view", () =>
      driver.execute(`const e = document.querySelector('[data-testid="onboarding-nothing"]'); e?.scrollIntoView({ block: "center" }); return !!e`),
    );
    await saveScreenshot("onboarding-nothing-available.png");
  });

  await step("? opens the keyboard shortcuts sheet, Esc closes it; the sidebar's button opens it too", async () => {
    await driver.execute("document.activeElement?.blur()");
    await press(driver, ["?"]);
    await waitFor("the shortcuts sheet", () => find("shortcuts-sheet"));
    // WebDriver reads only visible text: a sheet still fading in reads empty, so read until shown.
    const listed = ["New agent", "New team", "Settings", "Inbox", "Save the file", "Send"];
    let sheet = "";
    await waitFor("every shortcut listed in the sheet", async () => {
      sheet = await textOf("shortcuts-sheet");
      return listed.every((label) => sheet.includes(label));
    }).catch(() => {
      throw new Error(`not all of ${listed.join(", ")} in the sheet: ${sheet}`);
    });
    await afterFadeIn();
    await saveScreenshot("shortcuts-sheet.png");
    await press(driver, [ESCAPE]);
    await waitFor("the sheet to close", async () => !(await present("shortcuts-sheet")));
    await click("shortcuts-button");
    await waitFor("the sheet again", () => find("shortcuts-sheet"));
    await press(driver, [ESCAPE]);
    await waitFor("the sheet to close again", async () => !(await present("shortcuts-sheet")));
  });

  await step("with a key for the fake model, the starter team is proposed; a missing model is refused with a code", async () => {
    await click("onboarding-add-key");
    // Settings opened from setup says the way back to it.
    await waitFor("the way back to setup", () => find("back-to-setup"));
    await pointProviderAtFakeModel("custom", "sk-local-test");
    // The runtimes list above the button loads late and moves it down: click once it has.
    await waitFor("Settings to finish loading", async () =>
      !(await driver.execute("return document.querySelector('main').innerText.includes('Loading…')")), 30000);
    await click("setup-starter-team");
    await waitFor("the proposal", () => find("onboarding-proposal"), 30000);
    for (const role of ["leader", "researcher", "builder"]) {
      const member = await textOf(`onboarding-member-${role}`);
      if (!member.includes("Native · Custom")) throw new Error(`${role}: ${member}`);
    }
    if (!(await textOf("onboarding-member-leader")).includes("Boo Zero")) throw new Error("Boo Zero does not lead");
    await driver.execute(`document.querySelector('[data-testid="onboarding-proposal"]').scrollIntoView({ block: "center" })`);
    await saveScreenshot("onboarding-with-runtimes.png");
    // No model named for the custom endpoint: the engine refuses, with its code.
    await click("onboarding-create");
    await waitFor("the refusal's code", async () => (await textOf("error-code")) === "invalid_input");
  });

  await step("an error's Copy details puts code, message, version, OS and time on the clipboard", async () => {
    await click("copy-error-details");
    await waitFor("Copied", async () => (await textOf("copy-error-status")) === "Copied");
    await saveScreenshot("error-copy-details.png");
    // Paste it back into a field with the keyboard: what the clipboard really holds.
    const about = await find("onboarding-about-you");
    await driver.click(about);
    await press(driver, [CONTROL, "v"]);
    const pasted = await waitFor("the pasted details", () =>
      driver.execute(`return document.querySelector('[data-testid="onboarding-about-you"]').value || null`),
    );
    for (const line of ["Code: invalid_input", "Message: Name the model", "App version: ", "OS: ", "Time: 20"]) {
      if (!pasted.includes(line)) throw new Error(`"${line}" not in the copied details: ${pasted}`);
    }
    if (/App version: unknown/.test(pasted)) throw new Error(`no version in: ${pasted}`);
    await driver.clear(about);
  });

  await step("the starter team is made in one step and its leader answers in the team chat", async () => {
    await typeInto("onboarding-model", "some-model");
    await typeInto("onboarding-about-you", "I am Ada, I run a tea shop in Leeds.");
    await click("onboarding-create");
    await waitFor("the team chat, ready to type", () => find("chat-input"), 20000);
    await waitFor("the team in the sidebar", () => find("team-item-Starter team"));
    for (const handle of ["researcher", "builder"]) await waitFor(`@${handle}`, () => find(`agent-item-${handle}`));
    await typeInto("chat-input", "Say hello to the team.");
    await click("chat-send");
    await waitFor("the leader's answer", async () => (await pageText()).includes("The starter team is ready."), 30000);
    await saveScreenshot("onboarding-team-chat.png");
    // Made and finished: the app opens normally from now on.
    if (await present("onboarding")) throw new Error("the first-run page is still shown");
  });
}
