import { beforeEach, describe, expect, it, vi } from "vitest";
import { screen, waitFor, within } from "@testing-library/react";
import { ClawbooError } from "../errors";
import { backend, fakeApi, resetBackend } from "../test/fakeApi";
import { renderApp } from "../test/helpers";

vi.mock("../api", async () => (await import("../test/fakeApi")).fakeApi);

beforeEach(() => resetBackend());

async function openSettings() {
  const { user } = renderApp();
  await user.click(screen.getByTestId("settings-link"));
  await screen.findByTestId("provider-anthropic");
  return { user };
}

describe("Settings", () => {
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

  it("saves the custom provider's base URL", async () => {
    const { user } = await openSettings();
    const row = within(screen.getByTestId("provider-custom"));
    await user.type(row.getByTestId("base-url-input"), "https://llm.example.com/v1");
    await user.click(row.getByRole("button", { name: "Save" }));
    expect(fakeApi.setCustomBaseUrl).toHaveBeenCalledWith("https://llm.example.com/v1");
    await waitFor(() => expect(backend.providers.find((p) => p.provider === "custom")?.baseUrl).toBe(
      "https://llm.example.com/v1",
    ));
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
