import { beforeEach, describe, expect, it, vi } from "vitest";
import { render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";

vi.mock("../../api", async () => (await import("../../test/fakeApi")).fakeApiModule);
import { fakeApi, resetBackend } from "../../test/fakeApi";
import { ClawbooError } from "../../errors";
import { ToastProvider } from "../../components/Toasts";
import { ExportMenu } from "./ExportMenu";

function renderMenu() {
  const user = userEvent.setup();
  render(
    <ToastProvider>
      <ExportMenu target={{ kind: "room", id: "room-1" }} testId="room-export" />
    </ToastProvider>,
  );
  return user;
}

describe("Export", () => {
  beforeEach(() => resetBackend());

  it("saves as Markdown or JSON and says where", async () => {
    const user = renderMenu();
    await user.click(screen.getByTestId("room-export"));
    await user.click(screen.getByTestId("room-export-json"));
    expect(fakeApi.exportThread).toHaveBeenCalledWith({ kind: "room", id: "room-1" }, "json");
    expect((await screen.findByTestId("toast")).textContent).toContain("Saved to /tmp/export.json");
    await user.click(screen.getByTestId("room-export"));
    await user.click(screen.getByTestId("room-export-markdown"));
    expect(fakeApi.exportThread).toHaveBeenLastCalledWith({ kind: "room", id: "room-1" }, "markdown");
  });

  it("says nothing when the save dialog is cancelled, and why when it fails", async () => {
    fakeApi.exportThread.mockResolvedValueOnce(null);
    const user = renderMenu();
    await user.click(screen.getByTestId("room-export"));
    await user.click(screen.getByTestId("room-export-markdown"));
    expect(screen.queryByTestId("toast")).toBeNull();
    fakeApi.exportThread.mockRejectedValueOnce(new ClawbooError("io", "The disk is full."));
    await user.click(screen.getByTestId("room-export"));
    await user.click(screen.getByTestId("room-export-markdown"));
    expect((await screen.findByTestId("error-message")).textContent).toContain("The disk is full.");
  });
});
