import { describe, expect, it, vi } from "vitest";
import { fireEvent, render } from "@testing-library/react";
import { Markdown, MentionsProvider, StreamingMarkdown, markdownBlocks } from "./Markdown";

describe("Markdown", () => {
  it("keeps a reply's line breaks: a leader's hand-off lines stay lines", () => {
    const { container } = render(<Markdown text={"@researcher find the prices\n@writer draft the copy"} />);
    expect(container.querySelectorAll("p")).toHaveLength(1);
    expect(container.querySelectorAll("br")).toHaveLength(1);
  });

  it("highlights the @handles of known agents and opens them on a click; other @words stay text", () => {
    const onOpen = vi.fn();
    const { container } = render(
      <MentionsProvider value={{ handles: ["ada", "bo-2"], onOpen }}>
        <Markdown text={"@Ada and @bo-2, ask @adam or mail ada@example.com. `@ada` in code stays code."} />
      </MentionsProvider>,
    );
    const mentions = [...container.querySelectorAll(".mention")];
    expect(mentions.map((m) => m.textContent)).toEqual(["@Ada", "@bo-2"]);
    fireEvent.click(mentions[0]);
    expect(onOpen).toHaveBeenCalledWith("ada");
    expect(container.querySelector("code")?.textContent).toBe("@ada");
  });

  it("shows raw HTML in a reply as text, never as elements", () => {
    const text = 'Look: <script>window.pwned = 1</script> and <img src="x" onerror="window.pwned = 2"> **bold**';
    const { container } = render(<Markdown text={text} />);
    expect(container.querySelector("script")).toBeNull();
    expect(container.querySelector("img")).toBeNull();
    expect(container.querySelector("[onerror]")).toBeNull();
    expect(container.textContent).toContain("<script>window.pwned = 1</script>");
    expect(container.textContent).toContain('<img src="x" onerror="window.pwned = 2">');
    expect(container.querySelector("strong")?.textContent).toBe("bold");
    expect((window as unknown as { pwned?: number }).pwned).toBeUndefined();
  });

  it("a block of HTML is text too", () => {
    const { container } = render(<Markdown text={'<div onclick="x()">\n<iframe src="https://example.com"></iframe>\n</div>'} />);
    expect(container.querySelector("iframe, div[onclick]")).toBeNull();
    expect(container.textContent).toContain("<iframe");
  });

  it("never renders a link or an image the webview could follow or load", () => {
    const { container } = render(
      <Markdown text={"[docs](https://example.com/docs) <https://example.com> [x](javascript:alert(1)) ![logo](https://example.com/a.png)"} />,
    );
    expect(container.querySelector("a, img")).toBeNull();
    const link = container.querySelector(".md-link");
    expect(link?.textContent).toBe("docs");
    expect(link?.getAttribute("title")).toBe("https://example.com/docs");
    // javascript: stays text; http(s) links are buttons that ask first (MarkdownLink.test.tsx).
    const inert = [...container.querySelectorAll(".md-link:not(button)")];
    expect(inert.map((l) => l.textContent)).toEqual(["x"]);
    expect(container.querySelector(".md-image")?.textContent).toBe("[logo]");
  });

  it("renders GitHub tables, lists and code blocks", () => {
    const { container } = render(<Markdown text={"1. a\n2. b\n\n```rust\nfn x() {}\n```\n\n| k | v |\n|---|--:|\n| a | 1 |"} />);
    expect(container.querySelectorAll("ol li")).toHaveLength(2);
    expect(container.querySelector("pre code.language-rust")?.textContent).toBe("fn x() {}\n");
    expect(container.querySelectorAll("table td")).toHaveLength(2);
  });
});

describe("streaming Markdown", () => {
  it("splits at blank lines but keeps a fenced block whole", () => {
    expect(markdownBlocks("a\nb\n\n```\nx\n\ny\n```\n\n\nc")).toEqual(["a\nb", "```\nx\n\ny\n```", "c"]);
    expect(markdownBlocks("```\nopen fence\n\nstill code")).toEqual(["```\nopen fence\n\nstill code"]);
  });

  it("renders the growing text as Markdown", () => {
    const { container, rerender } = render(<StreamingMarkdown text={"- one\n- tw"} />);
    rerender(<StreamingMarkdown text={"- one\n- two\n\nDone <b>now</b>"} />);
    expect(container.querySelectorAll("li")).toHaveLength(2);
    expect(container.querySelector("b")).toBeNull();
    expect(container.textContent).toContain("Done <b>now</b>");
  });
});
