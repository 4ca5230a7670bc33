import { beforeEach, describe, expect, it, vi } from "vitest";
import { screen, waitFor, within } from "@testing-library/react";
import { backend, fakeApi, finishRun, resetBackend, seedAgent, seedMessage, seedRun } from "../../test/fakeApi";
import { backendDoes, openChat, renderApp } from "../../test/helpers";
import type { RelayedRequest } from "../../bindings";

vi.mock("../../api", async () => (await import("../../test/fakeApi")).fakeApiModule);

const SOUL = "You are careful and kind.";
const BOOTSTRAP = "On your first run, say hello.";
let agentId: string;

beforeEach(() => {
  resetBackend();
  agentId = seedAgent(
    { name: "Researcher", handle: "researcher" },
    { "SOUL.md": SOUL, "IDENTITY.md": "", "USER.md": "", "BOOTSTRAP.md": BOOTSTRAP },
  ).id;
});

const input = () => screen.getByTestId("chat-input") as HTMLTextAreaElement;

/** Sends, lets the run reply, and returns its id. */
async function sendAndFinish(user: ReturnType<typeof renderApp>["user"], text: string, reply: string) {
  await user.type(input(), `${text}{Enter}`);
  await screen.findByTestId("chat-streaming");
  const runId = backend.chats.get(agentId)!.activeRun!.id;
  await backendDoes(() => finishRun(agentId, "succeeded", reply));
  await waitFor(() => expect(screen.queryByTestId("chat-streaming")).toBeNull());
  return runId;
}

const statusOf = (viewer: HTMLElement, file: string) =>
  within(viewer).getByTestId(`file-delivery-${file}`).getAttribute("data-status");

