import { beforeEach, describe, expect, it, vi } from "vitest";
import { screen, waitFor, within } from "@testing-library/react";
import { ClawbooError } from "../../errors";
import { backend, fakeApi, resetBackend, seedAgent } from "../../test/fakeApi";
import { attention, seedRequest } from "../../test/fakeAttention";
import { renderApp } from "../../test/helpers";
import { board } from "../../test/fakeBoard";
import { runSpend, spend } from "../../test/fakeSpend";
import { fakeLogsApi, logs } from "../../test/fakeLogs";
import { preferences } from "../../test/fakePreferences";

vi.mock("../../api", async () => (await import("../../test/fakeApi")).fakeApiModule);

beforeEach(() => resetBackend());

async function openSettings() {
  const { user } = renderApp();
  await user.click(screen.getByTestId("settings-link"));
  await screen.findByTestId("provider-anthropic");
  return { user };
}

describe("Settings", () => {
  it("lists task-runner traces with tiers, tokens and outcome, each opening to its context", async () => {
    board.traces = [
      {
        runId: "run-2", cardId: "c1", cardNumber: 7, cardTitle: "Write the copy", agentHandle: "ava", runtime: "native",
        attempt: 2, kind: "rotation", status: "succeeded", reason: null, startedAt: 1_000, finishedAt: 4_500,
        steadyChars: 1_200, contextChars: 800, changingChars: 300, cited: 2,
        inputTokens: 12_000, outputTokens: 400, cacheReadTokens: 9_000, cacheWriteTokens: 0, costUsd: 0.5,
      },
      {
        runId: "run-1", cardId: "c1", cardNumber: 7, cardTitle: "Write the copy", agentHandle: "ava", runtime: "native",
        attempt: 1, kind: "run", status: "failed", reason: "checks failed", startedAt: 500, finishedAt: 900,
        steadyChars: 1_200, contextChars: 800, changingChars: 300, cited: 0,
        inputTokens: 2_000, outputTokens: 100, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0.9,
      },
    ];
    // The CLI's own figure (costUsd) is not what shows: the engine's count does.
    spend.runs = [
      runSpend({ runId: "run-2", billing: "subscription", runtime: "claude-code", inputTokens: 12_000, outputTokens: 400 }),
      runSpend({ runId: "run-1", inputTokens: 2_000, outputTokens: 100, costMicros: 7_500 }),
    ];
    const { user } = await openSettings();
    const row = await screen.findByTestId("trace-run-2");
    expect(row.textContent).toContain("#7 Write the copy");
    expect(row.textContent).toContain("2 · rotation");
    expect(row.textContent).toContain("1,200 / 800 / 300 · 2 facts");
    expect(row.textContent).toContain("9,000 cached");
    expect(row.textContent).toContain("3.5 s");
    // What it cost as the engine counted it (a run on the user's own sign-in: no money).
    await waitFor(() => expect(screen.getByTestId("trace-cost-run-2").textContent).toBe("on your subscription"));
    expect(screen.getByTestId("trace-cost-run-1").textContent).toBe("$0.0075");
    await user.click(screen.getByTestId("trace-open-run-2"));
    expect(await screen.findByTestId("task-run-context")).toBeTruthy();
  });

  it("sets how many Board cards run at once, refusing what the engine refuses", async () => {
    const { user } = await openSettings();
    const input = await screen.findByTestId("runner-max-concurrent");
    expect((input as HTMLInputElement).value).toBe("4");
    await user.clear(input);
    await user.type(input, "40");
    await user.click(screen.getByTestId("runner-save"));
    expect((await screen.findAllByTestId("error-message")).some((e) => e.textContent?.includes("1 to 32"))).toBe(true);
    await user.clear(input);
    await user.type(input, "2");
    await user.click(screen.getByTestId("runner-save"));
    await waitFor(() => expect(board.settings.maxConcurrent).toBe(2));
  });

  it("sets how much Clawboo logs, from errors only to every step", async () => {
    const { user } = await openSettings();
    const select = (await screen.findByTestId("log-level")) as HTMLSelectElement;
    expect(select.value).toBe("info");
    expect(within(screen.getByTestId("log-settings")).getByText("logs/clawboo.log")).toBeTruthy();
    await user.selectOptions(select, "debug");
    await waitFor(() => expect(logs.level).toBe("debug"));
    expect(fakeLogsApi.setLogLevel).toHaveBeenCalledWith("debug");
    expect((await screen.findByTestId("log-level-saved")).textContent).toContain("applies now");
    expect(select.value).toBe("debug");
  });

  it("switches the theme at once and keeps it; System follows the system again", async () => {
    const { user } = await openSettings();
    const system = (await screen.findByTestId("theme-system")) as HTMLInputElement;
    expect(system.checked).toBe(true);
    await user.click(screen.getByTestId("theme-light"));
    expect(document.documentElement.dataset.theme).toBe("light");
    await waitFor(() => expect(preferences.theme).toBe("light"));
    await user.click(screen.getByTestId("theme-dark"));
    expect(document.documentElement.dataset.theme).toBe("dark");
    await waitFor(() => expect(preferences.theme).toBe("dark"));
    // jsdom has no media queries: the system counts as dark there.
    await user.click(system);
    await waitFor(() => expect(preferences.theme).toBe("system"));
    expect((screen.getByTestId("theme-system") as HTMLInputElement).checked).toBe(true);
  });

  it("shows each provider's key status and the app info", async () => {
    await openSettings();
    expect(screen.getByTestId("key-status-anthropic").textContent).toBe("Not set");
    expect(screen.getByTestId("key-status-openai").textContent).toBe("Key set");
    expect(screen.getByTestId("key-status-openrouter").textContent).toBe("Not set");
    expect(screen.getByTestId("key-status-custom").textContent).toBe("Not set");
    // Remove is offered only where a key is set.
    expect(within(screen.getByTestId("provider-openai")).getByRole("button", { name: "Remove" })).toBeTruthy();
    expect(within(screen.getByTestId("provider-anthropic")).queryByRole("button", { name: "Remove" })).toBeNull();

    expect((await screen.findByTestId("app-version")).textContent).toBe("0.1.0");
    expect(screen.getByTestId("app-data-dir").textContent).toBe("/home/test/.clawboo");
  });

  it("saves a key, clears the input and never renders the key", async () => {
    const { user } = await openSettings();
    const secret = "sk-ant-very-secret-123";
    const input = screen.getByTestId("key-input-anthropic") as HTMLInputElement;
    expect(input.type).toBe("password");

    await user.type(input, secret);
    await user.click(screen.getByTestId("save-key-anthropic"));

    expect(fakeApi.setApiKey).toHaveBeenCalledWith("anthropic", secret);
    expect(input.value).toBe("");
    await waitFor(() => expect(screen.getByTestId("key-status-anthropic").textContent).toBe("Key set"));
    expect(document.body.innerHTML).not.toContain(secret);
    expect([...document.querySelectorAll("input")].some((i) => i.value.includes(secret))).toBe(false);
  });

  it("removes a key", async () => {
    const { user } = await openSettings();
    await user.click(within(screen.getByTestId("provider-openai")).getByRole("button", { name: "Remove" }));
    expect(fakeApi.deleteApiKey).toHaveBeenCalledWith("openai");
    await waitFor(() => expect(screen.getByTestId("key-status-openai").textContent).toBe("Not set"));
  });

  it("saves and resets a provider's base URL", async () => {
    const { user } = await openSettings();
    const row = within(screen.getByTestId("provider-custom"));
    await user.type(row.getByTestId("base-url-input-custom"), "https://llm.example.com/v1");
    await user.click(row.getByTestId("save-base-url-custom"));
    expect(fakeApi.setBaseUrl).toHaveBeenCalledWith("custom", "https://llm.example.com/v1");
    await waitFor(() =>
      expect(backend.providers.find((p) => p.provider === "custom")?.baseUrl).toBe("https://llm.example.com/v1"),
    );

    await user.click(row.getByTestId("reset-base-url-custom"));
    expect(fakeApi.setBaseUrl).toHaveBeenLastCalledWith("custom", null);
    await waitFor(() => expect((row.getByTestId("base-url-input-custom") as HTMLInputElement).value).toBe(""));
  });

  it("offers a base URL for every provider, prefilled with the current one", async () => {
    const { user } = await openSettings();
    for (const provider of ["anthropic", "openai", "openrouter", "custom"]) {
      expect(screen.getByTestId(`base-url-input-${provider}`)).toBeTruthy();
    }
    const input = screen.getByTestId("base-url-input-openai") as HTMLInputElement;
    expect(input.value).toBe("https://api.openai.com/v1");
    expect(input.placeholder).toBe("https://api.openai.com/v1");

    await user.clear(input);
    await user.type(input, "https://proxy.local/v1");
    await user.click(screen.getByTestId("save-base-url-openai"));
    expect(fakeApi.setBaseUrl).toHaveBeenCalledWith("openai", "https://proxy.local/v1");
    await waitFor(() => expect(backend.providers.find((p) => p.provider === "openai")?.baseUrl).toBe(
      "https://proxy.local/v1",
    ));

    await user.click(screen.getByTestId("reset-base-url-openai"));
    expect(fakeApi.setBaseUrl).toHaveBeenLastCalledWith("openai", null);
    // The default comes back into the field.
    await waitFor(() => expect(input.value).toBe("https://api.openai.com/v1"));
  });

  it("shows a failing command's message", async () => {
    fakeApi.setApiKey.mockRejectedValueOnce(
      new ClawbooError("keychain_unavailable", "No system keychain is available."),
    );
    const { user } = await openSettings();
    await user.type(screen.getByTestId("key-input-openrouter"), "or-key");
    await user.click(screen.getByTestId("save-key-openrouter"));
    const error = await within(screen.getByTestId("provider-openrouter")).findByTestId("error-message");
    expect(error.textContent).toBe("No system keychain is available.");
    expect(screen.getByTestId("key-status-openrouter").textContent).toBe("Not set");
    expect(document.body.innerHTML).not.toContain("or-key");
  });
});

