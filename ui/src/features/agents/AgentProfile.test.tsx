import { beforeEach, describe, expect, it, vi } from "vitest";
import { screen, waitFor } from "@testing-library/react";
import { backend, fakeApi, resetBackend, seedAgent } from "../../test/fakeApi";
import { openAgentProfile, renderApp } from "../../test/helpers";

vi.mock("../../api", async () => (await import("../../test/fakeApi")).fakeApiModule);

beforeEach(() => resetBackend());

const unchanged = {
  name: null,
  handle: null,
  description: null,
  tint: null,
  runtime: null,
  model: null,
  approvalPolicy: null,
  provider: null,
  sandbox: null,
};

describe("Agent profile", () => {
  it("changes the approval policy", async () => {
    const agent = seedAgent({ name: "Researcher", handle: "researcher", approvalPolicy: "ask" });
    const { user } = renderApp();
    await openAgentProfile(user, "researcher");
    const approval = screen.getByTestId("profile-approval-select") as HTMLSelectElement;
    expect(approval.value).toBe("ask");
    expect(screen.queryByTestId("profile-provider-select")).toBeNull();

    await user.selectOptions(approval, "allow_all");
    await user.click(screen.getByTestId("save-profile-button"));
    await waitFor(() => expect(screen.getByRole("status").textContent).toBe("Saved"));
    expect(fakeApi.updateAgent).toHaveBeenCalledWith(agent.id, { ...unchanged, approvalPolicy: "allow_all" });
  });

  it("shows a Native agent's provider and changes it", async () => {
    const agent = seedAgent({ name: "Local", handle: "local", runtime: "native", provider: "openai" });
    const { user } = renderApp();
    await openAgentProfile(user, "local");
    const provider = screen.getByTestId("profile-provider-select") as HTMLSelectElement;
    expect(provider.value).toBe("openai");

    await user.selectOptions(provider, "custom");
    await user.click(screen.getByTestId("save-profile-button"));
    await waitFor(() => expect(fakeApi.updateAgent).toHaveBeenCalled());
    expect(fakeApi.updateAgent).toHaveBeenCalledWith(agent.id, { ...unchanged, provider: "custom" });
  });

  it("asks for a provider when switching to Native", async () => {
    const agent = seedAgent({ name: "Researcher", handle: "researcher" });
    const { user } = renderApp();
    await openAgentProfile(user, "researcher");
    await user.selectOptions(screen.getByTestId("profile-runtime-select"), "native");
    expect((screen.getByTestId("profile-provider-select") as HTMLSelectElement).value).toBe("anthropic");

    await user.click(screen.getByTestId("save-profile-button"));
    await waitFor(() => expect(fakeApi.updateAgent).toHaveBeenCalled());
    expect(fakeApi.updateAgent).toHaveBeenCalledWith(agent.id, {
      ...unchanged,
      runtime: "native",
      provider: "anthropic",
    });
  });

  it("says which access the agent's runtime uses", async () => {
    seedAgent({ name: "Coder", handle: "coder", runtime: "claude-code" });
    const { user } = renderApp();
    await openAgentProfile(user, "coder");
    expect((await screen.findByTestId("profile-access")).textContent).toBe(
      "Claude Code uses your own sign-in (~/.claude/.credentials.json). Change it in Settings > Runtimes.",
    );
  });

  it("shows why a Codex agent cannot run when neither a key nor a sign-in is there", async () => {
    backend.access = backend.access.map((a) => (a.kind === "codex" ? { ...a, choice: "own_sign_in" } : a));
    seedAgent({ name: "Pip", handle: "pip", runtime: "codex" });
    const { user } = renderApp();
    await openAgentProfile(user, "pip");
    expect((await screen.findByTestId("profile-access")).textContent).toContain("no sign-in was found in ~/.codex/auth.json");
  });

  it("says nothing about access for a Native agent", async () => {
    seedAgent({ name: "Local", handle: "local", runtime: "native", provider: "openai" });
    const { user } = renderApp();
    await openAgentProfile(user, "local");
    await screen.findByTestId("profile-provider-select");
    expect(screen.queryByTestId("profile-access")).toBeNull();
  });
});
