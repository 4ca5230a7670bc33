import { beforeEach, describe, expect, it, vi } from "vitest";
import { render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";

vi.mock("../api", async () => (await import("../test/fakeApi")).fakeApiModule);
import { fakeApi, resetBackend } from "../test/fakeApi";
import { ClawbooError } from "../errors";
import { Markdown } from "./Markdown";
import { looksLikePath, PathOwnerProvider } from "./MarkdownPath";

describe("paths in a reply", () => {
  beforeEach(() => resetBackend());

  it("open in the file manager, inside the replying agent's folder", async () => {
    const user = userEvent.setup();
    render(
      <PathOwnerProvider agentId="agent-1">
        <Markdown text={"I wrote `notes/plan.md` and ran `npm test`."} />
      </PathOwnerProvider>,
    );
    const paths = screen.getAllByTestId("md-path");
    expect(paths.map((p) => p.textContent)).toEqual(["notes/plan.md"]);
    await user.click(paths[0]);
    expect(fakeApi.openPath).toHaveBeenCalledWith("notes/plan.md", "agent-1");
  });

  it("say why when the engine refuses to open one", async () => {
    const user = userEvent.setup();
    fakeApi.openPath.mockRejectedValueOnce(
      new ClawbooError("invalid_input", "That path is outside the folders an agent works in."),
    );
    render(
      <PathOwnerProvider agentId="agent-1">
        <Markdown text={"See `/etc/passwd`."} />
      </PathOwnerProvider>,
    );
    await user.click(screen.getByTestId("md-path"));
    expect((await screen.findByRole("alert")).textContent).toContain("outside the folders");
  });

  it("stay code outside a reply and in code blocks", () => {
    render(<Markdown text={"`notes/plan.md`"} />);
    expect(screen.queryByTestId("md-path")).toBeNull();
    render(
      <PathOwnerProvider agentId="agent-1">
        <Markdown text={"```\nnotes/plan.md\n```"} />
      </PathOwnerProvider>,
    );
    expect(screen.queryByTestId("md-path")).toBeNull();
  });

  it("are told from other code", () => {
    expect(["notes/plan.md", "/home/ada/x", "~/work/a.txt", "./src", "../b/c.rs", "menu.md", "data.csv"].every(looksLikePath)).toBe(true);
    expect(["npm test", "a + b", "https://x.y/z", "/", "x", "v2.0", "e.g.", "a:b", "fn()"].some(looksLikePath)).toBe(false);
  });
});
