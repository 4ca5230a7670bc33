import { memo, useDeferredValue, useMemo } from "react";
import ReactMarkdown, { type Components } from "react-markdown";
import remarkGfm from "remark-gfm";

// Replies are untrusted text. react-markdown never renders raw HTML without rehype-raw (which is
// not used): a <script> or <img onerror> in a reply shows as text. Links and images are inert:
// the webview must never navigate or load from where a reply points.
const components: Components = {
  a: ({ href, children }) => (
    <span className="md-link" title={href ?? undefined}>
      {children}
    </span>
  ),
  img: ({ alt, src }) => (
    <span className="md-image" title={typeof src === "string" ? src : undefined}>
      [{alt || "image"}]
    </span>
  ),
};

const plugins = [remarkGfm];

/** Markdown (with GitHub tables, task lists, strikethrough) rendered as safe React elements. */
export const Markdown = memo(function Markdown({ text }: { text: string }) {
  return (
    <div className="markdown">
      <ReactMarkdown remarkPlugins={plugins} components={components}>
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
  return (
    <ReactMarkdown remarkPlugins={plugins} components={components}>
      {text}
    </ReactMarkdown>
  );
});
