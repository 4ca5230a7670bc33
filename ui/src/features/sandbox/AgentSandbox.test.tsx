import { beforeEach, describe, expect, it, vi } from "vitest";
import { screen, waitFor, within } from "@testing-library/react";
import type { Agent, SandboxSettings } from "../../bindings";
import { ClawbooError } from "../../errors";
import {
  backend,
  emitRunEvent,
  fakeApi,
  finishRun,
  resetBackend,
  seedAgent,
  seedMessage,
  seedRoomMessage,
  seedRun,
  seedTeam,
} from "../../test/fakeApi";
import { backendDoes, openAgentProfile, openChat, renderApp } from "../../test/helpers";
import { UNCONFINED_TOOLTIP } from "./sandbox";

vi.mock("../../api", async () => (await import("../../test/fakeApi")).fakeApiModule);

const untouched = {
  name: null,
  handle: null,
  description: null,
  tint: null,
  runtime: null,
  model: null,
  approvalPolicy: null,
  provider: null,
};

const sandboxSaved = (agent: Agent, sandbox: SandboxSettings) =>
  expect(fakeApi.updateAgent).toHaveBeenLastCalledWith(agent.id, { ...untouched, sandbox });

const section = () => within(screen.getByTestId("sandbox-fields"));
const hostsInput = () => section().getByTestId("sandbox-hosts-input") as HTMLTextAreaElement;
const saveButton = () => section().getByTestId("save-sandbox-button") as HTMLButtonElement;

let agent: Agent;

beforeEach(() => {
  resetBackend();
  agent = seedAgent({ name: "Researcher", handle: "researcher" });
});

describe("Sandbox section: Network", () => {
  it("starts on Clawboo only and saves each choice, with the host list", async () => {
    const { user } = renderApp();
    await openAgentProfile(user, "researcher");
    expect((section().getByTestId("sandbox-network-clawboo_only") as HTMLInputElement).checked).toBe(true);
    expect(section().queryByTestId("sandbox-hosts-input")).toBeNull();
    expect(saveButton().disabled).toBe(true);

    // These hosts: typed, plus the suggested ones a click away.
    await user.click(section().getByTestId("sandbox-network-hosts"));
    expect(saveButton().disabled).toBe(true); // no host listed yet
    await user.type(hostsInput(), "Example.com{Enter}*.internal.dev");
    await user.click(await section().findByTestId("sandbox-add-npm"));
    await user.click(section().getByTestId("sandbox-add-PyPI"));
    expect(hostsInput().value).toBe("Example.com\n*.internal.dev\nregistry.npmjs.org\npypi.org\nfiles.pythonhosted.org");
    expect(section().getByTestId("sandbox-add-npm").textContent).toBe("npm added");
    expect((section().getByTestId("sandbox-add-npm") as HTMLButtonElement).disabled).toBe(true);
    expect(section().getByTestId("sandbox-add-GitHub").textContent).toBe("Add GitHub");
    await user.click(saveButton());
    await waitFor(() => expect(section().getByTestId("sandbox-saved").textContent).toBe("Saved"));
    sandboxSaved(agent, {
      confined: true,
      network: "hosts",
      allowedHosts: ["Example.com", "*.internal.dev", "registry.npmjs.org", "pypi.org", "files.pythonhosted.org"],
    });
    // The engine's normalised list comes back.
    expect(hostsInput().value).toBe("example.com\n*.internal.dev\nregistry.npmjs.org\npypi.org\nfiles.pythonhosted.org");
    expect(backend.agents[0].sandbox.network).toBe("hosts");

    // Any host keeps the list for later.
    await user.click(section().getByTestId("sandbox-network-any"));
    expect(section().queryByTestId("sandbox-hosts-input")).toBeNull();
    await user.click(saveButton());
    await waitFor(() => expect(fakeApi.updateAgent).toHaveBeenCalledTimes(2));
    sandboxSaved(agent, {
      confined: true,
      network: "any",
      allowedHosts: ["example.com", "*.internal.dev", "registry.npmjs.org", "pypi.org", "files.pythonhosted.org"],
    });

    await user.click(section().getByTestId("sandbox-network-clawboo_only"));
    await user.click(saveButton());
    await waitFor(() => expect(fakeApi.updateAgent).toHaveBeenCalledTimes(3));
    expect(backend.agents[0].sandbox.network).toBe("clawboo_only");
    // The profile's own Save is untouched by the section.
    expect((screen.getByTestId("save-profile-button") as HTMLButtonElement).disabled).toBe(true);
  });

  it("shows the engine's refusal of a host by the list, and keeps the edit", async () => {
    const { user } = renderApp();
    await openAgentProfile(user, "researcher");
    await user.click(section().getByTestId("sandbox-network-hosts"));
    await user.type(hostsInput(), "https://pypi.org/simple");
    await user.click(saveButton());

    expect((await section().findByTestId("sandbox-hosts-error")).textContent).toBe(
      "“https://pypi.org/simple” is not a host name; write it like registry.npmjs.org or *.example.com (no https://, path or port).",
    );
    expect(hostsInput().getAttribute("aria-invalid")).toBe("true");
    expect(hostsInput().value).toBe("https://pypi.org/simple");
    expect(backend.agents[0].sandbox.network).toBe("clawboo_only");

    // Editing clears it; a good host saves.
    await user.clear(hostsInput());
    expect(section().queryByTestId("sandbox-hosts-error")).toBeNull();
    await user.type(hostsInput(), "pypi.org");
    await user.click(saveButton());
    await waitFor(() => expect(backend.agents[0].sandbox).toEqual({ confined: true, network: "hosts", allowedHosts: ["pypi.org"] }));
  });

  it("says plainly that agents are not sandboxed on an OS without the sandbox", async () => {
    backend.sandboxInfo = { supported: false, os: "windows", suggestedHosts: [] };
    const { user } = renderApp();
    await openAgentProfile(user, "researcher");
    expect((await screen.findByTestId("sandbox-unsupported")).textContent).toContain(
      "Agents are not sandboxed on this OS (Windows)",
    );
    expect(screen.queryByTestId("sandbox-network")).toBeNull();
    expect(screen.queryByTestId("sandbox-unconfined-switch")).toBeNull();
  });
});

