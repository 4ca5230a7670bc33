import { beforeEach, describe, expect, it, vi } from "vitest";
import { act, screen, waitFor, within } from "@testing-library/react";
import { ClawbooError } from "./errors";
import { fakeApi, resetBackend, seedAgent } from "./test/fakeApi";
import { emit, listenerCount } from "./test/fakeEvents";
import { openAgentProfile, renderApp } from "./test/helpers";
import { preferences } from "./test/fakePreferences";

vi.mock("./api", async () => (await import("./test/fakeApi")).fakeApiModule);

beforeEach(() => resetBackend());

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
