// What every end-to-end module shares: the fake model's rules, and helpers over one WebDriver
// session (find, click, type, screenshots, steps that report themselves).

import { readFileSync, writeFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { waitFor } from "./webdriver.mjs";
import { CHAIN_RULES } from "./chains.mjs";

// The model a Native agent talks to: asks for one list_files call, then answers.
// Rules play a team: a leader that hands off twice, two teammates, and the leader's answer to
// their batch of results.
export const TEAM_RULES = JSON.stringify([
  ...CHAIN_RULES,
  // Many chats (chats.mjs): a reply with a link, to open (and cancel) its confirm.
  { contains: "Send me the docs link", steps: [{ text: "Here it is: [the docs](https://example.com/docs)." }] },
  // The starter team made on first run: its leader answers.
  { contains: "Say hello to the team", steps: [{ text: "Hello! The starter team is ready." }] },
  {
    contains: "Write the tasting menu",
    steps: [
      { tool: "write_file", input: { path: "menu.md", content: "Assam\nDarjeeling\n" } },
      { text: "Menu written." },
    ],
  },
  {
    contains: "Darjeeling, please",
    steps: [{ text: "Featuring Darjeeling, as you chose." }],
  },
  {
    contains: "Which tea should we feature",
    steps: [
      { tool: "ask_user", input: { question: "Which tea should we feature this winter: Assam or Darjeeling?" } },
      { text: "I asked you which tea to feature; I will go on once you answer." },
    ],
  },
  {
    contains: "Remember our opening hours",
    steps: [
      { tool: "memory_save", input: { text: "The shop opens at 9am on weekdays.", tags: ["hours"], scope: "global" } },
      { text: "Saved to memory." },
    ],
  },
  {
    contains: "Brew a tasting note",
    steps: [
      { tool: "memory_search", input: { query: "winter blend tasting" } },
      { text: "Tasting note: malty, bright, a hint of orange peel." },
    ],
  },
  {
    contains: "Morning tally",
    steps: [{ text: "Morning tally: 12 orders. I assumed the usual suppliers, as nobody was here to ask." }],
  },
  { contains: "What are your working rules", steps: [{ text: "I follow the AGENTS.md you gave me." }] },
  // A reply that takes six seconds: long enough to see its run on Home and open it from there.
  { contains: "Take your time", steps: [{ slow: "Here is the long summary, piece by piece.", chunks: 12, delayMs: 500 }] },
  { contains: "found-it", steps: [{ text: "Launch plan ready: market found, brief written." }] },
  { contains: "research the market", steps: [{ text: "found-it: three segments" }] },
  { contains: "write the brief", steps: [{ text: "wrote-it: one page" }] },
  {
    contains: "Plan the launch",
    steps: [
      { tool: "handoff", input: { to: "local", task: "research the market" } },
      { tool: "handoff", input: { to: "writer", task: "write the brief" } },
      { text: "I handed the work out." },
    ],
  },
]);

/** Helpers bound to `driver`; screenshots go to `artifacts`; `modelUrl` resolves to the fake
 *  model server's address. */
export function harness(driver, { artifacts, modelUrl }) {
  const byTestId = (id) => `[data-testid="${id}"]`;
  const find = (id) => driver.find(byTestId(id));
  const click = async (id) => driver.click(await waitFor(id, () => find(id)));
  const textOf = async (id) => driver.text(await find(id));
  const editorText = () =>
    driver.execute(`return document.querySelector('[data-testid="file-editor"] .cm-content')?.innerText ?? null`);
  const present = async (id) => (await driver.findAll(byTestId(id))).length > 0;
  // Types once the field takes input: a field can be briefly disabled or re-rendered while a
  // save is in flight. WebDriver refuses the whole entry up front then, so a retry cannot double it.
  const typeInto = (id, text) =>
    waitFor(`${id} to take input`, async () => {
      await driver.type(await find(id), text);
      return true;
    });

  /** Lets a dialog finish its fade-in, so its screenshot shows it as a user sees it. */
  const afterFadeIn = () => new Promise((r) => setTimeout(r, 400));

  async function saveScreenshot(name) {
    const shot = await driver.screenshot().catch(() => null);
    if (shot) writeFileSync(join(artifacts, name), Buffer.from(shot, "base64"));
  }

  function filesContaining(dir, needle) {
    return readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => join(e.parentPath, e.name))
      .filter((path) => readFileSync(path).includes(needle));
  }

  const choose = (testId, value) =>
    driver.execute(
      `const s = document.querySelector('[data-testid="${testId}"]');
       Object.getOwnPropertyDescriptor(HTMLSelectElement.prototype, 'value').set.call(s, '${value}');
       s.dispatchEvent(new Event('change', { bubbles: true }));`,
    );

  /** Settings > API keys: `provider`'s base URL set to the fake model server, and a key saved. */
  async function pointProviderAtFakeModel(provider, key) {
    const base = `${await modelUrl}/v1`;
    await click("settings-link");
    const baseInput = await waitFor(`the ${provider} base URL input`, () => find(`base-url-input-${provider}`));
    await driver.clear(baseInput);
    await driver.type(baseInput, base);
    await click(`save-base-url-${provider}`);
    const field = (id) => `document.querySelector('[data-testid="${id}-${provider}"]')`;
    await waitFor(`the ${provider} base URL to be saved`, async () =>
      (await driver.execute(`return ${field("base-url-input")}.value`)) === base &&
      !(await driver.execute(`return ${field("key-input")}.disabled`)),
    );
    await typeInto(`key-input-${provider}`, key);
    await click(`save-key-${provider}`);
    await waitFor(`the ${provider} key to show as set`, async () =>
      (await textOf(`key-status-${provider}`)).trim() === "Key set",
    );
  }

  /** Creates a Native agent on the custom provider (the fake model server) with model some-model. */
  async function createNativeAgent(name, handle) {
    await createAgent(name, handle, "native");
  }

  /** Creates an agent on `runtime` with model some-model (Native: on the custom provider). */
  async function createAgent(name, handle, runtime) {
    await click("new-agent-button");
    await typeInto("agent-name-input", name);
    await typeInto("agent-handle-input", handle);
    await choose("agent-runtime-select", runtime);
    if (runtime === "native") await choose("agent-provider-select", "custom");
    const model = await find("agent-model-input");
    await driver.clear(model);
    await driver.type(model, "some-model");
    await click("create-agent-submit");
  }

  const results = [];
  async function step(name, body) {
    const started = Date.now();
    try {
      await body();
      results.push({ name, ok: true });
      console.log(`  ✓ ${name} (${Date.now() - started} ms)`);
    } catch (e) {
      results.push({ name, ok: false });
      console.log(`  ✗ ${name}\n      ${e.message}`);
      await saveScreenshot(`failed-${results.length}.png`);
      throw e;
    }
  }

  return { byTestId, find, click, textOf, editorText, present, typeInto, afterFadeIn, saveScreenshot, filesContaining, choose, pointProviderAtFakeModel, createNativeAgent, createAgent, results, step };
}
