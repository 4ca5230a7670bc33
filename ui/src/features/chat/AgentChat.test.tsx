import { beforeEach, describe, expect, it, vi } from "vitest";
import { screen, waitFor, within } from "@testing-library/react";
import { ClawbooError } from "../../errors";
import { seedRequest } from "../../test/fakeAttention";
import {
  backend,
  emitMessageAdded,
  emitRunChanged,
  emitRunEvent,
  fakeApi,
  finishRun,
  recordRunEvent,
  RESET_NOTICE,
  resetBackend,
  seedAgent,
  seedMessage,
  seedRun,
} from "../../test/fakeApi";
import { emit } from "../../test/fakeEvents";
import { backendDoes, openChat, renderApp } from "../../test/helpers";

vi.mock("../../api", async () => (await import("../../test/fakeApi")).fakeApiModule);

let agentId: string;

beforeEach(() => {
  resetBackend();
  agentId = seedAgent({ name: "Researcher", handle: "researcher", tint: "#14b8a6" }).id;
});

const input = () => screen.getByTestId("chat-input") as HTMLTextAreaElement;
const sendButton = () => screen.getByTestId("chat-send") as HTMLButtonElement;
const bubbles = () =>
  screen.queryAllByTestId("chat-message").map((m) => [m.getAttribute("data-role"), m.textContent]);

/** Sends a message and waits until its run is going. */
async function sendAndStart(user: ReturnType<typeof renderApp>["user"], text: string) {
  await user.type(input(), `${text}{Enter}`);
  await screen.findByTestId("chat-streaming");
  await waitFor(() => expect(screen.getByTestId("chat-stop")).toBeTruthy());
  return backend.chats.get(agentId)!.activeRun!.id;
}

/** The chat a call names: the agent's first (once listed) or none yet (its most recent, made by
 *  the first message); which one is the chat list's test (ChatList.test.tsx). */
const aChat = { asymmetricMatch: (v: unknown) => v === null || (typeof v === "string" && v.startsWith("chat-")) };

