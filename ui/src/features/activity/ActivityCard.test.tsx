import { beforeEach, describe, expect, it, vi } from "vitest";
import { screen, waitFor, within } from "@testing-library/react";
import type { Agent, RunEventRecord } from "../../bindings";
import { ClawbooError } from "../../errors";
import {
  deliverRunEvent,
  emitRunEvent,
  fakeApi,
  finishRun,
  recordRunEvent,
  resetBackend,
  seedAgent,
  seedMessage,
  seedRun,
} from "../../test/fakeApi";
import { seedRequest } from "../../test/fakeAttention";
import { runSpend, spend } from "../../test/fakeSpend";
import { backendDoes, openChat, renderApp } from "../../test/helpers";

vi.mock("../../api", async () => (await import("../../test/fakeApi")).fakeApiModule);

let agent: Agent;
let agentId: string;
let runId: string;

beforeEach(() => {
  resetBackend();
  agent = seedAgent({ name: "Researcher", handle: "researcher" });
  agentId = agent.id;
  seedMessage(agentId, "user", "List the files");
  runId = seedRun(agentId).id;
});

const card = () => within(screen.getByTestId("activity-card"));

async function openActivity() {
  const { user } = renderApp();
  await openChat(user, "researcher");
  await waitFor(() => expect(fakeApi.runActivity).toHaveBeenCalledWith(runId));
  return { user };
}

