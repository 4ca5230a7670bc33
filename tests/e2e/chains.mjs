// Team turns that go more than one level deep, in the real app: the leader hands work to a
// teammate, who hands part of it to a third; each result goes back to whoever asked, and
// "What this agent saw" shows it as an item addressed to that agent.

import { waitFor } from "./webdriver.mjs";

/** The fake model's rules for the chain (before the generic ones: the first match wins, and a
 *  result message still quotes the task it answers). */
export const CHAIN_RULES = [
  { contains: "teas-sourced", steps: [{ text: "Tasting evening ready: teas sourced, invitation drafted." }] },
  { contains: "invite-drafted", steps: [{ text: "teas-sourced: Assam and Darjeeling, the invitation attached." }] },
  { contains: "draft the tasting invitation", steps: [{ text: "invite-drafted: Friday at 7pm, in the shop." }] },
  {
    contains: "source the tasting teas",
    steps: [
      { tool: "handoff", input: { to: "writer", task: "draft the tasting invitation" } },
      { text: "I asked @writer for the invitation." },
    ],
  },
  {
    contains: "Plan the tasting evening",
    steps: [
      { tool: "handoff", input: { to: "local", task: "source the tasting teas" } },
      { text: "I handed the teas to @local." },
    ],
  },
];

/** In the team "Launch" (leader @lead, members @local and @writer), already open. */
export async function chainSteps(h, { driver }) {
  const { step, find, click, typeInto, afterFadeIn, saveScreenshot } = h;
  const pageText = () => driver.execute("return document.body.innerText");

  await step("a three-deep chain: @lead → @local → @writer, each result back to whoever asked", async () => {
    await click("team-item-Launch");
    await typeInto("chat-input", "Plan the tasting evening.");
    await click("chat-send");
    await waitFor("the leader's answer after the chain came back", async () =>
      (await pageText()).includes("Tasting evening ready"), 90000);
    const tasks = await driver.execute(
      `return [...document.querySelectorAll('[data-testid="handoff-card"]')].map(c => c.innerText)`,
    );
    const second = tasks.find((t) => t.includes("draft the tasting invitation"));
    if (!second || !/@local\s*→\s*@writer/.test(second)) throw new Error(`no hand-off from @local to @writer: ${tasks.join(" | ")}`);
    // The results went up, not into the room as if the user had asked @local.
    const batches = await driver.execute(
      `return [...document.querySelectorAll('[data-testid="batch-card"]')].map(c => c.innerText)`,
    );
    if (!batches.some((b) => b.includes("Results for @local"))) throw new Error(`no results batch for @local: ${batches.join(" | ")}`);
    await saveScreenshot("team-chain.png");
  });

  await step("what @local saw on its way back: its own task, and @writer's result as results", async () => {
    await driver.execute(
      `const cards = [...document.querySelectorAll('[data-testid="batch-card"]')].filter(c => c.innerText.includes('Results for @local'));
       cards[cards.length - 1].querySelector('[data-testid="see-context"]').click()`,
    );
    await waitFor("the context viewer", () => find("run-context-total"), 20000);
    const text = await driver.execute(`return document.querySelector('[data-testid="run-context"]').innerText`);
    if (!text.includes("invite-drafted")) throw new Error(`@writer's result is missing: ${text.slice(0, 800)}`);
    if (text.includes("The user addressed you directly")) throw new Error("the results were framed as the user's message");
    if (!text.includes("Results of the work you handed out")) throw new Error(`no results framing: ${text.slice(0, 800)}`);
    if (!text.includes("source the tasting teas")) throw new Error("@local was not reminded of its own task");
    await afterFadeIn();
    await saveScreenshot("team-chain-what-local-saw.png");
    await driver.execute(`document.dispatchEvent(new KeyboardEvent('keydown', {key: 'Escape', bubbles: true}))`);
  });
}