describe("Settings > Runtimes", () => {
  it("shows which runtimes were found, with path and version, or how to install them", async () => {
    await openSettings();
    const found = await screen.findByTestId("runtime-claude-code");
    expect(screen.getByTestId("runtime-status-claude-code").textContent).toBe("Found");
    expect(found.textContent).toContain("Claude Code");
    expect(found.textContent).toContain("/usr/local/bin/claude-code");
    expect(found.textContent).toContain("1.0.0");

    const missing = screen.getByTestId("runtime-codex");
    expect(screen.getByTestId("runtime-status-codex").textContent).toBe("Not found");
    expect(missing.textContent).toContain("npm install -g @openai/codex");
    // The runtimes come before the API keys.
    expect(found.compareDocumentPosition(screen.getByTestId("provider-anthropic")) & Node.DOCUMENT_POSITION_FOLLOWING)
      .toBeTruthy();
  });

  it("sets a path by hand and goes back to automatic detection", async () => {
    const { user } = await openSettings();
    const input = (await screen.findByTestId("runtime-path-codex")) as HTMLInputElement;
    expect(screen.queryByTestId("clear-runtime-path-codex")).toBeNull();

    await user.type(input, "/opt/codex/bin/codex");
    await user.click(screen.getByTestId("save-runtime-path-codex"));
    expect(fakeApi.setRuntimePath).toHaveBeenCalledWith("codex", "/opt/codex/bin/codex");
    await waitFor(() => expect(screen.getByTestId("runtime-status-codex").textContent).toBe("Found"));
    expect(screen.getByTestId("runtime-codex").textContent).toContain("/opt/codex/bin/codex");
    expect(input.value).toBe("/opt/codex/bin/codex");

    await user.click(screen.getByTestId("clear-runtime-path-codex"));
    expect(fakeApi.setRuntimePath).toHaveBeenLastCalledWith("codex", null);
    await waitFor(() => expect(screen.getByTestId("runtime-status-codex").textContent).toBe("Not found"));
    expect(input.value).toBe("");
    expect(screen.queryByTestId("clear-runtime-path-codex")).toBeNull();
  });

  it("shows why a path was refused", async () => {
    fakeApi.setRuntimePath.mockRejectedValueOnce(
      new ClawbooError("runtime_not_found", "No Codex executable at /nowhere."),
    );
    const { user } = await openSettings();
    await user.type(await screen.findByTestId("runtime-path-codex"), "/nowhere");
    await user.click(screen.getByTestId("save-runtime-path-codex"));
    const error = await within(screen.getByTestId("runtime-codex")).findByTestId("error-message");
    expect(error.textContent).toBe("No Codex executable at /nowhere.");
  });
});