describe("Chat", () => {
  it("shows the history: user right, assistant left, notices small in the middle", async () => {
    seedMessage(agentId, "user", "What is 2+2?");
    seedMessage(agentId, "assistant", "It is 4.\nAnything else?");
    seedMessage(agentId, "notice", RESET_NOTICE);
    const { user } = renderApp();
    await openChat(user, "researcher");

    expect(bubbles()).toEqual([
      ["user", "What is 2+2?"],
      ["assistant", "It is 4.\nAnything else?"],
    ]);
    expect(screen.getAllByTestId("chat-message")[1].querySelector("p")).toBeTruthy();
    expect(screen.getByTestId("chat-notice").textContent).toBe(RESET_NOTICE);
    expect(screen.getByText("/reset starts a fresh conversation", { exact: false })).toBeTruthy();
    expect(screen.queryByTestId("chat-streaming")).toBeNull();
  });

  it("sends with Enter, shows the message and the live reply, then the stored reply", async () => {
    const { user } = renderApp();
    await openChat(user, "researcher");
    const runId = await sendAndStart(user, "Hello there");

    expect(fakeApi.sendChatMessage).toHaveBeenCalledWith(agentId, aChat, "Hello there");
    expect(bubbles()).toEqual([["user", "Hello there"]]);
    expect(input().value).toBe("");
    expect(sendButton().disabled).toBe(true);

    await backendDoes(() => {
      emitRunEvent(agentId, runId, { type: "textDelta", text: "Hi! " });
      emitRunEvent(agentId, runId, { type: "textDelta", text: "Let me look." });
    });
    expect(screen.getByTestId("chat-streaming").textContent).toBe("Hi! Let me look.");

    await backendDoes(() => emitRunEvent(agentId, runId, { type: "message", text: "Found it." }));
    const paragraphs = () => [...screen.getByTestId("chat-streaming").querySelectorAll("p")].map((p) => p.textContent);
    await waitFor(() => expect(paragraphs()).toEqual(["Hi! Let me look.", "Found it."]));

    await backendDoes(() => {
      emitRunEvent(agentId, runId, { type: "finished", outcome: "succeeded", message: null });
      finishRun(agentId, "succeeded", "Hi! Let me look.\n\nFound it.");
    });
    await waitFor(() => expect(screen.queryByTestId("chat-streaming")).toBeNull());
    expect(bubbles()).toEqual([
      ["user", "Hello there"],
      ["assistant", "Hi! Let me look.\nFound it."],
    ]);
    expect(screen.getAllByTestId("chat-message")[1].querySelectorAll("p")).toHaveLength(2);
    expect(screen.queryByTestId("chat-stop")).toBeNull();
  });

  it("Shift+Enter adds a line; Enter sends", async () => {
    const { user } = renderApp();
    await openChat(user, "researcher");
    await user.type(input(), "line one{Shift>}{Enter}{/Shift}line two");
    expect(input().value).toBe("line one\nline two");
    expect(fakeApi.sendChatMessage).not.toHaveBeenCalled();

    await user.keyboard("{Enter}");
    expect(fakeApi.sendChatMessage).toHaveBeenCalledWith(agentId, aChat, "line one\nline two");
  });

  it("the Send button sends, and does nothing for blank text", async () => {
    const { user } = renderApp();
    await openChat(user, "researcher");
    await user.type(input(), "   ");
    expect(sendButton().disabled).toBe(true);
    await user.keyboard("{Enter}");
    expect(fakeApi.sendChatMessage).not.toHaveBeenCalled();

    await user.type(input(), "Go");
    await user.click(sendButton());
    expect(fakeApi.sendChatMessage).toHaveBeenCalledWith(agentId, aChat, "Go");
  });

  it("Stop cancels the active run", async () => {
    const { user } = renderApp();
    await openChat(user, "researcher");
    const runId = await sendAndStart(user, "Long task");

    await user.click(screen.getByTestId("chat-stop"));
    expect(fakeApi.cancelRun).toHaveBeenCalledWith(runId);
    await waitFor(() => expect(screen.getByTestId("chat-stop").textContent).toBe("Stopping…"));

    await backendDoes(() => finishRun(agentId, "cancelled", null));
    await waitFor(() => expect(screen.queryByTestId("chat-stop")).toBeNull());
    expect(screen.getByTestId("run-cancelled").textContent).toContain("Stopped.");
    expect(screen.queryByTestId("chat-streaming")).toBeNull();
  });

  it("takes no new message during a run, but /reset still goes", async () => {
    const { user } = renderApp();
    await openChat(user, "researcher");
    await sendAndStart(user, "First");
    await user.type(input(), "Second{Enter}");
    expect(sendButton().disabled).toBe(true);
    expect(fakeApi.sendChatMessage).toHaveBeenCalledTimes(1);
    expect(input().value).toBe("Second");

    await user.clear(input());
    await user.type(input(), "/reset");
    expect(sendButton().disabled).toBe(false);
    await user.click(sendButton());
    expect(fakeApi.sendChatMessage).toHaveBeenLastCalledWith(agentId, aChat, "/reset");
  });

  it("/reset shows the notice and starts no run", async () => {
    seedMessage(agentId, "user", "Old question");
    const { user } = renderApp();
    await openChat(user, "researcher");
    await user.type(input(), "/reset{Enter}");

    expect(fakeApi.sendChatMessage).toHaveBeenCalledWith(agentId, aChat, "/reset");
    expect((await screen.findByTestId("chat-notice")).textContent).toBe(RESET_NOTICE);
    expect(screen.queryByTestId("chat-streaming")).toBeNull();
    expect(screen.queryByTestId("chat-stop")).toBeNull();
  });

  it("shows a failed run's error in the conversation", async () => {
    const { user } = renderApp();
    await openChat(user, "researcher");
    await sendAndStart(user, "Do it");

    await backendDoes(() => finishRun(agentId, "failed", null, "Claude Code exited with status 1: not logged in"));
    const notice = await screen.findByTestId("run-error");
    expect(notice.textContent).toContain("The run failed.");
    expect(notice.textContent).toContain("Claude Code exited with status 1: not logged in");
    expect(screen.queryByTestId("chat-streaming")).toBeNull();
  });

  it("a failed run's notice shows its text as text, copies its details, points to the fix and retries", async () => {
    const { user } = renderApp();
    await openChat(user, "researcher");
    await sendAndStart(user, "Summarise the report");
    await backendDoes(() =>
      finishRun(agentId, "failed", null, "Claude Code is not signed in: run `claude login`, or add an API key.", "api_key"),
    );
    const notice = await screen.findByTestId("run-error");
    // Backticks are code, not characters shown.
    expect(notice.textContent).not.toContain("`");
    expect(within(notice).getByText("claude login").tagName).toBe("CODE");
    expect(within(notice).getByTestId("copy-error-details")).toBeTruthy();
    expect(within(notice).getByTestId("fix-button").textContent).toBe("Open Settings > API keys");

    await user.click(within(notice).getByTestId("run-retry"));
    await waitFor(() => expect(fakeApi.sendChatMessage).toHaveBeenCalledTimes(2));
    expect(fakeApi.sendChatMessage).toHaveBeenLastCalledWith(agentId, aChat, "Summarise the report");
  });

  it("shows the agent's open question above the composer, answered right there", async () => {
    const agent = backend.agents.find((a) => a.id === agentId)!;
    const asked = seedRequest(agent, { kind: "question", text: "Which region: EU or US?" });
    seedRequest(agent, { kind: "question", text: "Asked in a team", origin: "team", roomId: "room-x" });
    const { user } = renderApp();
    await openChat(user, "researcher");
    const here = await screen.findByTestId("asked-here");
    expect(within(here).getAllByRole("article")).toHaveLength(1);
    expect(here.textContent).toContain("@researcher asks: Which region: EU or US?");
    await user.type(within(here).getByTestId(`answer-${asked.id}`), "EU");
    await user.click(within(here).getByTestId(`send-answer-${asked.id}`));
    await waitFor(() => expect(screen.queryByTestId("asked-here")).toBeNull());
    expect(fakeApi.attentionAnswer).toHaveBeenCalledWith(asked.id, { type: "text", text: "EU" });
  });

  it("shows timed-out runs from the history as failures", async () => {
    seedMessage(agentId, "user", "Slow one");
    seedRun(agentId, "timed_out", "No output for 10 minutes");
    const { user } = renderApp();
    await openChat(user, "researcher");
    const notice = screen.getByTestId("run-error");
    expect(notice.textContent).toContain("The run timed out.");
    expect(notice.textContent).toContain("No output for 10 minutes");
  });

  it("shows why a message could not be sent and gives the text back", async () => {
    fakeApi.sendChatMessage.mockRejectedValueOnce(
      new ClawbooError("missing_api_key", "Add an Anthropic API key in Settings first."),
    );
    const { user } = renderApp();
    await openChat(user, "researcher");
    await user.type(input(), "Hello{Enter}");

    expect((await screen.findByTestId("error-message")).textContent).toBe("Add an Anthropic API key in Settings first.");
    expect(input().value).toBe("Hello");
    expect(bubbles()).toEqual([]);
  });

  it("picks up a run that was already going, with what it streamed so far", async () => {
    seedMessage(agentId, "user", "Earlier question");
    const run = seedRun(agentId);
    recordRunEvent(run.id, { type: "textDelta", text: "Working on " });
    recordRunEvent(run.id, { type: "textDelta", text: "it" });
    const { user } = renderApp();
    await openChat(user, "researcher");

    await waitFor(() => expect(screen.getByTestId("chat-streaming").textContent).toBe("Working on it"));
    await backendDoes(() => emitRunEvent(agentId, run.id, { type: "textDelta", text: "…" }));
    expect(screen.getByTestId("chat-streaming").textContent).toBe("Working on it…");
    expect(fakeApi.runActivity).toHaveBeenCalledWith(run.id);
  });

  it("opens on the newest 50 messages and prepends older pages in order when asked", async () => {
    for (let i = 1; i <= 120; i++) seedMessage(agentId, i % 2 ? "user" : "assistant", `message ${i}`);
    const { user } = renderApp();
    await openChat(user, "researcher");
    const texts = () => bubbles().map(([, text]) => text);
    const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => `message ${from + i}`);

    expect(texts()).toEqual(range(71, 120));
    expect(fakeApi.chatHistoryPage).toHaveBeenCalledTimes(1);
    expect(fakeApi.chatHistoryPage).toHaveBeenLastCalledWith(agentId, aChat, null, 50);

    await user.click(screen.getByTestId("timeline-load-older"));
    await waitFor(() => expect(texts()).toEqual(range(21, 120)));
    expect(fakeApi.chatHistoryPage).toHaveBeenLastCalledWith(agentId, aChat, 71, 50);

    await user.click(screen.getByTestId("timeline-load-older"));
    await waitFor(() => expect(texts()).toEqual(range(1, 120)));
    expect(screen.queryByTestId("timeline-load-older")).toBeNull();
    expect(fakeApi.chatHistoryPage).toHaveBeenCalledTimes(3);
  });

  it("appends what events report without reading the history again", async () => {
    seedMessage(agentId, "user", "Earlier");
    const { user } = renderApp();
    await openChat(user, "researcher");
    const reads = fakeApi.chatHistoryPage.mock.calls.length;

    await backendDoes(() => emitMessageAdded(agentId, seedMessage(agentId, "user", "From another window")));
    const run = seedRun(agentId);
    await backendDoes(() => emitRunChanged(agentId, run));
    await screen.findByTestId("chat-streaming");
    await backendDoes(() => finishRun(agentId, "succeeded", "Done **there**."));
    await waitFor(() => expect(screen.queryByTestId("chat-streaming")).toBeNull());

    expect(bubbles()).toEqual([
      ["user", "Earlier"],
      ["user", "From another window"],
      ["assistant", "Done there."],
    ]);
    expect(fakeApi.chatHistoryPage.mock.calls.length).toBe(reads);
    // The same message heard twice (the send's answer and its event) is shown once.
    await backendDoes(() => emitMessageAdded(agentId, backend.chats.get(agentId)!.messages[1]));
    expect(bubbles()).toHaveLength(3);
  });

  it("after lost events reads only the newest page again", async () => {
    for (let i = 1; i <= 80; i++) seedMessage(agentId, "user", `message ${i}`);
    const { user } = renderApp();
    await openChat(user, "researcher");
    await user.click(screen.getByTestId("timeline-load-older"));
    await waitFor(() => expect(bubbles()).toHaveLength(80));
    fakeApi.chatHistoryPage.mockClear();

    seedMessage(agentId, "assistant", "Said while events were lost");
    await backendDoes(() => emit("agentsChanged", null));
    await screen.findByText("Said while events were lost");
    expect(fakeApi.chatHistoryPage.mock.calls).toEqual([[agentId, aChat, null, 50]]);
  });

  it("renders replies as Markdown and the user's text as typed", async () => {
    seedMessage(agentId, "user", "Show **me**");
    seedMessage(agentId, "assistant", "Here:\n\n- one\n- two\n\n```ts\nconst x = 1;\n```\n\n| a | b |\n| - | - |\n| 1 | 2 |");
    const { user } = renderApp();
    await openChat(user, "researcher");
    const [mine, reply] = screen.getAllByTestId("chat-message");
    expect(mine.textContent).toBe("Show **me**");
    expect(reply.querySelectorAll("li")).toHaveLength(2);
    expect(reply.querySelector("pre code")?.textContent).toBe("const x = 1;\n");
    expect(reply.querySelector("table")).toBeTruthy();
  });

  it("keeps unsent text when switching to Details and back", async () => {
    const { user } = renderApp();
    await openChat(user, "researcher");
    await user.type(input(), "half a thought");
    await user.click(screen.getByTestId("tab-details"));
    await user.click(screen.getByTestId("tab-chat"));
    expect(input().value).toBe("half a thought");
  });
});
