import { beforeEach, describe, expect, it, vi } from "vitest";
import { act, fireEvent, screen, waitFor, within } from "@testing-library/react";
import { ClawbooError } from "./errors";
import { fakeApi, resetBackend, seedAgent } from "./test/fakeApi";
import { emit, listenerCount } from "./test/fakeEvents";
import { openAgentProfile, renderApp } from "./test/helpers";
import { preferences } from "./test/fakePreferences";

vi.mock("./api", async () => (await import("./test/fakeApi")).fakeApiModule);

beforeEach(() => resetBackend());

/** The shell's first reads (agents, teams, the window's preferences) wait, as they do while the
 *  engine opens; the returned function lets them through. */
function engineStillOpening() {
  let open!: () => void;
  const opening = new Promise<void>((resolve) => (open = resolve));
  const hold = <T,>(fake: { getMockImplementation(): (() => Promise<T>) | undefined; mockImplementationOnce(f: () => Promise<T>): unknown }) => {
    const answer = fake.getMockImplementation()!;
    fake.mockImplementationOnce(async () => {
      await opening;
      return answer();
    });
  };
  hold(fakeApi.listAgents);
  hold(fakeApi.listTeams);
  hold(fakeApi.windowPreferences);
  return () => act(async () => open());
}

describe("App shell", () => {
  it("lists agents with name and handle", async () => {
    seedAgent({ name: "Researcher", handle: "researcher", tint: "#ff0000" });
    seedAgent({ name: "Writer", handle: "writer" });
    renderApp();
    const item = await screen.findByTestId("agent-item-researcher");
    expect(item.textContent).toContain("Researcher");
    expect(item.textContent).toContain("@researcher");
    expect(screen.getByTestId("agent-item-writer")).toBeTruthy();
  });

  it("shows the full-page error when the engine is unavailable", async () => {
    fakeApi.listAgents.mockRejectedValueOnce(
      new ClawbooError("engine_unavailable", "Cannot open /data/clawboo: permission denied"),
    );
    renderApp();
    const panel = await screen.findByTestId("fatal-error");
    expect(panel.textContent).toContain("Cannot open /data/clawboo: permission denied");
    expect(screen.queryByTestId("new-agent-button")).toBeNull();
  });

  it("refetches the agent list on agentsChanged", async () => {
    renderApp();
    await screen.findByText("No agents yet.");
    await waitFor(() => expect(listenerCount("agentsChanged")).toBe(1));
    seedAgent({ name: "Late", handle: "late" });
    act(() => emit("agentsChanged", null));
    expect(await screen.findByTestId("agent-item-late")).toBeTruthy();
  });

  it("edits the profile, sending only changed fields", async () => {
    const agent = seedAgent({ name: "Researcher", handle: "researcher" });
    const { user } = renderApp();
    await openAgentProfile(user, "researcher");
    const name = screen.getByTestId("profile-name-input");
    await user.clear(name);
    await user.type(name, "Lead researcher");
    await user.click(screen.getByTestId("save-profile-button"));
    await waitFor(() => expect(screen.getByRole("heading", { level: 1 }).textContent).toBe("Lead researcher"));
    expect(fakeApi.updateAgent).toHaveBeenCalledWith(agent.id, {
      name: "Lead researcher",
      handle: null,
      description: null,
      tint: null,
      runtime: null,
      model: null,
      approvalPolicy: null,
      provider: null,
      sandbox: null,
    });
  });

  it("opens where it was left, and remembers each new place", async () => {
    const agent = seedAgent({ name: "Researcher", handle: "researcher" });
    seedAgent({ name: "Writer", handle: "writer" });
    preferences.lastPlace = JSON.stringify({ page: "agent", agentId: agent.id, tab: "chat" });
    const { user } = renderApp();
    expect(await screen.findByRole("heading", { level: 1, name: "Researcher" })).toBeTruthy();
    await user.click(screen.getByTestId("nav-board"));
    await waitFor(() => expect(preferences.lastPlace).toBe(JSON.stringify({ page: "board", cardId: null })));
  });

  it("opens Home when the place it was left is gone", async () => {
    seedAgent({ name: "Writer", handle: "writer" });
    preferences.lastPlace = JSON.stringify({ page: "agent", agentId: "deleted", tab: "chat" });
    renderApp();
    await screen.findByTestId("agent-item-writer");
    await waitFor(() => expect(preferences.lastPlace).toBeNull());
    expect(screen.queryByRole("heading", { level: 1, name: "Writer" })).toBeNull();
  });

  // The app's first moments: the page is up while the engine still opens (its first commands
  // wait for it), so a click can come before the place kept from last time is known.
  it.each([
    ["Spend", "nav-spend", "spend-page", JSON.stringify({ page: "spend" })],
    ["Home", "nav-home", "home", null],
  ])("a click on %s before the last place is known wins over it, and is kept", async (_, nav, page, place) => {
    seedAgent({ name: "Writer", handle: "writer" });
    preferences.lastPlace = JSON.stringify({ page: "settings" });
    const opened = engineStillOpening();
    renderApp();
    fireEvent.click(await screen.findByTestId(nav));
    await opened();
    await screen.findByTestId("agent-item-writer");
    expect(await screen.findByTestId(page)).toBeTruthy();
    await waitFor(() => expect(preferences.lastPlace).toBe(place));
    // Still there once the dust has settled: nothing took the window back to Settings.
    await act(() => new Promise((r) => setTimeout(r, 400)));
    expect(screen.getByTestId(page)).toBeTruthy();
    expect(preferences.lastPlace).toBe(place);
  });

  it("narrows the sidebar to icons with Ctrl+B or its button, names kept as hover titles", async () => {
    localStorage.removeItem("clawboo.sidebarCollapsed");
    seedAgent({ name: "Researcher", handle: "researcher" });
    const { user } = renderApp();
    const item = await screen.findByTestId("agent-item-researcher");
    expect(screen.getByTestId("sidebar").classList.contains("is-collapsed")).toBe(false);
    await user.keyboard("{Control>}b{/Control}");
    expect(screen.getByTestId("sidebar").classList.contains("is-collapsed")).toBe(true);
    expect(item.getAttribute("title")).toBe("Researcher @researcher");
    expect(item.textContent).toContain("R");
    expect(localStorage.getItem("clawboo.sidebarCollapsed")).toBe("true");
    await user.click(screen.getByTestId("sidebar-toggle"));
    expect(screen.getByTestId("sidebar").classList.contains("is-collapsed")).toBe(false);
    expect(localStorage.getItem("clawboo.sidebarCollapsed")).toBe("false");
    localStorage.removeItem("clawboo.sidebarCollapsed");
  });

  it("opens an agent on its Chat tab", async () => {
    seedAgent({ name: "Researcher", handle: "researcher" });
    seedAgent({ name: "Writer", handle: "writer" });
    const { user } = renderApp();
    await user.click(await screen.findByTestId("agent-item-researcher"));
    expect(screen.getByTestId("tab-chat").getAttribute("aria-selected")).toBe("true");
    expect(screen.getByTestId("chat-input")).toBeTruthy();
    expect(screen.queryByTestId("subtab-profile")).toBeNull();

    await user.click(screen.getByTestId("tab-details"));
    expect(screen.getByTestId("profile-name-input")).toBeTruthy();
    // Another agent opens on Chat again.
    await user.click(screen.getByTestId("agent-item-writer"));
    expect(screen.getByTestId("tab-chat").getAttribute("aria-selected")).toBe("true");
  });

  it("deletes an agent after an in-app confirmation", async () => {
    seedAgent({ name: "Researcher", handle: "researcher" });
    const { user } = renderApp();
    await openAgentProfile(user, "researcher");
    await user.click(screen.getByTestId("delete-agent-button"));

    const dialog = screen.getByRole("alertdialog");
    expect(dialog.textContent).toContain("Researcher");
    expect(dialog.textContent).toMatch(/folder and all of its files.*will be removed/);
    expect(fakeApi.deleteAgent).not.toHaveBeenCalled();

    await user.click(within(dialog).getByRole("button", { name: "Cancel" }));
    expect(screen.queryByRole("alertdialog")).toBeNull();

    await user.click(screen.getByTestId("delete-agent-button"));
    await user.click(screen.getByTestId("confirm-delete-button"));
    await waitFor(() => expect(screen.queryByTestId("agent-item-researcher")).toBeNull());
    expect(fakeApi.deleteAgent).toHaveBeenCalledTimes(1);
    expect(screen.queryByRole("alertdialog")).toBeNull();
  });
});
