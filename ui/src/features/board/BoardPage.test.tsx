import { beforeEach, describe, expect, it, vi } from "vitest";
import { screen, waitFor, within } from "@testing-library/react";
import { resetBackend, seedAgent, seedTeam } from "../../test/fakeApi";
import { board, seedCard, seedCardRun, seedComment } from "../../test/fakeBoard";
import { sampleDeliveries } from "../../test/fakeFileRoutes";
import { fakeApi } from "../../test/fakeApi";
import { renderApp } from "../../test/helpers";
import { runSpend, spend } from "../../test/fakeSpend";
import type { Agent, Team } from "../../bindings";

vi.mock("../../api", async () => (await import("../../test/fakeApi")).fakeApiModule);

let ava: Agent;
let bo: Agent;
let research: Team;

beforeEach(() => {
  resetBackend();
  ava = seedAgent({ name: "Ava", handle: "ava" });
  bo = seedAgent({ name: "Bo", handle: "bo", runtime: "claude-code" });
  research = seedTeam({ name: "Research", memberIds: [ava.id, bo.id] });
});

async function openBoard() {
  const { user } = renderApp();
  await user.click(await screen.findByTestId("nav-board"));
  await screen.findByTestId("board-page");
  return { user };
}

const titlesIn = (status: string) =>
  [...screen.getByTestId(`column-${status}`).querySelectorAll(".card-tile__title")].map((b) => b.textContent);

