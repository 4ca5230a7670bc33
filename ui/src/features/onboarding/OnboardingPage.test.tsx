import { beforeEach, describe, expect, it, vi } from "vitest";
import { act, fireEvent, screen, waitFor, within } from "@testing-library/react";
import { backend, fakeApi, resetBackend, seedAgent, seedTeam } from "../../test/fakeApi";
import { onboarding } from "../../test/fakeOnboarding";
import { seedBooZero } from "../../test/fakeBooZero";
import { renderApp } from "../../test/helpers";
import type { RuntimeInfo, RuntimeKind, StarterProposal } from "../../bindings";

vi.mock("../../api", async () => (await import("../../test/fakeApi")).fakeApiModule);

const info = (kind: RuntimeKind, label: string, version: string | null, installHint = ""): RuntimeInfo => ({
  kind,
  label,
  found: version !== null,
  path: version ? `/usr/bin/${kind}` : null,
  version,
  customPath: null,
  installHint,
  problem: null,
});

const NOTHING: StarterProposal = {
  ready: false,
  teamName: "Starter team",
  members: [],
  providers: [],
  runtimes: [],
  missing: [
    { kind: "claude-code", label: "Claude Code", reason: "not installed", fix: "npm install -g @anthropic-ai/claude-code" },
    { kind: "native", label: "Native", reason: "no API key stored", fix: "Add an API key in Settings > API keys." },
  ],
  needsModel: false,
};

const WITH_CLI: StarterProposal = {
  ready: true,
  teamName: "Starter team",
  providers: [],
  runtimes: ["claude-code"],
  missing: [],
  needsModel: false,
  members: [
    { role: "leader", name: "Boo Zero", handle: "boo", runtime: "claude-code", provider: null, model: "", existingAgentId: "boo-id" },
    { role: "researcher", name: "Researcher", handle: "researcher", runtime: "claude-code", provider: null, model: "", existingAgentId: null },
    { role: "builder", name: "Builder", handle: "builder", runtime: "claude-code", provider: null, model: "", existingAgentId: null },
  ],
};

function release(kind: RuntimeKind, answer: RuntimeInfo) {
  onboarding.pending.get(kind)?.(answer);
}

beforeEach(() => {
  resetBackend();
  const boo = seedAgent({ name: "Boo Zero", handle: "boo" });
  seedBooZero(boo.id);
  onboarding.state = { firstRun: true, finished: false, starterTeamId: null };
});

