import { useEffect, useLayoutEffect, useMemo, useRef } from "react";
import { basicSetup, EditorView } from "codemirror";
import { Annotation, EditorState, Prec, type Extension } from "@codemirror/state";
import { keymap } from "@codemirror/view";
import { markdown, markdownLanguage } from "@codemirror/lang-markdown";
import { HighlightStyle, syntaxHighlighting } from "@codemirror/language";
import { tags } from "@lezer/highlight";

/** Marks transactions that mirror `value` into the editor, so they are not echoed back. */
const fromProps = Annotation.define<boolean>();

const editorTheme = EditorView.theme({
  "&": { height: "100%", backgroundColor: "var(--editor-bg)", color: "var(--text)" },
  ".cm-scroller": { fontFamily: "var(--font-mono)", lineHeight: "1.6" },
  ".cm-content": { padding: "12px 0", caretColor: "var(--accent)" },
  ".cm-line": { padding: "0 16px" },
  ".cm-cursor, .cm-dropCursor": { borderLeftColor: "var(--accent)" },
  "&.cm-focused": { outline: "none" },
  ".cm-gutters": {
    backgroundColor: "var(--editor-bg)",
    color: "var(--text-faint)",
    border: "none",
  },
  ".cm-activeLine, .cm-activeLineGutter": { backgroundColor: "var(--editor-active-line)" },
  "&.cm-focused > .cm-scroller > .cm-selectionLayer .cm-selectionBackground, .cm-selectionBackground, .cm-content ::selection":
    { backgroundColor: "var(--editor-selection)" },
  ".cm-panels": { backgroundColor: "var(--surface-2)", color: "var(--text)" },
  ".cm-tooltip": { backgroundColor: "var(--surface-2)", border: "1px solid var(--border)" },
});

const markdownHighlight = HighlightStyle.define([
  { tag: tags.heading, color: "var(--md-heading)", fontWeight: "650" },
  { tag: tags.emphasis, fontStyle: "italic" },
  { tag: tags.strong, fontWeight: "700" },
  { tag: tags.strikethrough, textDecoration: "line-through" },
  { tag: [tags.link, tags.url], color: "var(--md-link)" },
  { tag: [tags.processingInstruction, tags.meta, tags.contentSeparator], color: "var(--md-mark)" },
  { tag: tags.monospace, color: "var(--md-code)" },
  { tag: tags.quote, color: "var(--text-muted)" },
  { tag: [tags.tagName, tags.angleBracket, tags.attributeName], color: "var(--md-code)" },
  { tag: [tags.string, tags.attributeValue], color: "var(--md-link)" },
  { tag: tags.comment, color: "var(--text-faint)" },
]);

/** The change that turns `from` into `to`, touching only the part that differs. */
export function minimalChange(from: string, to: string) {
  const max = Math.min(from.length, to.length);
  let start = 0;
  while (start < max && from.charCodeAt(start) === to.charCodeAt(start)) start++;
  let endFrom = from.length;
  let endTo = to.length;
  while (endFrom > start && endTo > start && from.charCodeAt(endFrom - 1) === to.charCodeAt(endTo - 1)) {
    endFrom--;
    endTo--;
  }
  return { from: start, to: endFrom, insert: to.slice(start, endTo) };
}

// CodeMirror normalises line breaks to "\n" in its document.
const normalise = (text: string) => text.replace(/\r\n?/g, "\n");

type Props = {
  /** Identifies the document; each keeps its own undo history and cursor. */
  docKey: string;
  value: string;
  onChange: (text: string) => void;
  onSave: () => void;
  label: string;
};

/**
 * A CodeMirror 6 markdown editor. `value` is mirrored into the editor with
 * minimal changes (no flicker, cursor kept); user edits are reported through
 * `onChange`. Mod-S calls `onSave`.
 */
export function MarkdownEditor({ docKey, value, onChange, onSave, label }: Props) {
  const hostRef = useRef<HTMLDivElement>(null);
  const viewRef = useRef<EditorView | null>(null);
  const keyRef = useRef(docKey);
  const parkedStates = useRef(new Map<string, EditorState>());
  const handlers = useRef({ onChange, onSave });

  useEffect(() => {
    handlers.current = { onChange, onSave };
  });

  const extensions = useMemo<Extension[]>(
    () => [
      Prec.highest(
        keymap.of([
          {
            key: "Mod-s",
            preventDefault: true,
            run: () => {
              handlers.current.onSave();
              return true;
            },
          },
        ]),
      ),
      basicSetup,
      markdown({ base: markdownLanguage }),
      syntaxHighlighting(markdownHighlight),
      EditorView.lineWrapping,
      EditorView.contentAttributes.of({ "aria-label": label }),
      editorTheme,
      EditorView.updateListener.of((update) => {
        if (!update.docChanged) return;
        if (update.transactions.some((tr) => tr.annotation(fromProps))) return;
        handlers.current.onChange(update.state.doc.toString());
      }),
    ],
    [label],
  );

  const createState = (doc: string) => EditorState.create({ doc, extensions });

  useLayoutEffect(() => {
    const view = new EditorView({ parent: hostRef.current!, state: createState(value) });
    viewRef.current = view;
    return () => {
      view.destroy();
      viewRef.current = null;
    };
    // The view is created once; later `value`/`docKey` changes are applied below.
  }, []);

  // Switching documents: park the old state, restore or create the new one.
  useLayoutEffect(() => {
    const view = viewRef.current;
    if (!view || keyRef.current === docKey) return;
    parkedStates.current.set(keyRef.current, view.state);
    view.setState(parkedStates.current.get(docKey) ?? createState(value));
    keyRef.current = docKey;
  }, [docKey]);

  // Mirror `value` into the document when it changed from outside the editor.
  useLayoutEffect(() => {
    const view = viewRef.current;
    if (!view) return;
    const current = view.state.doc.toString();
    const next = normalise(value);
    if (current === next) return;
    view.dispatch({ changes: minimalChange(current, next), annotations: fromProps.of(true) });
  }, [value, docKey]);

  return <div className="markdown-editor" data-testid="file-editor" ref={hostRef} />;
}