describe("Settings > Runtimes > sign-in", () => {
  it("shows for Claude Code and Codex which access agents use, and where a sign-in was found", async () => {
    await openSettings();
    const claude = await screen.findByTestId("runtime-access-claude-code");
    // No Anthropic key, a sign-in found: automatic picks the sign-in and says where it is.
    expect((within(claude).getByTestId("access-own-claude-code") as HTMLInputElement).checked).toBe(true);
    expect(claude.textContent).toContain("Use my own sign-in (found: ~/.claude/.credentials.json)");
    expect(claude.textContent).toContain("Use an API key from Clawboo (Anthropic key not set)");
    expect(screen.getByTestId("access-effective-claude-code").textContent).toBe(
      "Agents use your own sign-in (~/.claude/.credentials.json), chosen automatically.",
    );
    // Codex: an OpenAI key, no sign-in.
    const codex = screen.getByTestId("runtime-access-codex");
    expect((within(codex).getByTestId("access-key-codex") as HTMLInputElement).checked).toBe(true);
    expect(codex.textContent).toContain("Use my own sign-in (not found in ~/.codex/auth.json)");
    expect(codex.textContent).toContain("OpenAI key set");
  });

  it("keeps an explicit choice, shows its problem with the fix, and goes back to automatic", async () => {
    const { user } = await openSettings();
    await user.click(await screen.findByTestId("access-own-codex"));
    expect(fakeApi.setRuntimeAccess).toHaveBeenCalledWith("codex", "own_sign_in");
    await waitFor(() =>
      expect(screen.getByTestId("access-problem-codex").textContent).toContain("no sign-in was found in ~/.codex/auth.json"),
    );
    expect(screen.getByTestId("access-effective-codex").textContent).toContain("Agents cannot run yet");
    expect((screen.getByTestId("access-own-codex") as HTMLInputElement).checked).toBe(true);

    await user.click(screen.getByTestId("access-auto-codex"));
    expect(fakeApi.setRuntimeAccess).toHaveBeenLastCalledWith("codex", null);
    await waitFor(() => expect(screen.queryByTestId("access-problem-codex")).toBeNull());
    expect(screen.getByTestId("access-effective-codex").textContent).toContain("an API key from Clawboo (OpenAI)");
  });

  it("follows a key being saved: automatic then uses the key", async () => {
    const { user } = await openSettings();
    await screen.findByTestId("runtime-access-claude-code");
    await user.type(screen.getByTestId("key-input-anthropic"), "sk-ant-x");
    await user.click(screen.getByTestId("save-key-anthropic"));
    await waitFor(() =>
      expect(screen.getByTestId("access-effective-claude-code").textContent).toBe(
        "Agents use an API key from Clawboo (Anthropic), chosen automatically.",
      ),
    );
    expect(screen.queryByTestId("runtime-access-native")).toBeNull();
  });
});