describe("What this agent saw, one to one", () => {
  it("opens from a reply: the instruction slot, the text before the message, and every file", async () => {
    const { user } = renderApp();
    await openChat(user, "researcher");
    const runId = await sendAndFinish(user, "Hello", "Hi.");

    const link = screen.getByTestId(`chat-run-context-${runId}`);
    expect(link.textContent).toBe("What @researcher saw");
    await user.click(link);

    const viewer = await screen.findByTestId("chat-run-context");
    expect(viewer.textContent).toContain("What @researcher saw");
    expect(fakeApi.chatRunContext).toHaveBeenCalledWith(runId);
    expect((await within(viewer).findByTestId("chat-run-context-system")).textContent).toContain(SOUL);
    expect(within(viewer).getByTestId("chat-run-context-preamble").textContent).toContain(BOOTSTRAP);

    const files = within(viewer).getByTestId("file-deliveries");
    expect(files.textContent).toContain("Agent files");
    expect(files.textContent).toContain("Files already delivered to this session are left out until they change");
    expect(within(files).getAllByRole("listitem")).toHaveLength(7);
    expect(statusOf(viewer, "SOUL.md")).toBe("sent");
    expect(statusOf(viewer, "IDENTITY.md")).toBe("empty");
    // Claude Code gets AGENTS.md from Clawboo, in its instructions (as the engine routes it).
    expect(statusOf(viewer, "AGENTS.md")).toBe("sent");
    expect(statusOf(viewer, "BOOTSTRAP.md")).toBe("sent");
    expect(statusOf(viewer, "HEARTBEAT.md")).toBe("not_this_run");
    const agents = within(viewer).getByTestId("file-delivery-AGENTS.md");
    expect(agents.textContent).toContain("Sent");
    expect(agents.textContent).toContain("sent as instructions every turn (appended to Claude Code's system prompt)");
    expect(agents.textContent).toContain("11 / 16,000 characters");

    await user.click(within(viewer).getByRole("button", { name: "Close" }));
    expect(screen.queryByTestId("chat-run-context")).toBeNull();
  });

  it("shows a reference the session already holds as omitted on the next run", async () => {
    const { user } = renderApp();
    await openChat(user, "researcher");
    await sendAndFinish(user, "First", "One.");
    const second = await sendAndFinish(user, "Second", "Two.");

    await user.click(screen.getByTestId(`chat-run-context-${second}`));
    const viewer = await screen.findByTestId("chat-run-context");
    await within(viewer).findByTestId("file-deliveries");
    expect(statusOf(viewer, "BOOTSTRAP.md")).toBe("already_delivered");
    expect(within(viewer).getByTestId("file-delivery-BOOTSTRAP.md").textContent).toContain(
      "Omitted: already delivered",
    );
    expect(within(viewer).getByTestId("chat-run-context-no-preamble")).toBeTruthy();
  });

  it("a failed run's notice carries the link, once", async () => {
    const { user } = renderApp();
    await openChat(user, "researcher");
    await user.type(input(), "Do it{Enter}");
    await screen.findByTestId("chat-streaming");
    const runId = backend.chats.get(agentId)!.activeRun!.id;
    await backendDoes(() => finishRun(agentId, "failed", "partial", "Claude Code exited with status 1"));

    const notice = await screen.findByTestId("run-error");
    expect(within(notice).getByTestId(`chat-run-context-${runId}`)).toBeTruthy();
    expect(screen.getAllByTestId(`chat-run-context-${runId}`)).toHaveLength(1);
    await user.click(within(notice).getByTestId(`chat-run-context-${runId}`));
    expect(await screen.findByTestId("chat-run-context")).toBeTruthy();
  });

  it("a Native run that failed before any request: its files not sent, and no requests named as such", async () => {
    const native = seedAgent({ name: "Local", handle: "local", runtime: "native", model: "m", provider: "custom" }).id;
    const { user } = renderApp();
    await openChat(user, "local");
    await user.type(input(), "Do it{Enter}");
    await screen.findByTestId("chat-streaming");
    const runId = backend.chats.get(native)!.activeRun!.id;
    await backendDoes(() => finishRun(native, "failed", null, "The model endpoint refused the connection."));
    const notice = await screen.findByTestId("run-error");
    await user.click(within(notice).getByTestId(`chat-run-context-${runId}`));

    const viewer = await screen.findByTestId("chat-run-context");
    expect((await within(viewer).findByTestId("run-context-unsent")).textContent).toContain("Not sent: the run failed");
    expect((await within(viewer).findByTestId("run-requests-none")).textContent).toBe(
      "No model request was made: the run ended before its first one.",
    );
    const sent = within(viewer)
      .getAllByRole("listitem")
      .filter((li) => li.textContent?.includes("Not sent: the run failed before any request"));
    expect(sent.length).toBeGreaterThan(0);
    expect(within(viewer).queryByText("Sent")).toBeNull();
  });

  it("prices each request it made, with the share of its prompt read from the cache", async () => {
    const { user } = renderApp();
    await openChat(user, "researcher");
    const runId = await sendAndFinish(user, "Summarise the notes", "Done.");
    const request = (seq: number, provider: RelayedRequest["provider"], model: string): RelayedRequest => ({
      runId, seq, at: 1_000 + seq, provider, method: "POST", path: "/v1/messages", status: 200,
      body: "{}", bodyBytes: 2, bodyComplete: true, model, usage: null, costMicros: null,
    });
    backend.runRequests.set(runId, [
      // Anthropic counts input without the cache: 1,000 fresh + 3,000 read + 0 written → 75%.
      { ...request(1, "anthropic", "claude-sonnet-4-5"), costMicros: 4_200,
        usage: { input_tokens: 1_000, output_tokens: 200, cache_read_tokens: 3_000, cache_write_tokens: 0 } },
      // OpenAI counts the cache reads inside its input: 500 of 2,000 → 25%; a model with no price.
      { ...request(2, "custom", "llama-local"),
        usage: { input_tokens: 2_000, output_tokens: 50, cache_read_tokens: 500, cache_write_tokens: null } },
      // No cache read: the money alone.
      { ...request(3, "anthropic", "claude-sonnet-4-5"), costMicros: 1_250_000,
        usage: { input_tokens: 400_000, output_tokens: 3_000, cache_read_tokens: 0, cache_write_tokens: 0 } },
    ]);

    await user.click(screen.getByTestId(`chat-run-context-${runId}`));
    const viewer = await screen.findByTestId("chat-run-context");
    await within(viewer).findByTestId("run-requests");
    const costs = within(viewer).getAllByTestId("request-cost").map((c) => c.textContent);
    expect(costs).toEqual(["$0.0042 · cache reads 75%", "no price known · cache reads 25%", "$1.25"]);
    expect(within(viewer).getAllByTestId("request-cost")[0].getAttribute("title")).toBe("claude-sonnet-4-5");
  });

  it("says so for a run from before what it was given was kept", async () => {
    seedMessage(agentId, "user", "Long ago");
    const run = seedRun(agentId, "succeeded");
    seedMessage(agentId, "assistant", "Back then.", run.id);
    const { user } = renderApp();
    await openChat(user, "researcher");

    await user.click(screen.getByTestId(`chat-run-context-${run.id}`));
    const viewer = await screen.findByTestId("chat-run-context");
    expect((await within(viewer).findByTestId("chat-run-context-not-kept")).textContent).toContain("Not recorded");
    expect(within(viewer).queryByTestId("error-message")).toBeNull();
  });
});

describe("A send refused for a file over its budget", () => {
  it("keeps the typed text and shows the engine's message", async () => {
    backend.files.get(agentId)!.set("SOUL.md", "s".repeat(4_100));
    const { user } = renderApp();
    await openChat(user, "researcher");
    await user.type(input(), "Are you there?{Enter}");

    const error = await screen.findByTestId("error-message");
    expect(error.textContent).toContain("SOUL.md has 4,100 characters, over its budget of 4,000");
    expect(error.textContent).toContain("nothing was sent");
    expect(input().value).toBe("Are you there?");
    expect(screen.queryAllByTestId("chat-message")).toHaveLength(0);
    expect(screen.queryByTestId("chat-pending")).toBeNull();

    // Kept across a look at Details too, where the file can be shortened.
    await user.click(screen.getByTestId("tab-details"));
    await user.click(screen.getByTestId("tab-chat"));
    expect(input().value).toBe("Are you there?");
  });
});
