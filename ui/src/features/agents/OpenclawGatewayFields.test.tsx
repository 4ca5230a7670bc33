import { beforeEach, describe, expect, it, vi } from "vitest";
import { screen, waitFor } from "@testing-library/react";
import { backend, fakeApi, resetBackend, seedAgent } from "../../test/fakeApi";
import { openAgentProfile, renderApp } from "../../test/helpers";

vi.mock("../../api", async () => (await import("../../test/fakeApi")).fakeApiModule);

beforeEach(() => resetBackend());

const radio = (testId: string) => screen.getByTestId(testId) as HTMLInputElement;
const input = (testId: string) => screen.getByTestId(testId) as HTMLInputElement;

describe("OpenClaw Gateway on the agent profile", () => {
  it("is offered only to OpenClaw agents", async () => {
    seedAgent({ handle: "coder", runtime: "claude-code" });
    const { user } = renderApp();
    await openAgentProfile(user, "coder");
    await screen.findByTestId("profile-name-input");
    expect(screen.queryByTestId("gateway-fields")).toBeNull();
  });

  it("says how an OpenClaw agent runs on the user's own sign-in", async () => {
    seedAgent({ handle: "claw", runtime: "openclaw", provider: "openai" });
    const { user } = renderApp();
    await openAgentProfile(user, "claw");
    expect((await screen.findByTestId("gateway-sign-in-hint")).textContent).toContain(
      "To run on your own OpenClaw sign-in, point the agent at a Gateway you run",
    );
  });

  it("points an agent at an existing Gateway; the token is sent once and never shown", async () => {
    const agent = seedAgent({ handle: "claw", runtime: "openclaw" });
    const { user } = renderApp();
    await openAgentProfile(user, "claw");
    await screen.findByTestId("gateway-fields");
    expect(screen.getByText(/how a team spans machines/)).toBeTruthy();
    await waitFor(() => expect(radio("gateway-mode-clawboo").checked).toBe(true));
    expect(screen.queryByTestId("gateway-url-input")).toBeNull();

    await user.click(radio("gateway-mode-existing"));
    await user.type(input("gateway-url-input"), "ws://127.0.0.1:18789");
    expect((screen.getByTestId("save-gateway-button") as HTMLButtonElement).disabled).toBe(true);
    expect(screen.getByText("Enter the Gateway's token.")).toBeTruthy();
    await user.type(input("gateway-token-input"), "tok-123");
    await user.click(screen.getByTestId("save-gateway-button"));

    await screen.findByTestId("gateway-saved");
    expect(fakeApi.setOpenclawGateway).toHaveBeenCalledWith(agent.id, {
      url: "ws://127.0.0.1:18789",
      token: "tok-123",
    });
    expect(fakeApi.updateAgent).not.toHaveBeenCalled();
    expect(input("gateway-token-input").value).toBe("");
    expect(input("gateway-token-input").type).toBe("password");
    expect(screen.getByTestId("gateway-token-status").textContent).toContain("saved in the system keychain");
    expect(document.body.textContent).not.toContain("tok-123");
  });

  it("keeps the saved token when only the URL changes, and goes back to Clawboo's own Gateway", async () => {
    const agent = seedAgent({ handle: "claw", runtime: "openclaw", openclawGatewayUrl: "ws://127.0.0.1:18789" });
    backend.gatewayTokens.set(agent.id, "old-token");
    const { user } = renderApp();
    await openAgentProfile(user, "claw");
    await waitFor(() => expect(input("gateway-url-input").value).toBe("ws://127.0.0.1:18789"));
    expect(radio("gateway-mode-existing").checked).toBe(true);
    expect(input("gateway-token-input").value).toBe("");
    expect(input("gateway-token-input").placeholder).toContain("Saved");

    await user.clear(input("gateway-url-input"));
    await user.type(input("gateway-url-input"), "wss://gateway.example.com");
    await user.click(screen.getByTestId("save-gateway-button"));
    await screen.findByTestId("gateway-saved");
    expect(fakeApi.setOpenclawGateway).toHaveBeenLastCalledWith(agent.id, {
      url: "wss://gateway.example.com",
      token: null,
    });
    expect(backend.gatewayTokens.get(agent.id)).toBe("old-token");

    await user.click(radio("gateway-mode-clawboo"));
    await user.click(screen.getByTestId("save-gateway-button"));
    await waitFor(() =>
      expect(fakeApi.setOpenclawGateway).toHaveBeenLastCalledWith(agent.id, { url: null, token: null }),
    );
    await waitFor(() => expect(backend.gatewayTokens.has(agent.id)).toBe(false));
    expect(screen.queryByTestId("gateway-url-input")).toBeNull();
  });

  it("shows the backend's reason when an address is refused, and saves nothing", async () => {
    const agent = seedAgent({ handle: "claw", runtime: "openclaw" });
    const { user } = renderApp();
    await openAgentProfile(user, "claw");
    await screen.findByTestId("gateway-fields");
    await user.click(radio("gateway-mode-existing"));
    await user.type(input("gateway-url-input"), "ws://203.0.113.7:18789");
    await user.type(input("gateway-token-input"), "tok-123");
    await user.click(screen.getByTestId("save-gateway-button"));

    expect((await screen.findByTestId("error-message")).textContent).toContain("Use wss://");
    expect(backend.agents.find((a) => a.id === agent.id)?.openclawGatewayUrl).toBeNull();
    expect(backend.gatewayTokens.has(agent.id)).toBe(false);
    expect(screen.queryByTestId("gateway-saved")).toBeNull();
  });
});
