import { describe, expect, it, vi } from "vitest";
import { ClawbooError } from "./errors";

const mocks = vi.hoisted(() => ({
  listAgents: vi.fn(),
  deleteAgent: vi.fn(),
  listen: vi.fn(),
  setBaseUrl: vi.fn(),
  boardColumns: vi.fn(),
}));

vi.mock("./bindings", () => ({
  commands: {
    listAgents: mocks.listAgents,
    deleteAgent: mocks.deleteAgent,
    setBaseUrl: mocks.setBaseUrl,
    boardColumns: mocks.boardColumns,
  },
  events: {
    agentsChanged: { listen: mocks.listen },
    agentFileChanged: { listen: mocks.listen },
    runEventEmitted: { listen: mocks.listen },
  },
}));

import { call, listen } from "./api";

describe("api", () => {
  it("returns the data of an ok result", async () => {
    mocks.listAgents.mockResolvedValueOnce({ status: "ok", data: [] });
    await expect(call("listAgents")).resolves.toEqual([]);
  });

  it("throws a ClawbooError carrying the backend's code and message", async () => {
    mocks.deleteAgent.mockResolvedValueOnce({
      status: "error",
      error: { code: "not_found", message: "No agent with id x" },
    });
    const error = await call("deleteAgent", "x").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClawbooError);
    expect(error).toMatchObject({ code: "not_found", message: "No agent with id x" });
  });

  it("wraps a failed invoke as an internal error", async () => {
    mocks.listAgents.mockRejectedValueOnce(new TypeError("window.__TAURI_INTERNALS__ is undefined"));
    const error = await call("listAgents").catch((e: unknown) => e);
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
    await expect(listen("agentFileChanged", (c) => seen.push(c))).resolves.toBe(unlisten);
    expect(seen).toEqual([{ agentId: "a1", name: "SOUL.md" }]);
  });

  it("passes run events through as they come", async () => {
    const payload = { agentId: "a1", record: { runId: "r1", seq: 1, at: 5, event: { type: "textDelta", text: "hi" } } };
    mocks.listen.mockImplementationOnce(async (cb: (e: { payload: unknown }) => void) => {
      cb({ payload });
      return () => {};
    });
    const seen: unknown[] = [];
    await listen("runEventEmitted", (e) => seen.push(e));
    expect(seen).toEqual([payload]);
  });

  it("resets a base URL with null", async () => {
    mocks.setBaseUrl.mockResolvedValueOnce({ status: "ok", data: null });
    await call("setBaseUrl", "openai", null);
    expect(mocks.setBaseUrl).toHaveBeenCalledWith("openai", null);
  });

  it("passes through the data of a command that returns it directly", async () => {
    const columns = [{ status: "todo", label: "To do", allowedMoves: [] }];
    mocks.boardColumns.mockResolvedValueOnce(columns);
    await expect(call("boardColumns")).resolves.toBe(columns);
  });

  it("maps a failure of a command that returns its data directly to a ClawbooError", async () => {
    mocks.boardColumns.mockRejectedValueOnce({ code: "internal", message: "The engine stopped." });
    const error = await call("boardColumns").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClawbooError);
    expect(error).toMatchObject({ code: "internal", message: "The engine stopped." });
  });
});
