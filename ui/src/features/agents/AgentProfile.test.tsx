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

  it("says a Hermes agent runs on its provider's key, and on the user's own sign-in without one", async () => {
    backend.access.push({ kind: "hermes", choice: null, signInFound: true, place: "~/.hermes/auth.json" });
    seedAgent({ name: "Sage", handle: "sage", runtime: "hermes", provider: "openai" });
    const { user } = renderApp();
    await openAgentProfile(user, "sage");
    expect((await screen.findByTestId("profile-access")).textContent).toBe(
      "Hermes uses an API key from Clawboo (OpenAI), chosen automatically. Change it in Settings > Runtimes.",
    );
    // OpenRouter has no key here: the choice follows the provider picked on the form.
    await user.selectOptions(screen.getByTestId("profile-provider-select"), "openrouter");
    await waitFor(() =>
      expect(screen.getByTestId("profile-access").textContent).toBe(
        "Hermes uses your own sign-in (~/.hermes/auth.json): its requests go to the provider you signed in to, not to a provider picked here, chosen automatically. Change it in Settings > Runtimes.",
      ),
    );
  });

  it("shows the fix when a Hermes agent has neither a key nor a sign-in", async () => {
    backend.access.push({ kind: "hermes", choice: null, signInFound: false, place: "~/.hermes/auth.json" });
    seedAgent({ name: "Sage", handle: "sage", runtime: "hermes", provider: "openrouter" });
    const { user } = renderApp();
    await openAgentProfile(user, "sage");
    const note = await screen.findByTestId("profile-access");
    expect(note.textContent).toContain("none was found in ~/.hermes/auth.json: run `hermes model` once in a terminal");
    expect(note.className).toBe("runtime__problem");
  });

  it("says nothing about access for a Native agent", async () => {
    seedAgent({ name: "Local", handle: "local", runtime: "native", provider: "openai" });
    const { user } = renderApp();
    await openAgentProfile(user, "local");
    await screen.findByTestId("profile-provider-select");
    expect(screen.queryByTestId("profile-access")).toBeNull();
  });
});
