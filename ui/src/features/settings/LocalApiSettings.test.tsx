import { beforeEach, describe, expect, it, vi } from "vitest";
import { screen, waitFor } from "@testing-library/react";
import { fakeApi, resetBackend, seedAgent } from "../../test/fakeApi";
import { seedCard } from "../../test/fakeBoard";
import { localApi } from "../../test/fakeLocalApi";
import { renderApp } from "../../test/helpers";

vi.mock("../../api", async () => (await import("../../test/fakeApi")).fakeApiModule);

beforeEach(() => resetBackend());

async function openSettings() {
  const { user } = renderApp();
  await user.click(screen.getByTestId("settings-link"));
  await screen.findByTestId("local-api-section");
  return { user };
}

describe("Settings > Local API", () => {
  it("is off by default and shows no address or token until switched on", async () => {
    await openSettings();
    const toggle = (await screen.findByTestId("local-api-toggle")) as HTMLInputElement;
    expect(toggle.checked).toBe(false);
    expect(screen.queryByTestId("local-api-url")).toBeNull();
    expect(screen.queryByTestId("local-api-token")).toBeNull();
    expect(fakeApi.localApiToken).not.toHaveBeenCalled();
  });

  it("switched on, shows the address, the port file and a masked token with a curl example", async () => {
    const { user } = await openSettings();
    await user.click(await screen.findByTestId("local-api-toggle"));
    expect(fakeApi.localApiSetEnabled).toHaveBeenCalledWith(true);
    expect((await screen.findByTestId("local-api-url")).textContent).toBe("http://127.0.0.1:43123");
    expect(screen.getByTestId("local-api-port-file").textContent).toBe("/data/api.json");
    const token = screen.getByTestId("local-api-token");
    expect(token.textContent).not.toContain(localApi.token);
    expect(fakeApi.localApiToken).not.toHaveBeenCalled();
    const curl = screen.getByTestId("local-api-curl").textContent ?? "";
    expect(curl).toContain("curl -X POST http://127.0.0.1:43123/api/runtimes/@worker/run");
    expect(curl).toContain("Authorization: Bearer <token>");

    await user.click(screen.getByTestId("local-api-toggle"));
    expect(fakeApi.localApiSetEnabled).toHaveBeenLastCalledWith(false);
    await waitFor(() => expect(screen.queryByTestId("local-api-url")).toBeNull());
  });

  it("reveals, hides and copies the token, and puts it in the curl example once revealed", async () => {
    localApi.enabled = true;
    const { user } = await openSettings();
    // user-event puts its own clipboard in place; watch what is written to it.
    const writeText = vi.spyOn(navigator.clipboard, "writeText");
    await user.click(await screen.findByTestId("local-api-reveal"));
    await waitFor(() => expect(screen.getByTestId("local-api-token").textContent).toBe(localApi.token));
    expect(screen.getByTestId("local-api-curl").textContent).toContain(`Bearer ${localApi.token}`);
    await user.click(screen.getByTestId("local-api-reveal"));
    expect(screen.getByTestId("local-api-token").textContent).not.toContain(localApi.token);

    await user.click(screen.getByTestId("local-api-copy"));
    await waitFor(() => expect(writeText).toHaveBeenCalledWith(localApi.token));
    expect(screen.getByTestId("local-api-note").textContent).toBe("Token copied.");
    await user.click(screen.getByTestId("local-api-copy-curl"));
    await waitFor(() => expect(writeText).toHaveBeenLastCalledWith(expect.stringContaining(`Bearer ${localApi.token}`)));
    expect(fakeApi.localApiToken).toHaveBeenCalledTimes(1);
  });

  it("regenerates the token only after a confirmation, and shows the new one", async () => {
    localApi.enabled = true;
    const old = localApi.token;
    const { user } = await openSettings();
    await user.click(await screen.findByTestId("local-api-reveal"));
    await waitFor(() => expect(screen.getByTestId("local-api-token").textContent).toBe(old));

    await user.click(screen.getByTestId("local-api-regenerate"));
    expect(await screen.findByTestId("confirm-dialog")).toBeTruthy();
    await user.click(screen.getByText("Cancel"));
    expect(fakeApi.localApiRegenerateToken).not.toHaveBeenCalled();

    await user.click(screen.getByTestId("local-api-regenerate"));
    await user.click(await screen.findByTestId("local-api-regenerate-confirm"));
    await waitFor(() => expect(screen.getByTestId("local-api-token").textContent).not.toBe(old));
    expect(screen.getByTestId("local-api-token").textContent).toBe(localApi.token);
    expect(screen.getByTestId("local-api-note").textContent).toContain("old one no longer works");
  });

  it("says why it could not be switched on", async () => {
    localApi.failEnable = "The system keychain is not available: no Secret Service.";
    const { user } = await openSettings();
    await user.click(await screen.findByTestId("local-api-toggle"));
    expect(await screen.findByText(/keychain is not available/)).toBeTruthy();
    expect((screen.getByTestId("local-api-toggle") as HTMLInputElement).checked).toBe(false);
  });
});

describe("A card started through the local API", () => {
  it("says so on the Board", async () => {
    const worker = seedAgent({ name: "Worker", handle: "worker" });
    seedCard({ title: "Summarise the notes", assigneeId: worker.id, origin: { kind: "api" }, status: "in_review" });
    const { user } = renderApp();
    await user.click(await screen.findByTestId("nav-board"));
    await user.click(await screen.findByText("Summarise the notes"));
    expect((await screen.findByTestId("card-origin-api")).textContent).toBe("Started through the local API");
  });
});
