import { beforeEach, describe, expect, it, vi } from "vitest";
import { cleanup, screen, waitFor, within } from "@testing-library/react";
import { backend, fakeApi, finishRun, resetBackend, seedAgent, seedMessage, seedRun } from "../../test/fakeApi";
import { emitMessageAdded, emitRoomMessage, seedRoomMessage, seedTeam } from "../../test/fakeApi";
import { backendDoes, openChat, renderApp } from "../../test/helpers";

/** The chat a message goes to: the one shown (its id), or null before the list says. */
const anyChat = { asymmetricMatch: (v: unknown) => v === null || (typeof v === "string" && v.startsWith("chat-")) };

vi.mock("../../api", async () => (await import("../../test/fakeApi")).fakeApiModule);

let agentId: string;
let otherId: string;

beforeEach(() => {
  resetBackend();
  localStorage.clear();
  agentId = seedAgent({ name: "Researcher", handle: "researcher", tint: "#14b8a6" }).id;
  otherId = seedAgent({ name: "Writer", handle: "writer", tint: "#f59e0b" }).id;
});

const input = () => screen.getByTestId("chat-input") as HTMLTextAreaElement;
const bubbles = () =>
  screen.queryAllByTestId("chat-message").map((m) => [m.getAttribute("data-role"), m.querySelector(".chat-bubble, textarea")?.textContent]);
const rowOf = (text: string) => screen.getAllByTestId("chat-message").find((m) => m.textContent?.includes(text))!;
/** The actions sit beside the message, in its entry. */
const entryOf = (text: string) => rowOf(text).parentElement!;
const toolbarOf = (text: string) => within(entryOf(text)).getByRole("toolbar");

/** A finished exchange in the researcher's chat. */
function seedExchange(question: string, answer: string) {
  seedMessage(agentId, "user", question);
  const run = seedRun(agentId, "succeeded");
  seedMessage(agentId, "assistant", answer, run.id);
}

describe("Message actions", () => {
  it("are a toolbar the keyboard walks: one tab stop, arrows, Home and End; Enter copies", async () => {
    seedExchange("Where do penguins live?", "Mostly **Antarctica**.");
    const { user } = renderApp();
    await openChat(user, "researcher");

    const toolbar = toolbarOf("Antarctica");
    expect(toolbar.getAttribute("aria-label")).toBe("Actions for Researcher's reply");
    const buttons = within(toolbar).getAllByRole("button");
    expect(buttons.map((b) => b.textContent)).toEqual(["Copy", "Copy as Markdown", "Retry"]);
    // One tab stop: only the first button is in the tab order.
    expect(buttons.map((b) => b.tabIndex)).toEqual([0, -1, -1]);

    buttons[0].focus();
    await user.keyboard("{ArrowRight}");
    expect(document.activeElement).toBe(buttons[1]);
    await user.keyboard("{Enter}");
    await waitFor(async () => expect(await navigator.clipboard.readText()).toBe("Mostly **Antarctica**."));
    expect(within(entryOf("Antarctica")).getByRole("status").textContent).toBe("Markdown copied");

    await user.keyboard("{Home}");
    expect(document.activeElement).toBe(buttons[0]);
    await user.keyboard("{Enter}");
    // Plain text: the reply as read, without its Markdown.
    await waitFor(async () => expect(await navigator.clipboard.readText()).toBe("Mostly Antarctica."));
    await user.keyboard("{ArrowLeft}");
    expect(document.activeElement).toBe(buttons[2]);
    await user.keyboard("{End}");
    expect(document.activeElement).toBe(buttons[2]);

    // Your own earlier message offers Copy only; the last one offers Edit and resend.
    const mine = within(toolbarOf("penguins")).getAllByRole("button").map((b) => b.textContent);
    expect(mine).toEqual(["Copy", "Copy as Markdown", "Edit and resend"]);
  });

  it("retries the last reply: the same message in a new run, the old reply folded away", async () => {
    seedExchange("First question", "First answer");
    seedExchange("Where do penguins live?", "In the Arctic.");
    const { user } = renderApp();
    await openChat(user, "researcher");
    // Only the last reply offers Retry.
    expect(within(toolbarOf("First answer")).queryByText("Retry")).toBeNull();

    const asked = backend.chats.get(agentId)!.messages[2];
    within(toolbarOf("In the Arctic.")).getByText("Retry").focus();
    await user.keyboard("{Enter}");
    expect(fakeApi.retryChatMessage).toHaveBeenCalledWith(asked.id);
    await waitFor(() =>
      expect(bubbles()).toEqual([
        ["user", "First question"],
        ["assistant", "First answer"],
        ["user", "Where do penguins live?"],
      ]),
    );
    // No actions that replace while the new run goes.
    expect(within(toolbarOf("penguins")).queryByText("Edit and resend")).toBeNull();
    await backendDoes(() => finishRun(agentId, "succeeded", "In Antarctica."));
    const fold = screen.getByTestId("chat-superseded-toggle");
    expect(fold.textContent).toBe("Show earlier reply");
    await user.click(fold);
    expect(screen.getAllByTestId("chat-superseded-message").map((m) => m.textContent)).toEqual([
      "Where do penguins live?",
      "In the Arctic.",
    ]);
  });

  it("edits and resends your last message in place: Escape cancels, Enter sends", async () => {
    seedExchange("How cold is it there?", "Very.");
    const { user } = renderApp();
    await openChat(user, "researcher");
    const asked = backend.chats.get(agentId)!.messages[0];

    within(toolbarOf("How cold")).getByText("Edit and resend").focus();
    await user.keyboard("{Enter}");
    const editor = screen.getByTestId("message-editor-input") as HTMLTextAreaElement;
    expect(document.activeElement).toBe(editor);
    await user.keyboard("{Escape}");
    expect(screen.queryByTestId("message-editor")).toBeNull();

    within(toolbarOf("How cold")).getByText("Edit and resend").focus();
    await user.keyboard("{Enter}");
    await user.clear(screen.getByTestId("message-editor-input"));
    await user.type(screen.getByTestId("message-editor-input"), "How windy is it there?{Enter}");
    expect(fakeApi.editChatMessage).toHaveBeenCalledWith(asked.id, "How windy is it there?");
    await waitFor(() => expect(bubbles()).toEqual([["user", "How windy is it there?"]]));
    expect(screen.getByTestId("chat-superseded-toggle").textContent).toBe("Show edited · earlier message");
  });
});

