import { beforeEach, describe, expect, it, vi } from "vitest";
import { screen, waitFor, within } from "@testing-library/react";
import { fakeApi, resetBackend } from "../../test/fakeApi";
import { renderApp } from "../../test/helpers";

vi.mock("../../api", async () => (await import("../../test/fakeApi")).fakeApiModule);

beforeEach(() => resetBackend());

async function openSettings() {
  const { user } = renderApp();
  await user.click(screen.getByTestId("settings-link"));
  await screen.findByTestId("spend-settings");
  return { user };
}

describe("Settings > Spend", () => {
  it("shows the bundled prices per million tokens with the date they were taken", async () => {
    await openSettings();
    expect((await screen.findByTestId("prices-taken")).textContent).toContain("Bundled prices taken 2025-11-30.");
    const row = (await screen.findAllByTestId("price-row"))[0];
    expect(row.textContent).toContain("claude-sonnet-4-5");
    expect(row.textContent).toContain("$3.00$15.00$3.75$0.30");
    expect(row.textContent).toContain("Bundled");
  });

  it("prices a custom endpoint's model, marks a local one free, and removes the user's price", async () => {
    const { user } = await openSettings();
    await screen.findAllByTestId("price-row");
    await user.type(screen.getByTestId("price-model"), "llama-3.3-70b");
    await user.type(screen.getByTestId("price-input"), "0.59");
    await user.type(screen.getByTestId("price-output"), "0.79");
    await user.type(screen.getByTestId("price-cacheWrite"), "0");
    await user.type(screen.getByTestId("price-cacheRead"), "0");
    await user.click(screen.getByTestId("price-save"));
    expect(fakeApi.setSpendPrice).toHaveBeenCalledWith("custom", "llama-3.3-70b", {
      inputMicros: 590_000,
      outputMicros: 790_000,
      cacheWriteMicros: 0,
      cacheReadMicros: 0,
      free: false,
    });
    const llama = await waitFor(() => {
      const row = screen.getAllByTestId("price-row").find((r) => r.dataset.model === "llama-3.3-70b");
      if (!row) throw new Error("no row yet");
      return row;
    });
    expect(llama.textContent).toContain("$0.59$0.79");
    expect(llama.textContent).toContain("Yours");

    await user.type(screen.getByTestId("price-model"), "qwen-local");
    await user.click(screen.getByTestId("price-free"));
    await user.click(screen.getByTestId("price-save"));
    expect(fakeApi.setSpendPrice).toHaveBeenLastCalledWith("custom", "qwen-local", expect.objectContaining({ free: true }));
    await waitFor(() =>
      expect(screen.getAllByTestId("price-row").find((r) => r.dataset.model === "qwen-local")?.textContent).toContain(
        "Free (local model)",
      ),
    );

    const row = screen.getAllByTestId("price-row").find((r) => r.dataset.model === "llama-3.3-70b")!;
    await user.click(within(row).getByTestId("price-remove"));
    expect(fakeApi.removeSpendPrice).toHaveBeenCalledWith("custom", "llama-3.3-70b");
    await waitFor(() => expect(screen.getAllByTestId("price-row").some((r) => r.dataset.model === "llama-3.3-70b")).toBe(false));
  });

  it("refuses a price that is not a number before asking the engine", async () => {
    const { user } = await openSettings();
    await user.type(screen.getByTestId("price-model"), "mystery");
    await user.type(screen.getByTestId("price-input"), "cheap");
    await user.click(screen.getByTestId("price-save"));
    expect(await screen.findByText(/Enter each price in dollars per million tokens/)).toBeTruthy();
    expect(fakeApi.setSpendPrice).not.toHaveBeenCalled();
  });
});
