import { createContext, memo, useContext, useDeferredValue, useMemo, type ReactNode } from "react";
import ReactMarkdown, { type Components, type Options } from "react-markdown";
import remarkBreaks from "remark-breaks";
import remarkGfm from "remark-gfm";
import { remarkMentions } from "./markdownMentions";
import { MarkdownLink } from "./MarkdownLink";
import { MarkdownCode } from "./MarkdownPath";

// Replies are untrusted text. react-markdown never renders raw HTML without rehype-raw (which is
// not used): a <script> or <img onerror> in a reply shows as text. The webview never navigates or
// loads from where a reply points: images are inert, a link opens in the default browser only
// after the user confirmed its whole URL (http, https and mailto; anything else stays text), and a
// path opens in the file manager only when the engine finds it inside a folder the agent works in.
const components: Components = {
  a: ({ href, children }) => <MarkdownLink href={href}>{children}</MarkdownLink>,
  // A path in `code` opens in the file manager after the engine checked it (in a reply only).
  code: ({ className, children }) => <MarkdownCode className={className}>{children}</MarkdownCode>,
  img: ({ alt, src }) => (
    <span className="md-image" title={typeof src === "string" ? src : undefined}>
      [{alt || "image"}]
    </span>
  ),
};

/** Where rendered text knows agents by handle: their `@handle`s are highlighted, and a click
 *  opens the agent (a team room provides its members). */
export type Mentions = { handles: readonly string[]; onOpen?: (handle: string) => void };

const MentionsContext = createContext<Mentions | null>(null);

export function MentionsProvider({ value, children }: { value: Mentions; children: ReactNode }) {
  return <MentionsContext.Provider value={value}>{children}</MentionsContext.Provider>;
}

// A line break in a reply is a line break (an agent's "@a do this" lines stay lines).
const plugins: NonNullable<Options["remarkPlugins"]> = [remarkGfm, remarkBreaks];

/** The plugins and components for the mentions in reach (memoised per handle list). */
function useMarkdownSetup(): { remarkPlugins: typeof plugins; components: Components } {
  const mentions = useContext(MentionsContext);
  const handles = mentions?.handles;
  const onOpen = mentions?.onOpen;
  const key = handles?.join("\u0000") ?? "";
  return useMemo(() => {
    if (!handles?.length) return { remarkPlugins: plugins, components };
    const withMentions: Components = {
      ...components,
      span: ({ className, children, ...props }) => {
        const handle = (props as Record<string, unknown>)["data-handle"];
        if (className !== "mention" || typeof handle !== "string") return <span className={className}>{children}</span>;
        return onOpen ? (
          <button type="button" className="mention" onClick={() => onOpen(handle)} title={`Open @${handle}`}>
            {children}
          </button>
        ) : (
          <span className="mention">{children}</span>
        );
      },
    };
    return { remarkPlugins: [...plugins, remarkMentions(handles)], components: withMentions };
    // Keyed by the handles' content: the same handles in a new array keep the plugins.
  }, [key, onOpen]);
}

/** Markdown (with GitHub tables, task lists, strikethrough) rendered as safe React elements. */
export const Markdown = memo(function Markdown({ text }: { text: string }) {
  const setup = useMarkdownSetup();
  return (
    <div className="markdown">
      <ReactMarkdown remarkPlugins={setup.remarkPlugins} components={setup.components}>
        {text}
      </ReactMarkdown>
    </div>
  );
});

/**
 * Splits text into Markdown blocks at blank lines outside code fences. While a reply streams,
 * only its last block changes, so only that block is parsed again.
 */
export function markdownBlocks(text: string): string[] {
  const blocks: string[] = [];
  let current: string[] = [];
  let fence: string | null = null;
  for (const line of text.split("\n")) {
    const marker = /^\s*(```+|~~~+)/.exec(line)?.[1] ?? null;
    if (marker && (fence === null || marker.startsWith(fence))) fence = fence === null ? marker : null;
    if (fence === null && line.trim() === "" && current.length > 0) {
      blocks.push(current.join("\n"));
      current = [];
    } else if (fence !== null || line.trim() !== "") {
      current.push(line);
    }
  }
  if (current.length > 0) blocks.push(current.join("\n"));
  return blocks;
}

/** Streaming text as Markdown: finished blocks are parsed once, the growing one at low priority. */
export function StreamingMarkdown({ text }: { text: string }) {
  const deferred = useDeferredValue(text);
  const blocks = useMemo(() => markdownBlocks(deferred), [deferred]);
  return (
    <div className="markdown">
      {blocks.map((block, i) => (
        // A block's index is its identity: earlier blocks never change while a reply grows.
        <MarkdownBlock key={i} text={block} />
      ))}
    </div>
  );
}

const MarkdownBlock = memo(function MarkdownBlock({ text }: { text: string }) {
  const setup = useMarkdownSetup();
  return (
    <ReactMarkdown remarkPlugins={setup.remarkPlugins} components={setup.components}>
      {text}
    </ReactMarkdown>
  );
});