describe("Drafts", () => {
  it("keep what you typed per chat across a switch and a restart, and go when sent", async () => {
    seedExchange("Hello", "Hi");
    const { user } = renderApp();
    await openChat(user, "researcher");
    await user.type(input(), "Half a thought");
    await openChat(user, "writer");
    expect(input().value).toBe("");
    await user.type(input(), "Another draft");
    await openChat(user, "researcher");
    expect(input().value).toBe("Half a thought");

    // A restart: the app is gone and comes back.
    cleanup();
    const again = renderApp();
    await openChat(again.user, "writer");
    expect(input().value).toBe("Another draft");
    await openChat(again.user, "researcher");
    expect(input().value).toBe("Half a thought");
    await again.user.type(input(), "{Enter}");
    expect(fakeApi.sendChatMessage).toHaveBeenCalledWith(agentId, anyChat, "Half a thought");
    await openChat(again.user, "writer");
    await openChat(again.user, "researcher");
    expect(input().value).toBe("");
  }, 20_000);
});

describe("Unread marks", () => {
  it("mark a chat that got a reply while you were elsewhere, and clear when you open it", async () => {
    seedMessage(otherId, "user", "Draft the intro");
    const run = seedRun(otherId, "running");
    const { user } = renderApp();
    await openChat(user, "researcher");
    expect(screen.queryByTestId("unread-agent-writer")).toBeNull();

    // The writer's reply lands while the researcher's chat is open.
    await backendDoes(() => finishRun(otherId, "succeeded", "Here is the intro.", null));
    void run;
    const mark = await screen.findByTestId("unread-agent-writer");
    expect(mark.textContent).toBe("1");
    expect(mark.getAttribute("aria-label")).toBe("1 unread reply from Writer");

    await openChat(user, "writer");
    expect(fakeApi.markThreadRead).toHaveBeenCalledWith("chat", `chat-${otherId}`);
    await waitFor(() => expect(screen.queryByTestId("unread-agent-writer")).toBeNull());

    // A reply in the open chat is read as it shows: no mark.
    const answer = seedMessage(otherId, "assistant", "And a second paragraph.");
    await backendDoes(() => emitMessageAdded(otherId, answer));
    await waitFor(() => expect(backend.readMarks.get(`chat:chat-${otherId}`)).toBe(answer.seq));
    await openChat(user, "researcher");
    expect(screen.queryByTestId("unread-agent-writer")).toBeNull();
  });

  it("are kept by the backend: a restart shows what is still unread", async () => {
    seedMessage(otherId, "user", "Draft the intro");
    seedMessage(otherId, "assistant", "Here it is.");
    const { user } = renderApp();
    expect((await screen.findByTestId("unread-agent-writer")).textContent).toBe("1");
    await openChat(user, "writer");
    await waitFor(() => expect(screen.queryByTestId("unread-agent-writer")).toBeNull());
    cleanup();
    renderApp();
    await screen.findByTestId("agent-item-writer");
    expect(screen.queryByTestId("unread-agent-writer")).toBeNull();
  });
});

describe("In a team room", () => {
  it("replies offer the copy actions only, and a room's reply marks its team until the room is read", async () => {
    const team = seedTeam({ name: "Polar", memberIds: [agentId], aboutYou: "Hi." });
    const general = team.rooms[0].id;
    seedRoomMessage(general, { kind: "user", content: "Plan the trip" });
    const { user } = renderApp();
    await openChat(user, "researcher");

    // A reply lands in the room while the user is in a one-to-one chat.
    const reply = seedRoomMessage(general, { kind: "reply", authorId: agentId, content: "Pack **warm** socks." });
    await backendDoes(() => emitRoomMessage(team.id, reply));
    expect((await screen.findByTestId("unread-team-Polar")).textContent).toBe("1");

    await user.click(screen.getByTestId("team-item-Polar"));
    const row = await screen.findByTestId("room-message-reply");
    const toolbar = within(row.parentElement!).getByRole("toolbar");
    expect(within(toolbar).getAllByRole("button").map((b) => b.textContent)).toEqual(["Copy", "Copy as Markdown"]);
    within(toolbar).getByText("Copy").focus();
    await user.keyboard("{ArrowRight}{Enter}");
    await waitFor(async () => expect(await navigator.clipboard.readText()).toBe("Pack **warm** socks."));
    expect(fakeApi.markThreadRead).toHaveBeenCalledWith("room", general);
    await openChat(user, "researcher");
    expect(screen.queryByTestId("unread-team-Polar")).toBeNull();
  });
});
