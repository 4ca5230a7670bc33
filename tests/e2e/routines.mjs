// A routine in the real app: made in the Routines view, fired by its schedule, its run given the
// routine note, its report landing on its Board card and, as its owner is in a team, in that
// team's General room for the leader.

import { waitFor } from "./webdriver.mjs";

/** Makes the routine, due every minute from when it is saved; `routineFiredSteps` checks its run.
 *  The steps between the two fill that minute: each scripted model failure names its own turn
 *  (`failNext`'s `only`), so the routine's request is never the one that fails. */
export async function routineMadeSteps(h, { driver }) {
  const { step, find, click, present, typeInto, afterFadeIn, saveScreenshot, choose } = h;

  await step("a routine is made in the Routines view, due every minute, its next five fire times shown", async () => {
    await click("nav-routines");
    await click("routines-new");
    await typeInto("routine-name", "Morning tally");
    const owner = await waitFor("the local agent among the owners", () =>
      driver.execute(
        `return [...document.querySelectorAll('[data-testid="routine-owner"] option')].find(o => o.textContent.includes('@local'))?.value ?? null`,
      ));
    await choose("routine-owner", owner);
    await typeInto("routine-prompt", "Tally the morning orders.");
    await click("routine-mode-every");
    const every = await find("routine-every");
    await driver.clear(every);
    await driver.type(every, "1");
    await waitFor("the next 5 fire times", async () =>
      (await driver.findAll('[data-testid="routine-next-fires"] li')).length === 5, 10000);
    await afterFadeIn();
    await saveScreenshot("routine-editor.png");
    await click("routine-save");
    await waitFor("the editor to close", async () => !(await present("routine-editor")), 10000);
  });
}

export async function routineFiredSteps(h, { driver }) {
  const { step, click, textOf, afterFadeIn, saveScreenshot } = h;

  await step("a routine fires on its schedule: its run carries the routine note and its report lands on its card", async () => {
    await click("nav-routines");
    // Its details, where its runs are listed, open from its row.
    const row = await waitFor("the routine's row", () =>
      driver.execute(
        `const r = [...document.querySelectorAll('[data-testid^="routine-row-"]')].find(e => e.innerText.includes('Morning tally')); return r ? r.dataset.testid : null`,
      ), 10000);
    await driver.click(await driver.find(`[data-testid="${row}"] button`));
    // Every minute, counted from when it was saved: the first slot comes about 60 s after.
    const runId = await waitFor("the routine's first run, on its schedule", () =>
      driver.execute(
        `const a = document.querySelector('[data-testid^="routine-run-card-"]'); return a ? a.dataset.testid.slice("routine-run-card-".length) : null`,
      ), 100000);
    await waitFor("the run to succeed", async () =>
      (await textOf(`routine-run-${runId}`)).includes("Succeeded"), 30000);
    const run = await textOf(`routine-run-${runId}`);
    // A slot's run reads just its outcome; "· Run now", "· Catch-up" or "· Retry" mark the others.
    if (run.includes("·")) throw new Error(`the run was not started by its schedule: ${run}`);
    await saveScreenshot("routines.png");
    await click("routine-pause");
    await waitFor("the routine paused", async () =>
      driver.execute(`return [...document.querySelectorAll('[data-testid^="routine-state-"]')].some(e => e.innerText.includes('Paused'))`), 10000);
    await click(`routine-run-card-${runId}`);
    await waitFor("the routine's report on its card", async () => {
      const text = await driver.execute(
        `const r = document.querySelector('[data-testid="card-comment-report"]'); return r ? r.innerText : ""`,
      );
      return text.includes("Morning tally: 12 orders");
    }, 15000);
    await click("card-run-context-1");
    // Its sections open one by one, as a user would: the routine note and the task.
    const sectionText = (kind) =>
      driver.execute(
        `const d = document.querySelector('[data-testid="run-context-section-${kind}"] details');
         if (!d) return "";
         d.open = true;
         return d.innerText;`,
      );
    const note = await waitFor("the routine note in what the run saw", async () => {
      const text = await sectionText("routine");
      return text.includes("may be away") && text;
    }, 10000);
    if (!note.includes("Morning tally")) throw new Error(`the note does not name its routine: ${note}`);
    const task = await sectionText("task");
    if (!task.includes("Tally the morning orders")) throw new Error(`the prompt is missing: ${task}`);
    await afterFadeIn();
    await saveScreenshot("routine-run-context.png");
    await driver.execute(`document.dispatchEvent(new KeyboardEvent('keydown', {key: 'Escape', bubbles: true}))`);
    await driver.execute(`document.dispatchEvent(new KeyboardEvent('keydown', {key: 'Escape', bubbles: true}))`);
  });

  await step("@local's routine reports to its team: the result lands in General and wakes the leader", async () => {
    await click("team-item-Launch");
    const rows = () =>
      driver.execute(
        `return [...document.querySelectorAll('[data-message-id]')].map(r => ({ id: r.dataset.testid, text: r.innerText }))`,
      );
    const shown = await waitFor("the routine's result and the leader's answer after it", async () => {
      const all = await rows();
      // Drawn as the routine's own card: its name and who ran it above, the result below.
      const at = all.findIndex(
        (r) =>
          r.id === "room-message-routine" &&
          r.text.includes("Morning tally") &&
          r.text.includes("ran by @local") &&
          r.text.includes("Routine card #") &&
          r.text.includes("by @local ended"),
      );
      return at >= 0 && all.slice(at + 1).some((r) => r.id === "room-message-reply" && r.text.includes("@lead")) && all[at];
    }, 30000);
    if (!shown.text.includes("Morning tally: 12 orders")) throw new Error(`the report is missing: ${shown.text}`);
    await saveScreenshot("routine-in-team.png");
  });
}
