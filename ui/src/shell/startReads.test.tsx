import { beforeEach, describe, expect, it, vi } from "vitest";
import { act, screen, waitFor } from "@testing-library/react";
import { fakeApi, resetBackend, seedAgent } from "../test/fakeApi";
import { renderApp } from "../test/helpers";
import { askStartReads } from "./startReads";

vi.mock("../api", async () => (await import("../test/fakeApi")).fakeApiModule);

beforeEach(() => resetBackend());

const answersIn = () => act(async () => {});

describe("the first screen's reads, asked as the page starts", () => {
  // First in this file: the first interactive screen of the page is reported in it.
  it("are in the first render when answered by then, asked once, and read again once the screen is interactive", async () => {
    seedAgent({ name: "Researcher", handle: "researcher" });
    askStartReads();
    await answersIn();
    renderApp();
    // No loading sidebar first: the agents are in the very first render.
    expect(screen.getByTestId("agent-item-researcher")).toBeTruthy();
    expect(fakeApi.listAgents).toHaveBeenCalledTimes(1);
    expect(fakeApi.listTeams).toHaveBeenCalledTimes(1);
    expect(fakeApi.windowPreferences).toHaveBeenCalledTimes(1);
    // Asked before the first render's listeners were up: read again once the screen is
    // interactive, so a change in between is not missed (the window's preferences need not be).
    await waitFor(() => expect(fakeApi.listAgents).toHaveBeenCalledTimes(2));
    expect(fakeApi.trayState).toHaveBeenCalledTimes(2);
    expect(fakeApi.windowPreferences).toHaveBeenCalledTimes(1);
  });

  it("are shared, not asked again, when still on their way at the first render", async () => {
    seedAgent({ name: "Writer", handle: "writer" });
    let letThrough!: () => void;
    const held = new Promise<void>((resolve) => (letThrough = resolve));
    const answer = fakeApi.listAgents.getMockImplementation()!;
    fakeApi.listAgents.mockImplementationOnce(async () => {
      await held;
      return answer();
    });
    askStartReads();
    renderApp();
    await answersIn();
    expect(screen.queryByTestId("agent-item-writer")).toBeNull();
    expect(fakeApi.listAgents).toHaveBeenCalledTimes(1);
    await act(async () => letThrough());
    expect(await screen.findByTestId("agent-item-writer")).toBeTruthy();
  });
});