describe("Settings: approvals", () => {
  it("saves the approval expiry only for whole hours from 1 to 720", async () => {
    const { user } = await openSettings();
    const input = (await screen.findByTestId("approval-expiry-hours")) as HTMLInputElement;
    const save = screen.getByTestId("approval-expiry-save") as HTMLButtonElement;
    expect(input.value).toBe("24");

    for (const wrong of ["0", "721", "2.5"]) {
      await user.clear(input);
      await user.type(input, wrong);
      expect(screen.getByTestId("approval-expiry-hint").textContent).toBe(
        "Enter a whole number of hours from 1 to 720 (30 days).",
      );
      expect(input.getAttribute("aria-invalid")).toBe("true");
      expect(save.disabled).toBe(true);
    }
    await user.clear(input);
    expect(save.disabled).toBe(true);
    expect(fakeApi.attentionSetSettings).not.toHaveBeenCalled();

    await user.type(input, "48");
    expect(input.getAttribute("aria-invalid")).toBeNull();
    await user.click(save);
    expect(fakeApi.attentionSetSettings).toHaveBeenCalledWith({ approvalExpiryHours: 48 });
    expect(await screen.findByText("Saved.")).toBeTruthy();
    expect(attention.settings.approvalExpiryHours).toBe(48);
  });

  it("shows the engine's refusal with its code", async () => {
    fakeApi.attentionSetSettings.mockRejectedValueOnce(new ClawbooError("store", "The database is read-only."));
    const { user } = await openSettings();
    const input = await screen.findByTestId("approval-expiry-hours");
    await user.clear(input);
    await user.type(input, "12");
    await user.click(screen.getByTestId("approval-expiry-save"));
    const error = await within(screen.getByTestId("approval-settings")).findByTestId("error-message");
    expect(within(error).getByTestId("error-code").textContent).toBe("store");
    expect(error.textContent).toContain("The database is read-only.");
  });

  it("lists what is allowed always, each revocable, and says when nothing is", async () => {
    const ada = seedAgent({ name: "Ada", handle: "ada" });
    const request = seedRequest(ada, { kind: "permission", tool: "Write" });
    await fakeApi.attentionAnswer(request.id, { type: "decision", decision: "allow_always" });
    const grant = attention.grants[0];
    const { user } = await openSettings();

    const row = await screen.findByTestId(`grant-${grant.id}`);
    expect(row.textContent).toContain("Ada @ada may use Write without asking");
    expect(row.textContent).toContain("since ");
    await user.click(within(row).getByTestId(`revoke-grant-${grant.id}`));
    expect(fakeApi.attentionRevokeGrant).toHaveBeenCalledWith(grant.id);
    expect((await screen.findByTestId("grants-empty")).textContent).toContain("Nothing is allowed always.");
    expect(screen.queryByTestId(`grant-${grant.id}`)).toBeNull();
  });

  it("shows a shell grant with its command prefix", async () => {
    const ada = seedAgent({ name: "Ada", handle: "ada" });
    const request = seedRequest(ada, { kind: "permission", tool: "Bash", commandPrefix: "git status", allowAlways: true });
    await fakeApi.attentionAnswer(request.id, { type: "decision", decision: "allow_always" });
    const grant = attention.grants[0];
    await openSettings();

    const row = await screen.findByTestId(`grant-${grant.id}`);
    expect(within(row).getByTestId(`granted-what-${grant.id}`).textContent).toBe("Bash: git status …");
    expect(row.textContent).toContain("Ada @ada may use Bash: git status … without asking");
  });
});
