// Many chats per agent: three chats made (the button, Ctrl+Shift+O and /new), switched between;
// ⌘K finds a word said in the first and jumps to it in its chat; a link in a reply asks before it
// opens (cancelled here); Export opens the save dialog (the native dialog cannot be driven under
// WebDriver: the engine test `history` covers what a chat's export holds). Then the chat list at
// 1440x900 and 900x600, light and dark (`chatsShots`).

import { Keys, waitFor } from "./webdriver.mjs";

const SHIFT = "\uE008";
const ENTER = "\uE007";

/** Presses Control+Shift+`key` (the driver's chord takes one modifier). */
async function controlShift(driver, key) {
  const down = (value) => ({ type: "keyDown", value });
  const up = (value) => ({ type: "keyUp", value });
  const actions = [down(Keys.Control), down(SHIFT), down(key), up(key), up(SHIFT), up(Keys.Control)];
  await driver.call("POST", driver.s("/actions"), { actions: [{ type: "key", id: "keyboard", actions }] });
  await driver.call("DELETE", driver.s("/actions")).catch(() => {});
}

export async function chatsSteps(h, { driver }) {
  const { step, find, click, typeInto } = h;
  const listed = () =>
    driver.execute(
      `return [...document.querySelectorAll('[data-testid^="chat-item-"]')].map((b) => b.innerText.trim())`,
    );
  const title = () => driver.execute(`return document.querySelector('[data-testid="chat-title"]')?.innerText ?? ""`);
  const send = async (text, answer) => {
    await typeInto("chat-input", text);
    await click("chat-send");
    await waitFor(`the answer to "${text}"`, () => driver.execute(
      `const rows = [...document.querySelectorAll('[data-testid="chat-message"]')];
       const last = rows[rows.length - 1];
       return last?.dataset.role === "assistant" && last.innerText.includes(${JSON.stringify(answer)});`,
    ), 30000);
  };

  await step("three chats: the button, Ctrl+Shift+O and /new each start one; switching shows each one's own", async () => {
    await click("agent-item-local");
    await click("tab-chat");
    await click("chat-new");
    await waitFor("the new chat", async () => (await title()) === "New chat");
    await send("Walrusfirst topic, please list the files", "All done");
    await controlShift(driver, "O");
    await waitFor("the second chat", async () => (await title()) === "New chat");
    await send("Send me the docs link", "Here it is");
    await typeInto("chat-input", "/new");
    await click("chat-send");
    await waitFor("the third chat", async () => (await title()) === "New chat");
    await send("Pelican third topic", "All done");
    const names = await listed();
    for (const want of ["Pelican third topic", "Send me the docs link", "Walrusfirst topic, please list the files"]) {
      if (!names.includes(want)) throw new Error(`the list lacks "${want}": ${names}`);
    }
    const firstId = await driver.execute(
      `return [...document.querySelectorAll('[data-testid^="chat-item-"]')].find((b) => b.innerText.includes("Walrusfirst"))?.dataset.testid`,
    );
    await click(firstId);
    await waitFor("the first chat", async () => (await title()).startsWith("Walrusfirst"));
    const texts = await driver.execute(`return document.querySelector('[data-testid="chat-timeline"]').innerText`);
    if (texts.includes("Pelican")) throw new Error("the first chat shows the third one's words");
  });

  await step("⌘K finds a word from the first chat and jumps to it there", async () => {
    const thirdId = await driver.execute(
      `return [...document.querySelectorAll('[data-testid^="chat-item-"]')].find((b) => b.innerText.includes("Pelican"))?.dataset.testid`,
    );
    await click(thirdId);
    await waitFor("the third chat", async () => (await title()).startsWith("Pelican"));
    await driver.chord(Keys.Control, "k");
    await typeInto("search-input", "Walrusfirst");
    await waitFor("a message found", () => driver.execute(
      `return [...document.querySelectorAll('[data-testid="search-item"]')].some((r) => r.innerText.includes("Walrusfirst"))`,
    ), 10000);
    await driver.keys(ENTER);
    await waitFor("the first chat open on the message", async () => (await title()).startsWith("Walrusfirst"), 10000);
  });

  await step("a link in a reply asks first and shows the whole URL; cancelled, nothing opens", async () => {
    const secondId = await driver.execute(
      `return [...document.querySelectorAll('[data-testid^="chat-item-"]')].find((b) => b.innerText.includes("docs link"))?.dataset.testid`,
    );
    await click(secondId);
    await click("md-link");
    // The dialog is in the page a moment before it is shown (WebDriver reads no text from it
    // until then): seen under load.
    let url = "";
    await waitFor("the confirm's URL shown", async () => (url = (await driver.text(await find("link-url"))).trim()));
    if (url !== "https://example.com/docs") throw new Error(`the confirm shows ${url}`);
    await click("link-cancel");
    await waitFor("the confirm closed", async () => !(await driver.execute(`return !!document.querySelector('[data-testid="link-url"]')`)));
  });

  await step("Export offers this chat's save", async () => {
    await click("chat-export");
    // The menu's first choice opens the system's save dialog, which WebDriver cannot drive.
    const items = await driver.execute(`return [...document.querySelectorAll('[role="menuitem"]')].map((i) => i.innerText)`);
    if (!items.some((i) => /markdown/i.test(i))) throw new Error(`the export menu offers ${items}`);
    await driver.keys(Keys.Escape);
  });
}
