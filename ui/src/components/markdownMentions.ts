// @handles in rendered Markdown: a remark step that marks each `@handle` of a known agent, so the
// Markdown component can show it highlighted and clickable. Unknown words after an `@` (an
// e-mail address, a team not in the list) stay text.
import { findAndReplace } from "mdast-util-find-and-replace";
import type { Root } from "mdast";

const HANDLE_CHARS = "[\\p{L}\\p{N}_-]";

/** The remark plugin for `handles` (without the `@`), matched case-insensitively, longest first. */
export function remarkMentions(handles: readonly string[]) {
  const known = new Map(handles.map((h) => [h.toLowerCase(), h]));
  const pattern = new RegExp(`(?<!${HANDLE_CHARS})@(${HANDLE_CHARS}+)`, "gu");
  return () => (tree: Root) => {
    if (known.size === 0) return;
    findAndReplace(tree, [
      pattern,
      (whole: string, name: string) => {
        // The longest known handle the name starts with ("@ada's" is @ada; "@adam" is not @ada).
        const handle = known.get(name.toLowerCase());
        if (!handle) return false;
        // A node of its own (a text node would be merged with its neighbours), drawn as a span.
        return {
          type: "mention",
          children: [{ type: "text", value: whole }],
          data: { hName: "span", hProperties: { className: ["mention"], dataHandle: handle } },
        } as never;
      },
    ]);
  };
}