describe("Board", () => {
  it("shows every column with its cards, their assignee, runtime and what they wait for", async () => {
    const prices = seedCard({ title: "Collect prices", assigneeId: ava.id, teamId: research.id, status: "done" });
    seedCard({ title: "Build the menu page", assigneeId: bo.id, dependsOn: [prices.id] });
    const copy = seedCard({ title: "Write the copy", assigneeId: ava.id });
    seedCard({ title: "Print flyers", dependsOn: [copy.id], priority: "urgent" });
    seedCard({ title: "Call the printer", status: "blocked", blockedReason: "Closed until Monday" });
    await openBoard();

    await waitFor(() => expect(titlesIn("todo")).toEqual(["Build the menu page", "Write the copy", "Print flyers"]));
    expect(screen.getByTestId("nav-board").getAttribute("aria-current")).toBe("page");
    for (const status of ["backlog", "todo", "in_progress", "in_review", "blocked", "done", "cancelled"]) {
      expect(screen.getByTestId(`column-${status}`)).toBeTruthy();
    }
    expect(titlesIn("done")).toEqual(["Collect prices"]);
    const menu = screen.getByTestId("card-2");
    expect(menu.textContent).toContain("@bo");
    expect(menu.textContent).toContain("Claude Code");
    // Its dependency is done: it waits for nothing.
    expect(menu.textContent).not.toContain("waits on");
    expect(screen.getByTestId("card-4").textContent).toContain("waits on #3");
    expect(screen.getByTestId("card-4").textContent).toContain("Urgent");
    expect(screen.getByTestId("card-5").textContent).toContain("Closed until Monday");
  });

  it("shows what a card's runs spent as the engine counted it: money only where priced", async () => {
    const priced = seedCard({ title: "Write the copy", assigneeId: ava.id, status: "in_review" });
    const subscribed = seedCard({ title: "Find suppliers", assigneeId: bo.id, status: "in_review" });
    const unpriced = seedCard({ title: "Tag the photos", assigneeId: ava.id, status: "in_review" });
    const uncounted = seedCard({ title: "Sort the mail", assigneeId: bo.id, status: "in_review" });
    // The CLI's own price in the traces is not money Clawboo counted: it never shows.
    const trace = (cardId: string, runId: string, costUsd: number | null) => ({
      runId, cardId, cardNumber: 1, cardTitle: "", agentHandle: "ava", runtime: "native", attempt: 1,
      kind: "run" as const, status: "succeeded" as const, reason: null, startedAt: 1, finishedAt: 2,
      steadyChars: 0, contextChars: 0, changingChars: 0, cited: 0,
      inputTokens: 10_000, outputTokens: 500, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd,
    });
    board.traces = [
      trace(priced.id, "r1", 0.02), trace(priced.id, "r2", 0.015), trace(subscribed.id, "r3", 0.5),
      trace(unpriced.id, "r4", null), trace(uncounted.id, "r5", 0.3),
    ];
    spend.runs = [
      // Two runs through Clawboo's keys, cache reads included: $0.25 + $0.12, 60% of the prompt cached.
      runSpend({ runId: "r1", cardId: priced.id, inputTokens: 2_000, outputTokens: 400, cacheReadTokens: 6_000, cacheWriteTokens: 2_000, costMicros: 250_000 }),
      runSpend({ runId: "r2", cardId: priced.id, inputTokens: 2_000, outputTokens: 100, cacheReadTokens: 6_000, cacheWriteTokens: 2_000, costMicros: 120_000 }),
      runSpend({ runId: "r3", cardId: subscribed.id, runtime: "claude-code", billing: "subscription", inputTokens: 12_000, outputTokens: 500 }),
      runSpend({ runId: "r4", cardId: unpriced.id, provider: "custom", model: "llama", inputTokens: 4_000, outputTokens: 500, unpricedTokens: 4_500 }),
    ];
    await openBoard();
    expect((await screen.findByTestId("card-spend-1")).textContent).toBe("$0.37");
    expect(screen.getByTestId("card-spend-1").getAttribute("title")).toBe("What its runs spent · cache reads 60%");
    expect(screen.getByTestId("card-spend-2").textContent).toBe("13k tokens · on your subscription");
    expect(screen.getByTestId("card-spend-3").textContent).toBe("4.5k tokens · no price known");
    expect(screen.queryByTestId("card-spend-4")).toBeNull();
  });

  it("filters by team, agent and status", async () => {
    seedCard({ title: "Collect prices", assigneeId: ava.id, teamId: research.id });
    seedCard({ title: "Build the menu page", assigneeId: bo.id });
    seedCard({ title: "Archive old menus", status: "backlog" });
    const { user } = await openBoard();
    await waitFor(() => expect(titlesIn("todo")).toHaveLength(2));

    await user.selectOptions(screen.getByTestId("board-filter-team"), research.id);
    await waitFor(() => expect(titlesIn("todo")).toEqual(["Collect prices"]));
    await user.selectOptions(screen.getByTestId("board-filter-team"), "");
    await user.selectOptions(screen.getByTestId("board-filter-agent"), bo.id);
    await waitFor(() => expect(titlesIn("todo")).toEqual(["Build the menu page"]));
    await user.selectOptions(screen.getByTestId("board-filter-agent"), "");
    await user.selectOptions(screen.getByTestId("board-filter-status"), "backlog");
    await waitFor(() => expect(screen.queryByTestId("column-todo")).toBeNull());
    expect(titlesIn("backlog")).toEqual(["Archive old menus"]);
  });

  it("creates a card for an agent of a team", async () => {
    const { user } = await openBoard();
    await user.click(screen.getByTestId("board-new-card"));
    await user.type(screen.getByTestId("card-title-input"), "Draft the newsletter");
    await user.type(screen.getByTestId("card-description-input"), "Two paragraphs, friendly.");
    await user.selectOptions(screen.getByTestId("card-team-select"), research.id);
    await user.selectOptions(screen.getByTestId("card-assignee-select"), bo.id);
    await user.click(screen.getByTestId("card-submit"));

    await waitFor(() => expect(titlesIn("todo")).toEqual(["Draft the newsletter"]));
    expect(board.cards[0]).toMatchObject({
      title: "Draft the newsletter",
      description: "Two paragraphs, friendly.",
      teamId: research.id,
      assigneeId: bo.id,
    });
  });

  it("moves a card only where the engine allows, asking why when it is blocked", async () => {
    seedCard({ title: "Write the copy", assigneeId: ava.id });
    const { user } = await openBoard();
    await user.click(await screen.findByTestId("card-menu-1"));
    // In progress comes only by a run starting: never offered as a move.
    expect(screen.queryByTestId("card-move-1-in_progress")).toBeNull();
    await user.click(screen.getByTestId("card-move-1-blocked"));

    const dialog = await screen.findByTestId("block-reason-dialog");
    expect((within(dialog).getByTestId("block-confirm") as HTMLButtonElement).disabled).toBe(true);
    await user.type(within(dialog).getByTestId("block-reason-input"), "Waiting for the price list");
    await user.click(within(dialog).getByTestId("block-confirm"));

    await waitFor(() => expect(titlesIn("blocked")).toEqual(["Write the copy"]));
    expect(board.cards[0].blockedReason).toBe("Waiting for the price list");
  });

  it("moves a card by keyboard, a column per arrow, where the engine allows", async () => {
    seedCard({ title: "Write the copy", assigneeId: ava.id });
    // jsdom has no layout: each column gets a place in a row, each card one inside its column.
    const order = ["backlog", "todo", "in_progress", "in_review", "blocked", "done", "cancelled"];
    const rects = vi.spyOn(Element.prototype, "getBoundingClientRect").mockImplementation(function (this: Element) {
      const column = this.closest("[data-testid^='column-']") as HTMLElement | null;
      const index = column ? order.indexOf(column.dataset.testid!.slice("column-".length)) : -1;
      const left = 10 + Math.max(index, 0) * 240;
      const isColumn = this === column;
      const width = isColumn ? 220 : 200;
      const top = isColumn ? 100 : 140;
      const height = isColumn ? 500 : 60;
      return { left: isColumn ? left : left + 10, top, width, height, right: left + width, bottom: top + height, x: left, y: top, toJSON: () => ({}) } as DOMRect;
    });
    try {
      const { user } = await openBoard();
      const tile = await screen.findByTestId("card-1");
      tile.focus();
      await user.keyboard("[Space]");
      await user.keyboard("[ArrowLeft]");
      await user.keyboard("[Space]");
      await waitFor(() => expect(titlesIn("backlog")).toEqual(["Write the copy"]));

      // From Backlog two columns right is In progress, which only a run reaches: refused, and said why.
      screen.getByTestId("card-1").focus();
      await user.keyboard("[Space]");
      await user.keyboard("[ArrowRight]");
      await user.keyboard("[ArrowRight]");
      await user.keyboard("[Space]");
      expect(await screen.findByText(/goes to In progress when a run starts on it/)).toBeTruthy();
      expect(titlesIn("backlog")).toEqual(["Write the copy"]);
    } finally {
      rects.mockRestore();
    }
  });

  it("opens a card to the exact task text, the report, the activity and the runs", async () => {
    const card = seedCard({
      title: "Find three suppliers",
      assigneeId: bo.id,
      teamId: research.id,
      status: "done",
      taskText: "Find three flour suppliers near Lyon; list price per 25 kg.",
      origin: { kind: "handoff", handoff_id: "h1", room_id: "r1", from_agent_id: ava.id },
    });
    seedComment(card.id, { kind: "agent", agent_id: bo.id, handle: "bo", run_id: "run-9" }, "Found **three**: A, B, C.", "report");
    seedCardRun({ cardId: card.id, kind: "handoff", status: "succeeded" });
    const { user } = await openBoard();
    await user.click(await screen.findByText("Find three suppliers"));

    const panel = await screen.findByTestId("card-panel");
    expect(within(panel).getByTestId("card-task-text").textContent).toBe(
      "Find three flour suppliers near Lyon; list price per 25 kg.",
    );
    expect(panel.textContent).toContain("Handed off by @ava");
    const report = await within(panel).findByTestId("card-comment-report");
    expect(report.textContent).toContain("@bo");
    // The report is Markdown.
    expect(report.innerHTML).toContain("<strong>three</strong>");
    expect(within(panel).getByTestId("card-runs").textContent).toContain("handoff");
    expect(within(panel).getByTestId("card-activity").textContent).toContain("created the card");
    // Done can only be reopened.
    expect(within(panel).getByTestId("card-panel-move-todo")).toBeTruthy();
    expect(within(panel).queryByTestId("card-panel-move-cancelled")).toBeNull();
  });

  it("shows a card's runs' cost in all and per run, with the cache-read share", async () => {
    const card = seedCard({ title: "Find three suppliers", assigneeId: ava.id, status: "in_review" });
    const first = seedCardRun({ cardId: card.id, kind: "run", status: "failed", reason: "checks failed" });
    const fix = seedCardRun({ cardId: card.id, kind: "fix", status: "succeeded" });
    const other = seedCard({ title: "Call the mill", assigneeId: bo.id, status: "in_review" });
    const mine = seedCardRun({ cardId: other.id, kind: "run", status: "succeeded" });
    spend.runs = [
      // 6,000 of 10,000 prompt tokens read from the cache: 60%; the fix round read none.
      runSpend({ runId: first.runId, cardId: card.id, inputTokens: 2_000, outputTokens: 400, cacheReadTokens: 6_000, cacheWriteTokens: 2_000, costMicros: 250_000 }),
      runSpend({ runId: fix.runId, cardId: card.id, inputTokens: 8_000, outputTokens: 600, costMicros: 1_120_000 }),
      runSpend({ runId: mine.runId, cardId: other.id, runtime: "claude-code", billing: "subscription", inputTokens: 12_000, outputTokens: 500, cacheReadTokens: 4_000 }),
    ];
    const { user } = await openBoard();
    await user.click(await screen.findByText("Find three suppliers"));
    const panel = await screen.findByTestId("card-panel");
    // 19,000 tokens in all; 6,000 of 18,000 prompt tokens from the cache.
    expect((await within(panel).findByTestId("card-spend")).textContent).toBe("All runs: $1.37 · 19k tokens · cache reads 33%");
    expect(within(panel).getByTestId("card-run-cost-1").textContent).toBe("$0.25 · cache reads 60%");
    expect(within(panel).getByTestId("card-run-cost-2").textContent).toBe("$1.12");
    await user.keyboard("{Escape}");

    await user.click(await screen.findByText("Call the mill"));
    const theirs = await screen.findByTestId("card-panel");
    expect((await within(theirs).findByTestId("card-spend")).textContent).toBe(
      "All runs: on your subscription · 17k tokens · cache reads 25%",
    );
    expect(within(theirs).getByTestId("card-run-cost-1").textContent).toBe("on your subscription · cache reads 25%");
  });

  it("runs a card for its assignee, with or without memory facts, and stops it", async () => {
    seedCard({ title: "Write the copy", assigneeId: ava.id });
    seedCard({ title: "Nobody's card" });
    const { user } = await openBoard();
    await user.click(await screen.findByText("Nobody's card"));
    await waitFor(() =>
      expect(screen.getByTestId("card-panel").textContent).toContain("Assign an agent to run this card."),
    );
    await user.keyboard("{Escape}");

    await user.click(await screen.findByText("Write the copy"));
    await user.click(await screen.findByTestId("card-run-memory"));
    await user.click(screen.getByTestId("card-run-start"));
    await waitFor(() => expect(fakeApi.boardRunStart).toHaveBeenCalledWith(board.cards[0].id, true));
    expect(await screen.findByTestId("card-run-stop")).toBeTruthy();
    expect(within(screen.getByTestId("card-runs")).getByTestId("card-run-status-1").textContent).toBe("running");
    await waitFor(() => expect(titlesIn("in_progress")).toEqual(["Write the copy"]));

    await user.click(screen.getByTestId("card-run-stop"));
    await waitFor(() => expect(titlesIn("todo")).toContain("Write the copy"));
    expect(await screen.findByTestId("card-run-start")).toBeTruthy();
  });

  it("shows what a run saw, tier by tier, with the facts it was given", async () => {
    const card = seedCard({ title: "Write the copy", assigneeId: ava.id, status: "in_review" });
    const run = seedCardRun({ cardId: card.id });
    const section = (kind: "task" | "memory" | "message", stability: "steady" | "volatile" | "turn", text: string) => ({
      kind, stability, title: kind, text, chars: text.length, budget: null, cutFrom: null,
    });
    board.contexts.set(run.runId, {
      runId: run.runId, cardId: card.id, attempt: 1, kind: "run", placement: "system_slot",
      systemText: "## Task #1: Write the copy", preamble: "## Memory\n- [m-7f3a] Prices are in euros.",
      message: "Write the copy",
      sections: [
        section("task", "steady", "## Task #1: Write the copy"),
        section("memory", "volatile", "## Memory\n- [m-7f3a] Prices are in euros."),
        section("message", "turn", "Write the copy"),
      ],
      files: sampleDeliveries({ "AGENTS.md": "read_by_runtime", "HEARTBEAT.md": "not_this_run" }),
      projectFile: null,
      cited: ["m-7f3a"], createdAt: 1,
    });
    const { user } = await openBoard();
    await user.click(await screen.findByText("Write the copy"));
    await user.click(await screen.findByTestId("card-run-context-1"));

    const viewer = await screen.findByTestId("task-run-context");
    expect(viewer.textContent).toContain("facts given: m-7f3a");
    expect(within(viewer).getByTestId("run-context-section-task").textContent).toContain("steady for the task");
    expect(within(viewer).getByTestId("run-context-section-memory").textContent).toContain("changes most");
    // Every agent file, with what this run did with it.
    const files = within(viewer).getByTestId("file-deliveries");
    expect(within(files).getAllByRole("listitem")).toHaveLength(7);
    const agents = within(files).getByTestId("file-delivery-AGENTS.md");
    expect(agents.getAttribute("data-status")).toBe("read_by_runtime");
    expect(agents.textContent).toContain("Read by the runtime");
    expect(agents.textContent).toContain("read by Codex as its own AGENTS.md (Clawboo keeps it in step, in Codex's private home)");
    expect(within(files).getByTestId("file-delivery-HEARTBEAT.md").textContent).toContain("Not this run");
  });

  it("shows what a card's runs changed in its repository, working in its team's folder", async () => {
    await fakeApi.setTeamProjectFolder(research.id, "/home/me/shop");
    const card = seedCard({ title: "Fix the footer", assigneeId: ava.id, teamId: research.id, status: "in_review" });
    seedCardRun({ cardId: card.id });
    board.diffs.set(card.id, {
      branch: "clawboo/card-1", base: "0123456789abcdef", filesChanged: ["footer.html"],
      patch: "--- a/footer.html\n+++ b/footer.html\n@@ -1 +1 @@\n-old\n+new", truncated: false, live: true,
    });
    const { user } = await openBoard();
    await user.click(await screen.findByText("Fix the footer"));
    const panel = await screen.findByTestId("card-panel");
    expect(panel.textContent).toContain("/home/me/shop (the team's)");
    const diff = await within(panel).findByTestId("card-diff");
    expect(diff.textContent).toContain("clawboo/card-1");
    expect(within(diff).getByTestId("card-diff-files").textContent).toBe("footer.html");
    expect(diff.querySelector(".diff-add")?.textContent).toBe("+new\n");
    expect(diff.querySelector(".diff-del")?.textContent).toBe("-old\n");
  });
});

describe("A card's failed run", () => {
  it("is an error card with its code, the fix to the agent's profile, Copy details and a Retry that runs it again", async () => {
    const card = seedCard({ title: "Write the copy", assigneeId: ava.id });
    seedCardRun({ cardId: card.id, status: "failed", reason: "Choose a model for Ava in its settings.", errorCode: "model_missing" });
    const { user } = await openBoard();
    await user.click(await screen.findByText("Write the copy"));
    const panel = await screen.findByTestId("card-panel");
    const error = await within(panel).findByTestId("card-run-error");
    expect(error.textContent).toContain("Attempt 1 failed.");
    expect(error.textContent).toContain("Choose a model for Ava in its settings.");
    expect(within(error).getByTestId("run-error-code").textContent).toBe("model_missing");
    expect(within(error).getByTestId("fix-button").textContent).toBe("Open its profile");
    expect(within(error).getByTestId("copy-error-details")).toBeTruthy();
    await user.click(within(error).getByTestId("run-retry"));
    await waitFor(() => expect(fakeApi.boardRunStart).toHaveBeenCalledWith(card.id, expect.any(Boolean)));
  });
});