describe("Sandbox section: running without it", () => {
  it("asks before turning the sandbox off, then shows the badge; turning it on again asks nothing", async () => {
    const { user } = renderApp();
    await openAgentProfile(user, "researcher");
    const toggle = () => section().getByTestId("sandbox-unconfined-switch") as HTMLInputElement;
    expect(toggle().checked).toBe(false);

    // Cancel keeps the sandbox.
    await user.click(toggle());
    let dialog = within(screen.getByTestId("confirm-dialog"));
    expect(dialog.getByRole("heading").textContent).toBe("Run @researcher without the sandbox?");
    expect(screen.getByTestId("confirm-dialog").textContent).toContain("runs with your whole account");
    await user.click(dialog.getByTestId("cancel-unconfined"));
    expect(screen.queryByTestId("confirm-dialog")).toBeNull();
    expect(fakeApi.updateAgent).not.toHaveBeenCalled();
    expect(toggle().checked).toBe(false);
    expect(screen.queryByTestId("unconfined-badge")).toBeNull();

    // Confirm turns it off.
    await user.click(toggle());
    dialog = within(screen.getByTestId("confirm-dialog"));
    await user.click(dialog.getByTestId("confirm-unconfined"));
    await waitFor(() => expect(screen.queryByTestId("confirm-dialog")).toBeNull());
    sandboxSaved(agent, { confined: false, network: "clawboo_only", allowedHosts: [] });
    expect(toggle().checked).toBe(true);
    // The header and the sidebar say so; the Network setting waits for the sandbox.
    await waitFor(() => expect(screen.getAllByTestId("unconfined-badge")).toHaveLength(2));
    expect(within(screen.getByRole("heading", { level: 1 })).getByTestId("unconfined-badge")).toBeTruthy();
    expect(within(screen.getByTestId("agent-item-researcher")).getByTestId("unconfined-badge")).toBeTruthy();
    expect((section().getByTestId("sandbox-network-any") as HTMLInputElement).disabled).toBe(true);

    // Back on: no question.
    await user.click(toggle());
    expect(screen.queryByTestId("confirm-dialog")).toBeNull();
    await waitFor(() => expect(toggle().checked).toBe(false));
    sandboxSaved(agent, { confined: true, network: "clawboo_only", allowedHosts: [] });
    await waitFor(() => expect(screen.queryByTestId("unconfined-badge")).toBeNull());
  });
});