describe("Activity card", () => {
  it("shows a tool call as it runs, then its output and duration", async () => {
    const { user } = await openActivity();
    expect(card().getByTestId("run-status").textContent).toBe("Running");

    await backendDoes(() =>
      emitRunEvent(agentId, runId, { type: "toolCallStarted", callId: "c1", name: "Bash", input: { command: "ls -la /tmp", timeout: 30 } }, 10_000),
    );
    const tool = card().getByTestId("activity-tool-c1");
    expect(tool.getAttribute("data-status")).toBe("running");
    expect(tool.textContent).toContain("Bash");
    expect(within(tool).getByTestId("tool-input").textContent).toBe("ls -la /tmp");
    expect(within(tool).getByRole("img", { name: "Running" })).toBeTruthy();
    expect(within(tool).queryByTestId("tool-duration")).toBeNull();

    // The summary opens to the full input.
    await user.click(within(tool).getByTestId("tool-input"));
    expect(within(tool).getByTestId("tool-input-full").textContent).toBe(
      JSON.stringify({ command: "ls -la /tmp", timeout: 30 }, null, 2),
    );

    await backendDoes(() =>
      emitRunEvent(agentId, runId, { type: "toolResult", callId: "c1", output: "a.txt\nb.txt", isError: false }, 11_500),
    );
    expect(tool.getAttribute("data-status")).toBe("done");
    expect(within(tool).getByTestId("tool-output").textContent).toBe("a.txt\nb.txt");
    expect(within(tool).getByTestId("tool-duration").textContent).toBe("1.5 s");
    expect(within(tool).getByRole("img", { name: "Done" })).toBeTruthy();
  });

  it("folds a finished reply's tool calls into one line under it, which opens to the calls", async () => {
    const { user } = await openActivity();
    await backendDoes(() => {
      emitRunEvent(agentId, runId, { type: "toolCallStarted", callId: "c1", name: "Bash", input: { command: "ls" } });
      emitRunEvent(agentId, runId, { type: "toolResult", callId: "c1", output: "a.txt", isError: false });
      emitRunEvent(agentId, runId, { type: "toolCallStarted", callId: "c2", name: "Read", input: { file_path: "a.txt" } });
      emitRunEvent(agentId, runId, { type: "toolResult", callId: "c2", output: "hello", isError: false });
    });
    await backendDoes(() => finishRun(agentId, "succeeded", "Two files read."));
    const steps = await screen.findByTestId(`reply-steps-${runId}`);
    const toggle = within(steps).getByRole("button");
    expect(toggle.textContent).toContain("Used 2 tools: Bash, Read");
    expect(toggle.getAttribute("aria-expanded")).toBe("false");
    await user.click(toggle);
    expect(within(steps).getByTestId("activity-tool-c1").textContent).toContain("Bash");
    expect(within(steps).getByTestId("activity-tool-c2").textContent).toContain("Read");
  });

  it("cuts long output to 20 lines until expanded, and marks failed tools", async () => {
    const { user } = await openActivity();
    const long = Array.from({ length: 45 }, (_, i) => `line ${i + 1}`).join("\n");
    await backendDoes(() => {
      emitRunEvent(agentId, runId, { type: "toolCallStarted", callId: "c1", name: "Read", input: { file_path: "/x" } });
      emitRunEvent(agentId, runId, { type: "toolResult", callId: "c1", output: long, isError: true });
    });
    const tool = card().getByTestId("activity-tool-c1");
    expect(tool.getAttribute("data-status")).toBe("error");
    expect(within(tool).getByTestId("tool-output").textContent!.split("\n")).toHaveLength(20);

    await user.click(within(tool).getByRole("button", { name: "Show all 45 lines" }));
    expect(within(tool).getByTestId("tool-output").textContent).toBe(long);
  });

  it("asks for permission; Allow once answers and shows Allowed once resolved", async () => {
    seedRequest(agent, { kind: "permission", runId: runId, runtimeRequestId: "p1", tool: "Bash" });
    const { user } = await openActivity();
    await backendDoes(() =>
      emitRunEvent(agentId, runId, {
        type: "permissionRequest",
        requestId: "p1",
        tool: "Bash",
        input: { command: "rm -rf build" },
        description: "Delete the build folder",
      }),
    );
    const request = card().getByTestId("permission-p1");
    expect(request.textContent).toContain("Bash");
    expect(request.textContent).toContain("Delete the build folder");
    expect(request.textContent).toContain("rm -rf build");
    expect(within(request).getByTestId("allow-p1").textContent).toBe("Allow once");

    await user.click(within(request).getByTestId("allow-p1"));
    expect(fakeApi.answerPermission).toHaveBeenCalledWith(runId, "p1", "allow_once");

    await backendDoes(() => emitRunEvent(agentId, runId, { type: "permissionResolved", requestId: "p1", allowed: true }));
    expect(request.textContent).toContain("Allowed");
    expect(within(request).queryByTestId("allow-p1")).toBeNull();
    expect(within(request).queryByTestId("allow-always-p1")).toBeNull();
    expect(within(request).queryByTestId("deny-p1")).toBeNull();
  });

  it("Allow always answers allow_always and says so", async () => {
    seedRequest(agent, { kind: "permission", runId: runId, runtimeRequestId: "p3", tool: "Edit" });
    const { user } = await openActivity();
    await backendDoes(() =>
      emitRunEvent(agentId, runId, { type: "permissionRequest", requestId: "p3", tool: "Edit", input: null, description: "" }),
    );
    await user.click(card().getByTestId("allow-always-p3"));
    expect(fakeApi.answerPermission).toHaveBeenCalledWith(runId, "p3", "allow_always");
    await waitFor(() => expect(card().getByTestId("permission-p3").textContent).toContain("Allowed always"));
    expect(fakeApi.answerPermission).toHaveBeenCalledTimes(1);
  });

  it("offers Allow always for a shell command's prefix as the engine says, and not for a chained command", async () => {
    seedRequest(agent, { kind: "permission", runId, runtimeRequestId: "p5", tool: "Bash", commandPrefix: "git status", allowAlways: true });
    seedRequest(agent, { kind: "permission", runId, runtimeRequestId: "p6", tool: "Bash", commandPrefix: null, allowAlways: false });
    const { user } = await openActivity();
    await backendDoes(() => {
      emitRunEvent(agentId, runId, { type: "permissionRequest", requestId: "p5", tool: "Bash", input: { command: "git status -s" }, description: "" });
      emitRunEvent(agentId, runId, { type: "permissionRequest", requestId: "p6", tool: "Bash", input: { command: "git status; rm -rf ~" }, description: "" });
    });
    const always = await card().findByTestId("allow-always-p5");
    expect(always.textContent).toBe("Allow always: git status …");
    expect(within(card().getByTestId("permission-p6")).queryByTestId("allow-always-p6")).toBeNull();
    expect(card().getByTestId("allow-p6")).toBeTruthy();
    await user.click(always);
    expect(fakeApi.answerPermission).toHaveBeenCalledWith(runId, "p5", "allow_always");
  });

  it("shows a permission's whole input with its hidden characters marked, as the Inbox does", async () => {
    await openActivity();
    const content = "y".repeat(20_000);
    await backendDoes(() => {
      emitRunEvent(agentId, runId, {
        type: "permissionRequest",
        requestId: "p7",
        tool: "Bash",
        input: { command: "echo \u202Eok\u200B && rm -rf ~" },
        description: "Say \u202Eok",
      });
      emitRunEvent(agentId, runId, { type: "permissionRequest", requestId: "p8", tool: "Write", input: { content }, description: "" });
    });
    const input = card().getByTestId("permission-input-p7");
    expect(input.textContent).toBe(JSON.stringify({ command: "echo ⟨U+202E⟩ok⟨U+200B⟩ && rm -rf ~" }, null, 2));
    expect(within(input).getAllByTestId("hidden-char").map((m) => m.textContent)).toEqual(["⟨U+202E⟩", "⟨U+200B⟩"]);
    expect(card().getByTestId("permission-p7").textContent).toContain("Say ⟨U+202E⟩ok");
    const whole = card().getByTestId("permission-input-p8");
    expect(whole.textContent).toBe(JSON.stringify({ content }, null, 2));
    expect(whole.style.overflow).toBe("auto");
  });

  it("Deny answers deny and shows Denied", async () => {
    seedRequest(agent, { kind: "permission", runId: runId, runtimeRequestId: "p2" });
    const { user } = await openActivity();
    await backendDoes(() =>
      emitRunEvent(agentId, runId, { type: "permissionRequest", requestId: "p2", tool: "Write", input: null, description: "" }),
    );
    await user.click(card().getByTestId("deny-p2"));
    expect(fakeApi.answerPermission).toHaveBeenCalledWith(runId, "p2", "deny");
    await waitFor(() => expect(card().getByTestId("permission-p2").textContent).toContain("Denied"));
  });

  it("shows the backend's refusal with its code and keeps the buttons", async () => {
    fakeApi.answerPermission.mockRejectedValueOnce(
      new ClawbooError("run_not_active", "The run that asked has already ended, so it no longer waits for this answer."),
    );
    const { user } = await openActivity();
    await backendDoes(() =>
      emitRunEvent(agentId, runId, { type: "permissionRequest", requestId: "p4", tool: "Write", input: null, description: "" }),
    );
    await user.click(card().getByTestId("allow-p4"));
    const request = card().getByTestId("permission-p4");
    const error = await within(request).findByTestId("error-message");
    expect(within(error).getByTestId("error-code").textContent).toBe("run_not_active");
    expect(error.textContent).toContain("no longer waits for this answer");
    expect(request.textContent).toContain("Waiting for you");
    expect(within(request).getByTestId("allow-p4")).toBeTruthy();
  });

  it("merges events that arrive before the backfill, without duplicates", async () => {
    // The run had emitted 1..3 before the chat opened; the backfill answers late.
    const early = [
      recordRunEvent(runId, { type: "textDelta", text: "Looking" }),
      recordRunEvent(runId, { type: "toolCallStarted", callId: "c1", name: "Grep", input: { pattern: "TODO" } }, 1_000),
      recordRunEvent(runId, { type: "toolResult", callId: "c1", output: "3 matches", isError: false }, 1_200),
    ];
    let answer: (records: RunEventRecord[]) => void = () => {};
    fakeApi.runActivity.mockImplementationOnce(() => new Promise((resolve) => (answer = resolve)));
    await openActivity();

    // Live: a repeat of 3, then 4 and 5.
    await backendDoes(() => {
      deliverRunEvent(agentId, early[2]);
      emitRunEvent(agentId, runId, { type: "textDelta", text: "…done" });
      emitRunEvent(agentId, runId, { type: "toolCallStarted", callId: "c2", name: "Read", input: { path: "a" } });
    });
    await backendDoes(() => answer(early));

    expect(screen.getByTestId("chat-streaming").textContent).toBe("Looking…done");
    expect(card().getAllByTestId(/^activity-tool-/).map((t) => t.getAttribute("data-testid"))).toEqual([
      "activity-tool-c1",
      "activity-tool-c2",
    ]);
    expect(card().getByTestId("activity-tool-c1").textContent).toContain("3 matches");
    expect(card().getByTestId("activity-tool-c1").textContent).toContain("200 ms");
  });

  it("shows thinking collapsed, warnings and errors, and usage", async () => {
    await openActivity();
    await backendDoes(() => {
      emitRunEvent(agentId, runId, { type: "thinking", text: "The user wants files." });
      emitRunEvent(agentId, runId, { type: "warning", message: "Context is 90% full." });
      emitRunEvent(agentId, runId, { type: "error", message: "Rate limited, retrying." });
      emitRunEvent(agentId, runId, {
        type: "usage",
        inputTokens: 1234,
        outputTokens: 56,
        cacheReadTokens: 1000,
        cacheWriteTokens: 20,
        costUsd: 0.0123,
      });
    });
    const thinking = card().getByTestId("activity-thinking");
    expect(thinking.querySelector("details")!.open).toBe(false);
    expect(thinking.textContent).toContain("The user wants files.");
    expect(card().getByTestId("activity-warning").textContent).toBe("Context is 90% full.");
    expect(card().getByTestId("activity-error").textContent).toBe("Rate limited, retrying.");
    const usage = card().getByTestId("activity-usage").textContent;
    expect(usage).toContain("1,234 in · 56 out");
    expect(usage).toContain("cache 1,000 read · 20 write");
    // The CLI's own price is not money Clawboo counted (it may be a subscription's): no dollars.
    expect(usage).not.toContain("$");
    expect(card().queryByTestId("activity-cost")).toBeNull();
  });

  it("shows a run's cost as the engine counted it, with the cache-read share", async () => {
    spend.runs = [
      runSpend({ runId, agentId, inputTokens: 1_000, outputTokens: 56, cacheReadTokens: 3_000, costMicros: 4_200 }),
    ];
    await openActivity();
    await backendDoes(() => {
      emitRunEvent(agentId, runId, {
        type: "usage", inputTokens: 1_000, outputTokens: 56, cacheReadTokens: 3_000, cacheWriteTokens: 0, costUsd: 0.5,
      });
    });
    await waitFor(() => expect(card().getByTestId("activity-cost").textContent).toBe("$0.0042 · cache reads 75%"));
  });

  it("shows tokens and says no price is known for a model without one", async () => {
    spend.runs = [
      runSpend({ runId, agentId, provider: "custom", model: "llama", inputTokens: 900, outputTokens: 100, unpricedTokens: 1_000 }),
    ];
    await openActivity();
    await backendDoes(() => {
      emitRunEvent(agentId, runId, {
        type: "usage", inputTokens: 900, outputTokens: 100, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: null,
      });
    });
    await waitFor(() => expect(card().getByTestId("activity-cost").textContent).toBe("no price known"));
    expect(card().getByTestId("activity-usage").textContent).toContain("900 in · 100 out");
  });

  it("says a run on the user's own sign-in used it, with tokens on the subscription", async () => {
    spend.runs = [
      {
        runId,
        day: "2026-12-05",
        at: 0,
        agentId,
        teamId: "",
        routineId: "",
        cardId: "",
        runtime: "hermes",
        provider: "",
        model: "",
        billing: "subscription",
        requests: 0,
        inputTokens: 1234,
        outputTokens: 56,
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
        costMicros: null,
        unpricedTokens: 0,
      },
    ];
    await openActivity();
    await backendDoes(() => {
      emitRunEvent(agentId, runId, {
        type: "usage",
        inputTokens: 1234,
        outputTokens: 56,
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
        costUsd: null,
      });
    });
    await waitFor(() =>
      expect(card().getByTestId("activity-cost").textContent).toBe("your own sign-in · on your subscription"),
    );
  });

  it("keeps showing the last run after it finished, with its outcome", async () => {
    await openActivity();
    await backendDoes(() => {
      emitRunEvent(agentId, runId, { type: "toolCallStarted", callId: "c1", name: "Bash", input: "make" });
      emitRunEvent(agentId, runId, { type: "finished", outcome: "failed", message: "make failed" });
      finishRun(agentId, "failed", null, "make failed");
    });
    await waitFor(() => expect(card().getByTestId("run-status").textContent).toBe("Failed"));
    expect(card().getByTestId("activity-tool-c1")).toBeTruthy();
  });

  it("collapses and expands", async () => {
    const { user } = await openActivity();
    await user.click(card().getByTestId("activity-toggle"));
    expect(screen.getByTestId("activity-card").classList.contains("is-collapsed")).toBe(true);
    expect(card().queryByText(/Working…/)).toBeNull();
    await user.click(card().getByTestId("activity-toggle"));
    expect(card().getByText("Working…")).toBeTruthy();
  });
});