describe("the first-run page", () => {
  it("shows each runtime as its search ends, then the team proposed, and lands in its chat once made", async () => {
    onboarding.proposal = WITH_CLI;
    onboarding.made = (input) => {
      const team = seedTeam({ name: input.teamName ?? "Starter team", memberIds: [], aboutYou: input.aboutYou ?? "" });
      return team;
    };
    const { user } = renderApp();
    await screen.findByTestId("onboarding");
    await waitFor(() => expect(onboarding.pending.size).toBe(4));
    expect(screen.getByTestId("onboarding-progress").textContent).toBe("Looking for runtimes… 0 of 4 checked");

    await act(async () => release("claude-code", info("claude-code", "Claude Code", "2.1.3")));
    expect(screen.getByTestId("onboarding-runtime-claude-code").textContent).toContain("2.1.3 found");
    expect(screen.getByTestId("onboarding-runtime-codex").textContent).toContain("Looking…");
    expect(screen.getByTestId("onboarding-progress").textContent).toContain("1 of 4 checked");
    // No proposal is asked for while the search goes on.
    expect(fakeApi.starterTeamProposal).not.toHaveBeenCalled();

    await act(async () => {
      release("codex", info("codex", "Codex", null, "npm install -g @openai/codex"));
      release("hermes", info("hermes", "Hermes", null, "pipx install 'hermes-agent[acp]'"));
      release("openclaw", info("openclaw", "OpenClaw", null, "npm install -g openclaw"));
    });
    expect(screen.getByTestId("onboarding-runtime-codex").textContent).toContain("npm install -g @openai/codex");
    const proposal = await screen.findByTestId("onboarding-proposal");
    expect(within(proposal).getByTestId("onboarding-member-leader").textContent).toContain("Boo Zero");
    expect(within(proposal).getByTestId("onboarding-member-builder").textContent).toContain("Claude Code");

    const name = screen.getByTestId("onboarding-team-name");
    await user.clear(name);
    await user.type(name, "Tea shop");
    await user.type(screen.getByTestId("onboarding-about-you"), "I am Ada.");
    await user.click(screen.getByTestId("onboarding-create"));
    expect(fakeApi.createStarterTeam.mock.calls[0][0]).toEqual({ teamName: "Tea shop", model: null, aboutYou: "I am Ada." });
    // The team's page, its chat ready: About you was given.
    await screen.findByTestId("chat-input");
    expect(screen.queryByTestId("onboarding")).toBeNull();
  });

  it("with nothing available says how to get a runtime, opens Settings, and Skip leaves for good", async () => {
    onboarding.proposal = NOTHING;
    for (const p of backend.providers) p.keySet = false;
    for (const kind of ["claude-code", "codex", "hermes", "openclaw"] as RuntimeKind[]) {
      onboarding.runtimes.set(kind, info(kind, kind, null, `install ${kind}`));
    }
    const { user } = renderApp();
    const nothing = await screen.findByTestId("onboarding-nothing");
    // The runtimes are listed once (step 1), each install command with its Copy button.
    expect(within(nothing).queryByTestId("onboarding-missing-claude-code")).toBeNull();
    const claude = screen.getByTestId("onboarding-runtime-claude-code");
    expect(claude.textContent).toContain("install claude-code");
    expect(within(claude).getByTestId("copy-command").textContent).toBe("Copy");
    expect(screen.getByTestId("onboarding-keys").textContent).toContain("No API key stored");
    expect(screen.queryByTestId("onboarding-create")).toBeNull();
    // One button adds a key.
    expect(screen.getAllByRole("button").filter((b) => /key/i.test(b.textContent ?? ""))).toHaveLength(1);

    await user.click(screen.getByTestId("onboarding-add-key"));
    await screen.findByTestId("settings-api-keys");
    // Settings leads back to setting up.
    await user.click(screen.getByTestId("back-to-setup-button"));
    await screen.findByTestId("onboarding-nothing");
    // Settings opens the page again, too (no banner then: it was not opened from setup).
    await user.click(screen.getByTestId("settings-link"));
    expect(screen.queryByTestId("back-to-setup")).toBeNull();
    await user.click(await screen.findByTestId("setup-starter-team"));
    await screen.findByTestId("onboarding-nothing");

    await user.click(screen.getByTestId("onboarding-skip"));
    await waitFor(() => expect(screen.queryByTestId("onboarding")).toBeNull());
    expect(fakeApi.finishOnboarding).toHaveBeenCalled();
    // The usual app: the welcome page, the sidebar.
    expect(screen.getByTestId("new-agent-button")).toBeTruthy();
  });

  it("opened again from Settings once the starter team is made, shows that team and opens it", async () => {
    const researcher = seedAgent({ name: "Researcher", handle: "researcher" });
    const team = seedTeam({ name: "Tea shop", memberIds: [researcher.id] });
    onboarding.state = { firstRun: false, finished: true, starterTeamId: team.id };
    onboarding.proposal = WITH_CLI;
    const { user } = renderApp();
    await user.click(await screen.findByTestId("settings-link"));
    await user.click(await screen.findByTestId("setup-starter-team"));
    const existing = await screen.findByTestId("onboarding-existing");
    expect(existing.textContent).toContain("Tea shop");
    expect(existing.textContent).toContain("@researcher");
    // No second proposal (with fresh handles like @researcher-2) to fill in for nothing.
    expect(screen.queryByTestId("onboarding-create")).toBeNull();
    expect(screen.queryByTestId("onboarding-proposal")).toBeNull();

    await user.click(screen.getByTestId("onboarding-open-existing"));
    await waitFor(() => expect(screen.queryByTestId("onboarding")).toBeNull());
    expect((await screen.findByTestId("team-name")).textContent).toContain("Tea shop");
    expect(fakeApi.createStarterTeam).not.toHaveBeenCalled();
  });

  it("is not shown once the user has a team", async () => {
    seedTeam({ name: "Mine", memberIds: [] });
    renderApp();
    await screen.findByTestId("team-item-Mine");
    expect(screen.queryByTestId("onboarding")).toBeNull();
  });
});

describe("keyboard shortcuts", () => {
  beforeEach(() => {
    onboarding.state = { firstRun: false, finished: true, starterTeamId: null };
  });

  it("? opens the sheet outside a text field, Esc closes it; the sidebar button opens it too", async () => {
    const { user } = renderApp();
    await screen.findByTestId("new-agent-button");
    fireEvent.keyDown(document.body, { key: "?" });
    const sheet = await screen.findByTestId("shortcuts-sheet");
    expect(sheet.textContent).toContain("New agent");
    expect(sheet.textContent).toContain("Save the file");
    fireEvent.keyDown(document, { key: "Escape" });
    await waitFor(() => expect(screen.queryByTestId("shortcuts-sheet")).toBeNull());

    await user.click(screen.getByTestId("shortcuts-button"));
    await screen.findByTestId("shortcuts-sheet");
    await user.click(screen.getByTestId("shortcuts-close"));
    await waitFor(() => expect(screen.queryByTestId("shortcuts-sheet")).toBeNull());
  });

  it("? typed in a field is text; Ctrl+, opens Settings and Ctrl+N a new agent", async () => {
    const { user } = renderApp();
    await user.click(await screen.findByTestId("new-team-button"));
    const input = await screen.findByTestId("team-name-input");
    fireEvent.keyDown(input, { key: "?" });
    expect(screen.queryByTestId("shortcuts-sheet")).toBeNull();
    fireEvent.keyDown(document, { key: "Escape" });
    await waitFor(() => expect(screen.queryByTestId("team-name-input")).toBeNull());

    fireEvent.keyDown(document.body, { key: ",", ctrlKey: true });
    await screen.findByTestId("settings-api-keys");
    fireEvent.keyDown(document.body, { key: "n", ctrlKey: true });
    await screen.findByTestId("agent-name-input");
  });
});
