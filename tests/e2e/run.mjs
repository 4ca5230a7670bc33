// End to end in the real app: the built Clawboo binary under Xvfb, driven through
// tauri-driver + WebKitWebDriver. Usage: node tests/e2e/run.mjs /abs/path/to/clawboo
// Runs inside scripts/with-test-keyring, so API keys land in a real (private) Secret Service.

import { spawn, execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync, existsSync, readdirSync, rmSync, mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { WebDriver, Keys, waitFor } from "./webdriver.mjs";
import { TEAM_RULES, harness } from "./harness.mjs";
import { onboardingSteps } from "./onboarding.mjs";
import { themeSteps } from "./theme.mjs";
import { routineFiredSteps, routineMadeSteps } from "./routines.mjs";
import { everydayShots, everydaySteps } from "./everyday.mjs";
import { chainSteps } from "./chains.mjs";
import { chatsSteps } from "./chats.mjs";
import { spendShots, spendSteps } from "./spend.mjs";
import { firstClickSteps } from "./first-click.mjs";

const application = resolve(process.argv[2] ?? "target/debug/clawboo");
if (!existsSync(application)) throw new Error(`no app binary at ${application}: build it first`);
const fakeModelServer = resolve(process.argv[3] ?? "target/debug/examples/fake_model_server");
if (!existsSync(fakeModelServer)) throw new Error(`no fake model server at ${fakeModelServer}: build it first`);

// Outside /tmp: Codex (driven in the agent-files step) will not set up its helpers under it.
mkdirSync(resolve(".cache"), { recursive: true });
const dataDir = mkdtempSync(join(resolve(".cache"), "e2e-data-"));
const artifacts = resolve(".cache/e2e");
mkdirSync(artifacts, { recursive: true });
const PORT = 4444;

const driverProcess = spawn("tauri-driver", ["--port", String(PORT), "--native-port", "4445"], {
  env: { ...process.env, CLAWBOO_DATA_DIR: dataDir },
  stdio: ["ignore", "inherit", "inherit"],
});
const driver = new WebDriver(`http://127.0.0.1:${PORT}`);

const modelProcess = spawn(fakeModelServer, ["tool", '{"path":"."}', "All done: I listed your files.", "list_files", "--rules", TEAM_RULES], {
  stdio: ["ignore", "pipe", "inherit"],
});
const modelUrl = new Promise((resolveUrl, reject) => {
  let seen = "";
  modelProcess.stdout.on("data", (chunk) => {
    seen += chunk;
    const match = /listening (http:\/\/127\.0\.0\.1:\d+)/.exec(seen);
    if (match) resolveUrl(match[1]);
  });
  modelProcess.on("exit", (code) => reject(new Error(`fake model server exited with ${code}`)));
});

const h = harness(driver, { artifacts, modelUrl });
const { byTestId, find, click, textOf, editorText, present, typeInto, afterFadeIn, saveScreenshot } = h;
const { filesContaining, choose, pointProviderAtFakeModel, createNativeAgent, createAgent, results, step } = h;

let agentDir;
const API_KEY = "sk-ant-e2e-4c1f9b7a2d3e5f60";

try {
  await waitFor("tauri-driver to listen", () => fetch(`http://127.0.0.1:${PORT}/status`).then((r) => r.ok), 20000);
  await driver.start(application);
  console.log("End to end: Clawboo under WebDriver");

  // First, what a new user sees: the first-run page, ending with a starter team that answers.
  await onboardingSteps(h, { driver, dataDir });

  await step("the app starts and offers to create an agent", async () => {
    await waitFor("the New agent button", () => find("new-agent-button"), 30000);
    // Boo Zero, made on first start, is pinned at the top of the sidebar.
    await waitFor("Boo Zero in the sidebar", () => find("boo-zero-link"));
  });

  await step("an invalid handle is refused with a clear message", async () => {
    await click("new-agent-button");
    await driver.type(await waitFor("name input", () => find("agent-name-input")), "Scout");
    await driver.type(await find("agent-handle-input"), "no spaces");
    await click("create-agent-submit");
    const message = await waitFor("an error message", () => textOf("error-message"));
    if (!/letters, digits/.test(message)) throw new Error(`unexpected message: ${message}`);
  });

  await step("an agent is created and its workspace appears on disk", async () => {
    const agentsRoot = join(dataDir, "agents");
    // Boo Zero's and the starter team's folders exist already: the new one is the folder added.
    const before = new Set(readdirSync(agentsRoot));
    const handle = await find("agent-handle-input");
    await driver.clear(handle);
    await driver.type(handle, "scout");
    // No CLI can run here (Codex has no sign-in): the form starts on Native, which needs a model.
    const runtime = await driver.execute(`return document.querySelector('[data-testid="agent-runtime-select"]').value`);
    if (runtime !== "native") throw new Error(`the new agent starts on ${runtime}, which cannot run here`);
    await driver.type(await find("agent-model-input"), "some-model");
    await click("create-agent-submit");
    await waitFor("the agent in the sidebar", () => find("agent-item-scout"));
    agentDir = await waitFor("the agent folder", () => {
      const dirs = readdirSync(agentsRoot).filter((d) => !d.startsWith(".") && !before.has(d));
      return dirs.length === 1 ? join(agentsRoot, dirs[0]) : null;
    });
    if (!existsSync(join(agentDir, "SOUL.md"))) throw new Error("SOUL.md missing");
  });

  await step("a second agent with the same handle is refused", async () => {
    await click("new-agent-button");
    await driver.type(await waitFor("name input", () => find("agent-name-input")), "Copy");
    await driver.type(await find("agent-handle-input"), "Scout");
    await driver.type(await find("agent-model-input"), "some-model");
    await click("create-agent-submit");
    const message = await waitFor("the duplicate message", () => textOf("error-message"));
    if (!/already taken/.test(message)) throw new Error(`unexpected message: ${message}`);
    await driver.execute(`document.dispatchEvent(new KeyboardEvent('keydown', {key: 'Escape', bubbles: true}))`);
  });

  await step("SOUL.md opens in the editor", async () => {
    await click("agent-item-scout");
    await click("tab-details");
    await click("subtab-files");
    await click("file-tab-SOUL.md");
    const text = await waitFor("SOUL.md content in the editor", editorText);
    if (!text.includes("# Scout")) throw new Error(`unexpected editor text: ${text.slice(0, 80)}`);
  });

  await step("typing marks the file unsaved; Ctrl-S writes it to disk", async () => {
    const content = await find("file-editor");
    const editable = await driver.execute(
      `const el = document.querySelector('[data-testid="file-editor"] .cm-content'); el.focus(); return !!el;`,
    );
    if (!editable || !content) throw new Error("no editable content");
    await driver.type(await driver.find(`${byTestId("file-editor")} .cm-content`), "Typed by the end-to-end test. ");
    await waitFor("the unsaved marker", () => present("dirty-marker"));
    await driver.chord(Keys.Control, "s");
    await waitFor("SOUL.md on disk to hold the typed text", () =>
      readFileSync(join(agentDir, "SOUL.md"), "utf8").includes("Typed by the end-to-end test."),
    );
    await waitFor("the unsaved marker to clear", async () => !(await present("dirty-marker")));
  });

  await step("an edit made on disk shows in the editor", async () => {
    writeFileSync(join(agentDir, "SOUL.md"), "# Scout\n\nRewritten by another editor.\n");
    await waitFor("the editor to show the disk version", async () =>
      (await editorText())?.includes("Rewritten by another editor."),
    );
    await saveScreenshot("agent-files.png");
  });

  await step("an API key is stored in the keychain and shown only as set", async () => {
    await click("settings-link");
    await waitFor("the Anthropic row", () => find("provider-anthropic"));
    if ((await textOf("key-status-anthropic")).trim() !== "Not set") throw new Error("key should start unset");
    await driver.type(await find("key-input-anthropic"), API_KEY);
    await click("save-key-anthropic");
    await waitFor("the key to show as set", async () => (await textOf("key-status-anthropic")).trim() === "Key set");
    const page = await driver.execute("return document.body.innerText + document.body.innerHTML");
    if (page.includes(API_KEY)) throw new Error("the page shows the key");
    const service = `Clawboo (${dataDir})`;
    const stored = execFileSync("secret-tool", ["lookup", "service", service, "username", "anthropic"]).toString();
    if (stored.trim() !== API_KEY) throw new Error("the keychain does not hold the key");
    const leaks = filesContaining(dataDir, API_KEY);
    if (leaks.length) throw new Error(`the key was written to ${leaks.join(", ")}`);
  });

  await step("a Native agent pointed at a local model answers in its chat, with its tool call in Activity", async () => {
    await pointProviderAtFakeModel("custom", "sk-local-test");

    await createNativeAgent("Local", "local");
    await click("agent-item-local");
    await click("tab-chat");
    await typeInto("chat-input", "What is in your folder?");
    await click("chat-send");
    await waitFor("the reply", async () => {
      const page = await driver.execute("return document.body.innerText");
      return page.includes("All done: I listed your files.");
    }, 30000);
    // The reply and the Activity card's rows arrive as separate events: wait for both.
    const toolRows = () => driver.execute(
      `return [...document.querySelectorAll('[data-testid^="activity-tool-"]')].map(e => e.innerText).join(" | ")`,
    );
    try {
      await waitFor("the tool call and its output in Activity", async () => {
        const tools = await toolRows();
        return tools.includes("list_files") && tools.includes("SOUL.md");
      }, 10000);
    } catch (err) {
      const page = await driver.execute("return document.body.innerText");
      throw new Error(
        `the Activity card does not show the tool call and its output: ${(await toolRows()).slice(0, 300)}\npage: ${page.slice(0, 800)}`,
      );
    }
    await saveScreenshot("native-chat.png");
  });

  await step("AGENTS.md edited in the app reaches a Codex agent; what it saw lists the file and its route", async () => {
    await pointProviderAtFakeModel("openai", "sk-openai-e2e-local");

    await createAgent("Coder", "coder", "codex");
    await click("agent-item-coder");
    await click("tab-details");
    await click("subtab-files");
    await click("file-tab-AGENTS.md");
    await waitFor("AGENTS.md in the editor", async () => (await editorText())?.includes("Operating instructions"));
    await waitFor("its route under the editor", async () =>
      (await textOf("file-route")).includes("read by Codex as its own AGENTS.md"),
    );
    await driver.execute(`document.querySelector('[data-testid="file-editor"] .cm-content').focus()`);
    await driver.type(await driver.find(`${byTestId("file-editor")} .cm-content`), "Always cite sources. AGENTS-E2E-5f1c ");
    await driver.chord(Keys.Control, "s");
    const agentsRoot = join(dataDir, "agents");
    const coderDir = await waitFor("AGENTS.md on disk to hold the edit", () => {
      const id = readdirSync(agentsRoot).find((name) => {
        const file = join(agentsRoot, name, "AGENTS.md");
        return existsSync(file) && readFileSync(file, "utf8").includes("AGENTS-E2E-5f1c");
      });
      return id ? join(agentsRoot, id) : null;
    });
    await saveScreenshot("agent-files-route.png");

    // USER.md over its budget (written by another editor): the meter warns, and a save asks first.
    const userMd = join(coderDir, "USER.md");
    const before = readFileSync(userMd, "utf8");
    writeFileSync(userMd, `# About the user\n\n${"Sam likes long, detailed answers. ".repeat(70)}\n`);
    await click("file-tab-USER.md");
    await waitFor("the over-budget warning", () => find("file-over-budget"));
    await driver.execute(`document.querySelector('[data-testid="file-editor"] .cm-content').focus()`);
    await driver.type(await driver.find(`${byTestId("file-editor")} .cm-content`), "x");
    await driver.chord(Keys.Control, "s");
    await waitFor("the confirm before saving over budget", () => find("save-over-budget-confirm"));
    await afterFadeIn();
    await saveScreenshot("agent-files-over-budget.png");
    await click("save-over-budget-cancel");
    if (readFileSync(userMd, "utf8").includes("x# About")) throw new Error("Keep editing saved the file");
    // Undo the typed letter, so the disk version below replaces an unchanged editor.
    await driver.execute(`document.querySelector('[data-testid="file-editor"] .cm-content').focus()`);
    await driver.chord(Keys.Control, "z");
    await waitFor("the editor to match the disk again", async () => !(await present("dirty-marker")));
    writeFileSync(userMd, before);
    await waitFor("the warning to clear", async () => !(await present("file-over-budget")));

    await click("tab-chat");
    await typeInto("chat-input", "What are your working rules?");
    await click("chat-send");
    await waitFor("Codex's reply", async () =>
      (await driver.execute("return document.body.innerText")).includes("I follow the AGENTS.md you gave me."),
    60000);
    // Codex read it as its own AGENTS.md: the copy Clawboo keeps in its private home.
    const codexCopy = join(coderDir, ".clawboo", "codex", "AGENTS.md");
    if (!existsSync(codexCopy) || !readFileSync(codexCopy, "utf8").includes("AGENTS-E2E-5f1c")) {
      throw new Error("Codex's home holds no copy of the edited AGENTS.md");
    }
    const link = await waitFor("the What @coder saw link", async () => {
      const links = await driver.findAll('[data-testid^="chat-run-context-"]');
      return links.length ? links[links.length - 1] : null;
    });
    await driver.click(link);
    await waitFor("the viewer", () => find("chat-run-context"));
    const row = await waitFor("AGENTS.md in the files list", () => find("file-delivery-AGENTS.md"));
    const status = await driver.execute(
      `return document.querySelector('[data-testid="file-delivery-AGENTS.md"]').getAttribute('data-status')`,
    );
    const rowText = (await driver.execute(
      `return document.querySelector('[data-testid="file-delivery-AGENTS.md"]').textContent`,
    )).toLowerCase();
    if (status !== "read_by_runtime") throw new Error(`AGENTS.md status is ${status}`);
    if (!rowText.includes("read by codex as its own agents.md")) throw new Error(`AGENTS.md row: ${rowText}`);
    if (!row) throw new Error("no AGENTS.md row");
    const bootstrap = await driver.execute(
      `return document.querySelector('[data-testid="file-delivery-BOOTSTRAP.md"]').getAttribute('data-status')`,
    );
    // Still Clawboo's starting text: not sent, and the viewer says so.
    if (bootstrap !== "unedited") throw new Error(`BOOTSTRAP.md status on a new session is ${bootstrap}`);
    await afterFadeIn();
    await saveScreenshot("chat-what-it-saw.png");
    await driver.execute(`document.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true }))`);
  });

  await step("a team of three Native agents: hand-off cards, one batch, the leader's answer", async () => {
    for (const [name, handle] of [["Lead", "lead"], ["Writer", "writer"]]) {
      await createNativeAgent(name, handle);
      await waitFor(`@${handle} in the sidebar`, () => find(`agent-item-${handle}`));
    }
    await click("new-team-button");
    await typeInto("team-name-input", "Launch");
    for (const handle of ["lead", "local", "writer"]) await click(`new-team-member-${handle}`);
    await click("new-team-leader-lead");
    await click("create-team-submit");
    await click("team-item-Launch");
    await typeInto("about-you-input", "I am Ada, I run a tea shop in Leeds.");
    await click("about-you-save");
    await typeInto("chat-input", "Plan the launch of the winter blend.");
    await click("chat-send");
    await waitFor(
      "two hand-off cards, one batch and the leader's answer",
      async () => {
        const cards = (await driver.findAll(byTestId("handoff-card"))).length;
        const batches = (await driver.findAll(byTestId("batch-card"))).length;
        const page = await driver.execute("return document.body.innerText");
        return cards === 2 && batches === 1 && page.includes("Launch plan ready");
      },
      60000,
    );
    await saveScreenshot("team-chat.png");
    await click("team-brief-button");
    await waitFor("the team folder field", () => find("team-folder-input"), 10000);
    await saveScreenshot("team-brief.png");
    await click("team-brief-close");
  });

  await step("what a teammate saw: its task text, and no About you", async () => {
    await driver.execute(
      `document.querySelector('[data-testid="handoff-card"] [data-testid="see-context"]').click()`,
    );
    const viewer = await waitFor("the context viewer", () => find("run-context-total"), 20000);
    if (!viewer) throw new Error("no viewer");
    const text = await driver.execute(`return document.querySelector('[data-testid="run-context"]').innerText`);
    if (!text.includes("research the market")) throw new Error(`the task text is missing: ${text.slice(0, 600)}`);
    if (text.includes("tea shop")) throw new Error("a teammate was given About you");
    if (await present("run-context-section-about_you")) throw new Error("an About-you section on a teammate's turn");
    await saveScreenshot("what-this-agent-saw.png");
    await driver.execute(`document.dispatchEvent(new KeyboardEvent('keydown', {key: 'Escape', bubbles: true}))`);
  });

  await chainSteps(h, { driver });

  await step("a fact an agent saves shows in the Memory view with its author", async () => {
    await click("agent-item-local");
    await click("tab-chat");
    await typeInto("chat-input", "Remember our opening hours, please.");
    await click("chat-send");
    await waitFor("the agent's answer", async () =>
      (await driver.execute("return document.body.innerText")).includes("Saved to memory."), 30000);
    // A save to global memory waits for the user's Allow in the Inbox.
    await click("nav-inbox");
    const allow = await waitFor("the memory save waiting in the inbox", async () => {
      const ids = await driver.execute(
        `return [...document.querySelectorAll('[data-testid^="allow-once-"]')]
           .filter(b => (b.closest('[data-testid^="request-"]')?.innerText ?? "").includes("The shop opens at 9am"))
           .map(b => b.dataset.testid)`,
      );
      return ids[0];
    }, 15000);
    await click(allow);
    await click("nav-memory");
    const row = await waitFor("the fact in the Memory view", async () => {
      const rows = await driver.execute(
        `return [...document.querySelectorAll('[data-testid^="memory-fact-m-"]')].map(e => [e.dataset.testid, e.innerText])`,
      );
      return rows.find(([, text]) => text.includes("The shop opens at 9am on weekdays."));
    }, 15000);
    const id = row[0].slice("memory-fact-".length);
    const author = await textOf(`memory-fact-author-${id}`);
    if (!author.includes("@local")) throw new Error(`the author shows as ${JSON.stringify(author)}, not @local`);
    await saveScreenshot("memory.png");

    // The user edits it: the history keeps both versions, with the change shown.
    await driver.click(await find(row[0]));
    await click("memory-edit");
    const input = await waitFor("the edit form", () => find("memory-edit-text"));
    await driver.clear(input);
    await driver.type(input, "The shop opens at 8am on weekdays.");
    await click("memory-edit-save");
    await waitFor("two versions in the history", () => present("memory-version-2"), 10000);
    const diff = await textOf("memory-diff-2");
    if (!diff.includes("8am") || !diff.includes("9am")) throw new Error(`the diff does not show the change: ${diff}`);
    await saveScreenshot("memory-history.png");
    await click("memory-detail-close");
  });

  await step("an agent's ask_user shows in the tray count and the inbox; the answer reaches its next request", async () => {
    // WebDriver cannot see the tray: read what it shows through the command that feeds it.
    const tray = () => driver.executeAsync(
      `const done = arguments[arguments.length - 1];
       window.__TAURI_INTERNALS__.invoke("tray_state").then(done, (e) => done({ error: String(e) }));`,
    );
    const before = await tray();
    if (before.open !== 0) throw new Error(`the tray counts ${JSON.stringify(before)} before any question`);
    await click("agent-item-local");
    await click("tab-chat");
    await typeInto("chat-input", "Which tea should we feature this winter?");
    await click("chat-send");
    await waitFor("the agent's reply after asking", async () =>
      (await driver.execute("return document.body.innerText")).includes("I asked you which tea to feature"), 30000);
    const asked = await waitFor("the tray to count the question", async () => {
      const state = await tray();
      return state.open === 1 ? state : null;
    }, 10000);
    if (!asked.tooltip.includes("1 request needs you")) throw new Error(`the tray's tooltip reads ${asked.tooltip}`);
    const id = asked.newest[0].requestId;
    await click("nav-inbox");
    await waitFor("the question in the inbox", () => present(`request-${id}`), 10000);
    const shown = await driver.execute(`return document.querySelector('[data-testid="request-${id}"]').innerText`);
    if (!shown.includes("Assam or Darjeeling")) throw new Error(`the inbox shows ${shown}`);
    await saveScreenshot("inbox.png");
    await typeInto(`answer-${id}`, "Darjeeling, please.");
    await click(`send-answer-${id}`);
    await waitFor("the tray count back to 0", async () => (await tray()).open === 0, 10000);
    await click("agent-item-local");
    await click("tab-chat");
    await waitFor("the agent's next reply, from the answer", async () =>
      (await driver.execute("return document.body.innerText")).includes("Featuring Darjeeling, as you chose."), 30000);
  });

  await step("a write waits for approval in the inbox; Allow always lets the next one through; Settings revokes it", async () => {
    const tray = () => driver.executeAsync(
      `const done = arguments[arguments.length - 1];
       window.__TAURI_INTERNALS__.invoke("tray_state").then(done, (e) => done({ error: String(e) }));`,
    );
    const page = () => driver.execute("return document.body.innerText");
    await click("agent-item-local");
    await click("tab-chat");
    await typeInto("chat-input", "Write the tasting menu, please.");
    await click("chat-send");
    const asked = await waitFor("the approval in the tray", async () => {
      const state = await tray();
      return state.approvals === 1 ? state : null;
    }, 30000);
    const id = asked.newest[0].requestId;
    await click("nav-inbox");
    await waitFor("the approval in the inbox", () => present(`allow-always-${id}`), 10000);
    const shown = await driver.execute(`return document.querySelector('[data-testid="request-${id}"]').innerText`);
    if (!shown.includes("write_file") || !shown.includes("menu.md")) throw new Error(`the approval shows ${shown}`);
    await saveScreenshot("inbox-approval.png");
    await click(`allow-always-${id}`);
    await waitFor("the tray count back to 0", async () => (await tray()).open === 0, 10000);
    await click("agent-item-local");
    await click("tab-chat");
    await waitFor("the write to go through", async () => (await page()).includes("Menu written."), 30000);

    // The same tool again: allowed by the grant, nothing to answer.
    await typeInto("chat-input", "Write the tasting menu once more.");
    await click("chat-send");
    await waitFor("the second write, unasked", async () => (await page()).split("Menu written.").length > 2, 30000);
    if ((await tray()).open !== 0) throw new Error("the second write asked again despite Allow always");

    await click("settings-link");
    const grant = await waitFor("the grant in Settings", async () =>
      driver.execute(`const g = document.querySelector('[data-testid^="grant-"]:not([data-testid="grant-list"])');
                      return g && g.innerText.includes("write_file") ? g.dataset.testid : null;`), 10000);
    await driver.execute(`document.querySelector('[data-testid="approval-settings"]').scrollIntoView()`);
    await saveScreenshot("settings-approvals.png");
    await click(`revoke-grant-${grant.slice("grant-".length)}`);
    await waitFor("the grant to be gone", async () => !(await present(grant)), 10000);

    await click("nav-inbox");
    await click("inbox-tab-audit");
    await waitFor("the audit of the approval", async () => {
      const audit = await driver.execute(
        `return document.querySelector('[data-testid="inbox-audit"]').textContent.toLowerCase()`,
      );
      return audit.includes("allowed always") && audit.includes("allowed by a grant") && audit.includes("revoked");
    }, 10000);
    await saveScreenshot("inbox-audit.png");
  });

  await step("the team's hand-offs are cards on the Board, done, each with the exact task text and its report", async () => {
    await click("nav-board");
    // Two from the first team message, two from the chain.
    await waitFor("four done cards", async () => {
      const done = await driver.execute(
        `return document.querySelectorAll('[data-testid="column-done"] .card-tile').length`,
      );
      return done === 4;
    }, 15000);
    await saveScreenshot("board.png");
    await driver.execute(`document.querySelector('[data-testid="column-done"] .card-tile__title').click()`);
    // innerText: the dialog may still be fading in, and WebDriver reads faded text as empty.
    const text = await waitFor("the task text", () =>
      driver.execute(`const t = document.querySelector('[data-testid="card-task-text"]'); return t && t.innerText`), 10000);
    if (!/research the market|write the brief|source the tasting teas|draft the tasting invitation/.test(text)) throw new Error(`unexpected task text: ${text.slice(0, 300)}`);
    await waitFor("the report comment", () => present("card-comment-report"), 10000);
    await saveScreenshot("board-card.png");
    await driver.execute(`document.dispatchEvent(new KeyboardEvent('keydown', {key: 'Escape', bubbles: true}))`);

    // The user makes a card and moves it; In progress is never offered (a run starts it).
    await click("board-new-card");
    await typeInto("card-title-input", "Order the winter blend labels");
    await click("card-submit");
    const tile = await waitFor("the new card in To do", async () => {
      const ids = await driver.execute(
        `return [...document.querySelectorAll('[data-testid="column-todo"] .card-tile')].map(e => e.dataset.testid)`,
      );
      return ids[0];
    }, 10000);
    const number = tile.slice("card-".length);
    await click(`card-menu-${number}`);
    if (await present(`card-move-${number}-in_progress`)) throw new Error("In progress offered as a move");
    await click(`card-move-${number}-backlog`);
    await waitFor("the card in Backlog", async () =>
      driver.execute(`return !!document.querySelector('[data-testid="column-backlog"] [data-testid="${tile}"]')`), 10000);

    // Dragged by a real pointer, held by its right edge: it lands in the column under the
    // pointer (To do), not under most of the card (Backlog, to the left), and no column moves.
    const inColumn = (status) =>
      driver.execute(`return !!document.querySelector('[data-testid="column-${status}"] [data-testid="${tile}"]')`);
    const columnsAt = () =>
      driver.execute(`return [...document.querySelectorAll('.board-column')].map(c => Math.round(c.getBoundingClientRect().left) + ":" + Math.round(c.getBoundingClientRect().width)).join(" ")`);
    const before = await columnsAt();
    const card = await driver.find(`[data-testid="${tile}"]`);
    const cardRect = await driver.rect(card);
    const todo = await driver.find('[data-testid="column-todo"]');
    const todoRect = await driver.rect(todo);
    await driver.drag(card, todo, { grab: { x: cardRect.width / 2 - 8, y: 0 }, hold: true });
    const during = await columnsAt();
    const picture = await driver.execute(
      `const p = document.querySelector('[data-testid="card-drag-picture"]'); if (!p) return null; const r = p.getBoundingClientRect(); return { left: r.left, right: r.right };`,
    );
    await saveScreenshot("board-drag.png");
    await driver.drop();
    if (during !== before) throw new Error(`the columns moved during the drag: ${before} -> ${during}`);
    // The pointer ends on To do's centre, 8 px inside the card's right edge.
    const pointerX = todoRect.x + todoRect.width / 2;
    if (!picture || Math.abs(picture.right - 8 - pointerX) > 24) {
      throw new Error(`the dragged card is not under the pointer (x ${pointerX}): ${JSON.stringify(picture)}`);
    }
    await waitFor("the card dropped in To do", () => inColumn("todo"), 10000);

    // By keyboard: Space picks the focused card up, an arrow moves it a column, Space drops it.
    await driver.execute(`document.querySelector('[data-testid="${tile}"]').focus()`);
    await driver.keys(Keys.Space, Keys.ArrowLeft, Keys.Space);
    await waitFor("the card moved back to Backlog by keyboard", () => inColumn("backlog"), 10000);
  });

  await step("a card run by a Native agent: activity live, the report, and the card in Done", async () => {
    await click("board-new-card");
    await typeInto("card-title-input", "Brew a tasting note");
    await typeInto("card-description-input", "Three words on the winter blend.");
    const assignee = await find("card-assignee-select");
    const localId = await driver.execute(
      `return [...document.querySelectorAll('[data-testid="card-assignee-select"] option')].find(o => o.textContent.includes('@local')).value`,
    );
    await driver.execute(
      `const s = document.querySelector('[data-testid="card-assignee-select"]'); const set = Object.getOwnPropertyDescriptor(HTMLSelectElement.prototype, 'value').set; set.call(s, ${JSON.stringify(localId)}); s.dispatchEvent(new Event('change', {bubbles: true}));`,
    );
    if (!assignee) throw new Error("no assignee select");
    await typeInto("card-check-input", "true");
    await click("card-submit");
    const tile = await waitFor("the card in To do", async () =>
      driver.execute(
        `const t = [...document.querySelectorAll('[data-testid="column-todo"] .card-tile')].find(e => e.innerText.includes('Brew a tasting note')); return t && t.dataset.testid`,
      ), 10000);
    await driver.execute(`document.querySelector('[data-testid="${tile}"] .card-tile__title').click()`);
    await click("card-run-start");
    await waitFor("the memory search in the run's activity", async () => {
      const text = await driver.execute(
        `const a = document.querySelector('[data-testid="card-panel"] [data-testid="activity-card"]'); return a ? a.innerText : ""`,
      );
      return text.includes("memory_search");
    }, 30000);
    await waitFor("the report", async () => {
      const text = await driver.execute(
        `const r = document.querySelector('[data-testid="card-comment-report"]'); return r ? r.innerText : ""`,
      );
      return text.includes("malty, bright");
    }, 30000);
    await waitFor("the card in Done", async () =>
      (await textOf("card-status")).includes("Done"), 15000);
    await saveScreenshot("board-run.png");
    await click("card-run-context-1");
    // Read once the viewer has loaded the tiers (innerText: the dialog may still be fading in).
    const seen = await waitFor("what the run saw", async () => {
      const text = await driver.execute(
        `const v = document.querySelector('[data-testid="task-run-context"]'); return v ? v.innerText : ""`,
      );
      return text.includes("steady for the task") && text;
    }, 10000);
    if (!seen.includes("changes most") || !seen.includes("Brew a tasting note")) throw new Error(`tiers missing: ${seen.slice(0, 400)}`);
    await afterFadeIn();
    await saveScreenshot("board-run-context.png");
    await driver.execute(`document.dispatchEvent(new KeyboardEvent('keydown', {key: 'Escape', bubbles: true}))`);
    await driver.execute(`document.dispatchEvent(new KeyboardEvent('keydown', {key: 'Escape', bubbles: true}))`);

    // Settings > Observability lists the run with what it was sent and how it ended.
    await click("settings-link");
    await waitFor("the run's trace", async () =>
      driver.execute(`return [...document.querySelectorAll('[data-testid^="trace-"]')].some(r => r.innerText.includes('Brew a tasting note'))`), 10000);
    await driver.execute(`document.querySelector('[aria-label="Observability"]').scrollIntoView({block: "start"})`);
    await new Promise((r) => setTimeout(r, 300));
    await saveScreenshot("observability.png");
  });

  // The routine is made straight after the card run (there the editor's "every" field clears;
  // after the spend steps it kept its 60 and became 601: see the report of budgets27). Its first
  // run comes a minute later: the spend and everyday steps run in that minute instead of a wait.
  await routineMadeSteps(h, { driver });
  await spendSteps(h, { driver });

  await everydaySteps(h, { driver, modelUrl });
  await routineFiredSteps(h, { driver });
  await chatsSteps(h, { driver });

  await step("Boo Zero's brief, your connectors and the local API are where a user looks for them", async () => {
    await click("boo-zero-link");
    await click("tab-details");
    await click("subtab-brief");
    await waitFor("the brief's note", async () => (await textOf("boo-zero-brief-note")).includes("sent to no agent"), 10000);
    await typeInto("boo-zero-brief-input", "Q1: open the second shop.");
    await click("boo-zero-brief-save");
    await saveScreenshot("boo-zero-brief.png");
    await click("subtab-rules");
    await waitFor("Boo Zero's rules and their meter", () => find("boo-zero-rules-meter"), 10000);
    await saveScreenshot("boo-zero-rules.png");
    await click("settings-link");
    await waitFor("the Connectors section", () => find("connectors-section"), 10000);
    await driver.execute(`document.querySelector('[data-testid="connectors-section"]').scrollIntoView({block: "start"})`);
    await new Promise((r) => setTimeout(r, 300));
    await saveScreenshot("settings-connectors.png");
    await click("connector-add");
    await waitFor("the connector form", () => find("connector-form"), 10000);
    await afterFadeIn();
    await saveScreenshot("connector-form.png");
    await click("connector-cancel");
    await waitFor("the form to close", async () => !(await present("connector-form")), 10000);
    await click("local-api-toggle");
    const url = await waitFor("the local API's address", async () => {
      const text = await textOf("local-api-url").catch(() => "");
      return /http:\/\/127\.0\.0\.1:\d+/.test(text) && text;
    }, 10000);
    const file = JSON.parse(readFileSync(join(dataDir, "api.json"), "utf8"));
    if (!url.includes(`:${file.port}`)) throw new Error(`Settings shows ${url}, api.json says port ${file.port}`);
    const refused = await fetch(`http://127.0.0.1:${file.port}/api/runs`);
    if (refused.status !== 401) throw new Error(`a request without the token got ${refused.status}`);
    await driver.execute(`document.querySelector('[data-testid="local-api-section"]').scrollIntoView({block: "start"})`);
    await new Promise((r) => setTimeout(r, 300));
    await saveScreenshot("settings-local-api.png");
    await click("local-api-toggle");
  });

  await step("deleting an agent asks first, then removes its row and folder", async () => {
    await click("agent-item-scout");
    await click("tab-details");
    await click("subtab-profile");
    await click("delete-agent-button");
    await click("confirm-delete-button");
    await waitFor("the agent to leave the sidebar", async () => !(await present("agent-item-scout")));
    await waitFor("the folder to be removed", () => !existsSync(agentDir));
  });

  await saveScreenshot("last.png");
  // The same data folder again, in light and in dark: one app per folder, so this one ends first.
  await driver.quit();
  await new Promise((r) => setTimeout(r, 3000));
  await themeSteps({ application, dataDir, artifacts, step });
  await everydayShots({ application, dataDir, out: process.env.CLAWBOO_SHOTS_DIR ?? artifacts, step });
  await spendShots({ application, dataDir, out: process.env.CLAWBOO_SPEND_SHOTS_DIR ?? artifacts, step });
  await firstClickSteps({ application, dataDir, step });
} catch {
  // The failing step has already reported itself.
} finally {
  await driver.quit();
  driverProcess.kill("SIGTERM");
  modelProcess.kill("SIGTERM");
  rmSync(dataDir, { recursive: true, force: true });
}

const passed = results.filter((r) => r.ok).length;
const failed = results.length - passed;
console.log(`e2e: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 && passed > 0 ? 0 : 1);
