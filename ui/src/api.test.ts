import { describe, expect, it, vi } from "vitest";
import { ClawbooError } from "./errors";

const mocks = vi.hoisted(() => ({
  listAgents: vi.fn(),
  deleteAgent: vi.fn(),
  listen: vi.fn(),
  setBaseUrl: vi.fn(),
}));

vi.mock("./bindings", () => ({
  commands: { listAgents: mocks.listAgents, deleteAgent: mocks.deleteAgent, setBaseUrl: mocks.setBaseUrl },
  events: {
    agentsChanged: { listen: mocks.listen },
    agentFileChanged: { listen: mocks.listen },
    runEventEmitted: { listen: mocks.listen },
  },
}));

import { deleteAgent, listAgents, onAgentFileChanged, onRunEvent, setBaseUrl } from "./api";

describe("api", () => {
  it("returns the data of an ok result", async () => {
    mocks.listAgents.mockResolvedValueOnce({ status: "ok", data: [] });
    await expect(listAgents()).resolves.toEqual([]);
  });

  it("throws a ClawbooError carrying the backend's code and message", async () => {
    mocks.deleteAgent.mockResolvedValueOnce({
      status: "error",
      error: { code: "not_found", message: "No agent with id x" },
    });
    const error = await deleteAgent("x").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClawbooError);
    expect(error).toMatchObject({ code: "not_found", message: "No agent with id x" });
  });

  it("wraps a failed invoke as an internal error", async () => {
    mocks.listAgents.mockRejectedValueOnce(new TypeError("window.__TAURI_INTERNALS__ is undefined"));
    const error = await listAgents().catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "internal" });
    expect((error as Error).message).toContain("__TAURI_INTERNALS__");
  });

  it("passes the file-changed payload to the listener", async () => {
    const unlisten = () => {};
    mocks.listen.mockImplementationOnce(async (cb: (e: { payload: unknown }) => void) => {
      cb({ payload: { agentId: "a1", name: "SOUL.md" } });
      return unlisten;
    });
    const seen: unknown[] = [];
    await expect(onAgentFileChanged((c) => seen.push(c))).resolves.toBe(unlisten);
    expect(seen).toEqual([{ agentId: "a1", name: "SOUL.md" }]);
  });

  it("passes run events through as they come", async () => {
    const payload = { agentId: "a1", record: { runId: "r1", seq: 1, at: 5, event: { type: "textDelta", text: "hi" } } };
    mocks.listen.mockImplementationOnce(async (cb: (e: { payload: unknown }) => void) => {
      cb({ payload });
      return () => {};
    });
    const seen: unknown[] = [];
    await onRunEvent((e) => seen.push(e));
    expect(seen).toEqual([payload]);
  });

  it("resets a base URL with null", async () => {
    mocks.setBaseUrl.mockResolvedValueOnce({ status: "ok", data: null });
    await setBaseUrl("openai", null);
    expect(mocks.setBaseUrl).toHaveBeenCalledWith("openai", null);
  });
});