describe("Unconfined badge", () => {
  it("shows only beside agents whose sandbox is off: sidebar, header, team members, room chat", async () => {
    const free = seedAgent({
      name: "Free",
      handle: "free",
      sandbox: { confined: false, network: "clawboo_only", allowedHosts: [] },
    });
    seedAgent({ name: "Wide", handle: "wide", sandbox: { confined: true, network: "any", allowedHosts: [] } });
    const team = seedTeam({ name: "Crew", memberIds: [agent.id, free.id], aboutYou: "Me" });
    const general = team.rooms[0].id;
    seedRoomMessage(general, { kind: "reply", content: "On it.", authorId: agent.id });
    seedRoomMessage(general, { kind: "reply", content: "Done.", authorId: free.id });
    const { user } = renderApp();

    const badges = async (testId: string) => within(await screen.findByTestId(testId)).queryAllByTestId("unconfined-badge");
    expect(await badges("agent-item-free")).toHaveLength(1);
    expect(await badges("agent-item-researcher")).toHaveLength(0);
    expect(await badges("agent-item-wide")).toHaveLength(0);
    const badge = within(screen.getByTestId("agent-item-free")).getByTestId("unconfined-badge");
    expect(badge.textContent).toBe("unconfined");
    expect(badge.getAttribute("title")).toBe(UNCONFINED_TOOLTIP);

    await user.click(screen.getByTestId("agent-item-wide"));
    expect(within(screen.getByRole("heading", { level: 1 })).queryByTestId("unconfined-badge")).toBeNull();
    await user.click(screen.getByTestId("agent-item-free"));
    expect(within(screen.getByRole("heading", { level: 1 })).getByTestId("unconfined-badge")).toBeTruthy();

    await user.click(screen.getByTestId("team-item-Crew"));
    const members = within(await screen.findByTestId("team-member-list")).getAllByRole("listitem");
    expect(members.map((m) => [m.textContent?.includes("@free"), !!within(m).queryByTestId("unconfined-badge")])).toEqual([
      [false, false],
      [true, true],
    ]);
    const replies = await screen.findAllByTestId("room-message-reply");
    expect(replies.map((r) => !!within(r).queryByTestId("unconfined-badge"))).toEqual([false, true]);
  });
});

describe("Sandbox in the chat", () => {
  it("shows a host the sandbox blocked as its own line, the host emphasised, with the way to the Network setting", async () => {
    seedMessage(agent.id, "user", "Install the deps");
    const run = seedRun(agent.id);
    const { user } = renderApp();
    await openChat(user, "researcher");
    await waitFor(() => expect(fakeApi.runActivity).toHaveBeenCalledWith(run.id));
    await backendDoes(() => {
      emitRunEvent(agent.id, run.id, {
        type: "warning",
        message: "Blocked by Clawboo's sandbox: evil.example.com:443 (allow it under the agent's Network setting)",
      });
      emitRunEvent(agent.id, run.id, { type: "warning", message: "Context is 90% full." });
    });

    const card = within(screen.getByTestId("activity-card"));
    const line = card.getByTestId("activity-blocked");
    expect(line.querySelector("svg")).not.toBeNull();
    expect(within(line).getByTestId("blocked-host").textContent).toBe("evil.example.com");
    expect(within(line).getByTestId("blocked-host").tagName).toBe("STRONG");
    expect(line.textContent).toContain("Blocked by Clawboo's sandbox: evil.example.com:443");
    // An ordinary warning stays a warning.
    expect(card.getAllByTestId("activity-warning").map((w) => w.textContent)).toEqual(["Context is 90% full."]);

    await user.click(within(line).getByTestId("blocked-open-sandbox"));
    expect(screen.getByTestId("tab-details").getAttribute("aria-selected")).toBe("true");
    expect(screen.getByTestId("subtab-profile").getAttribute("aria-selected")).toBe("true");
    expect(screen.getByTestId("sandbox-fields")).toBe(document.activeElement);
  });

  it("shows sandbox_unavailable with its fix and a way to the Sandbox settings", async () => {
    fakeApi.sendChatMessage.mockRejectedValueOnce(
      new ClawbooError(
        "sandbox_unavailable",
        "Clawboo's sandbox needs bubblewrap (bwrap), which is not installed. Install bubblewrap (Debian/Ubuntu: sudo apt install bubblewrap).",
      ),
    );
    const { user } = renderApp();
    await openChat(user, "researcher");
    await user.type(screen.getByTestId("chat-input"), "Hello{Enter}");

    const shown = await screen.findByTestId("sandbox-unavailable");
    expect(within(shown).getByTestId("error-code").textContent).toBe("sandbox_unavailable");
    expect(shown.textContent).toContain("sudo apt install bubblewrap");
    await user.click(within(shown).getByTestId("open-sandbox-settings"));
    expect(await screen.findByTestId("sandbox-fields")).toBe(document.activeElement);
  });

  it.each([
    ["for its sandbox", "bubblewrap cannot make a sandbox on this system (setting up uid map: Permission denied).", true],
    ["for another reason", "Claude Code exited with status 1: not logged in", false],
  ])("offers the Sandbox settings under a run that failed %s", async (_, error, offered) => {
    seedMessage(agent.id, "user", "Go");
    seedRun(agent.id);
    const { user } = renderApp();
    await openChat(user, "researcher");
    await backendDoes(() => finishRun(agent.id, "failed", null, error));
    const notice = await screen.findByTestId("run-error");
    expect(notice.textContent).toContain(error);
    expect(!!within(notice).queryByTestId("open-sandbox-settings")).toBe(offered);
  });
});
