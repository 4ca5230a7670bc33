import { beforeEach, describe, expect, it, vi } from "vitest";
import { render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";

vi.mock("../api", async () => (await import("../test/fakeApi")).fakeApiModule);
import { fakeApi, resetBackend } from "../test/fakeApi";
import { Markdown } from "./Markdown";
import { isOpenableLink } from "./MarkdownLink";

describe("links in a reply", () => {
  beforeEach(() => resetBackend());

  it("open in the browser only after a confirm that shows the whole URL", async () => {
    const user = userEvent.setup();
    const url = "https://example.com/a/very/long/path?with=query&and=more#section";
    render(<Markdown text={`See [the docs](${url}).`} />);
    await user.click(screen.getByTestId("md-link"));
    expect(screen.getByTestId("link-url").textContent).toBe(url);
    expect(fakeApi.openLink).not.toHaveBeenCalled();
    await user.click(screen.getByTestId("link-open"));
    expect(fakeApi.openLink).toHaveBeenCalledWith(url);
    expect(screen.queryByTestId("link-url")).toBeNull();
  });

  it("open nothing when the confirm is cancelled or closed with Esc", async () => {
    const user = userEvent.setup();
    render(<Markdown text={"<https://example.com> and [mail](mailto:ada@example.com)"} />);
    const [web, mail] = screen.getAllByTestId("md-link");
    await user.click(web);
    await user.click(screen.getByTestId("link-cancel"));
    await user.click(mail);
    expect(screen.getByText("Open in mail app")).toBeTruthy();
    await user.keyboard("{Escape}");
    expect(screen.queryByTestId("link-url")).toBeNull();
    expect(fakeApi.openLink).not.toHaveBeenCalled();
  });

  it("other schemes stay text", () => {
    const { container } = render(
      <Markdown text={"[a](file:///etc/passwd) [b](javascript:alert(1)) [c](vscode://x) [d](ftp://example.com) [e](data:text/html,x)"} />,
    );
    expect(screen.queryAllByTestId("md-link")).toHaveLength(0);
    expect(container.querySelectorAll("button")).toHaveLength(0);
    expect(["http://x.y", "HTTPS://X.Y", "mailto:a@b.c"].every(isOpenableLink)).toBe(true);
    expect(["file:///x", "javascript:x", "//x.y", "", undefined].some(isOpenableLink)).toBe(false);
  });
});
