import { useEffect, useRef, useState, type KeyboardEvent } from "react";
import { copyText } from "../../lib/clipboard";
import { Menu, type MenuItem } from "../../components/Menu";

type Props = {
  /** The message as stored: Markdown for a reply, the typed text for the user's own. */
  markdown: string;
  /** The message as read on screen, for "Copy" (plain text). */
  plainText: () => string;
  /** Offered on the last reply: a new run with the same message. */
  onRetry?: () => void;
  /** Offered on the user's last message: edit it, then send it again. */
  onEdit?: () => void;
  /** Whose message, for the toolbar's name ("Actions for Scout's reply"). */
  label: string;
  testId?: string;
};

type Action = { key: string; label: string; run: () => void };

/**
 * A message's actions: Copy, Copy as Markdown, and Retry or Edit where they apply. A toolbar
 * shown while the pointer is over the message or the focus is in it (arrow keys move between its
 * buttons); at narrow widths a "⋯" menu instead (the stylesheet picks which one shows).
 */
export function MessageActions({ markdown, plainText, onRetry, onEdit, label, testId = "message-actions" }: Props) {
  const [said, setSaid] = useState<string | null>(null);
  const toolbar = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!said) return;
    const timer = setTimeout(() => setSaid(null), 1_500);
    return () => clearTimeout(timer);
  }, [said]);

  const copy = (text: string, what: string) =>
    copyText(text).then(
      () => setSaid(`${what} copied`),
      () => setSaid("Copying is not available here"),
    );
  const actions: Action[] = [
    { key: "copy", label: "Copy", run: () => void copy(plainText(), "Text") },
    { key: "copy-markdown", label: "Copy as Markdown", run: () => void copy(markdown, "Markdown") },
    ...(onRetry ? [{ key: "retry", label: "Retry", run: onRetry }] : []),
    ...(onEdit ? [{ key: "edit", label: "Edit and resend", run: onEdit }] : []),
  ];

  // One tab stop for the toolbar; arrows, Home and End move within it.
  const keyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    const buttons = Array.from(toolbar.current?.querySelectorAll<HTMLButtonElement>("button") ?? []);
    const at = buttons.indexOf(document.activeElement as HTMLButtonElement);
    const to =
      e.key === "ArrowRight"
        ? (at + 1) % buttons.length
        : e.key === "ArrowLeft"
          ? (at - 1 + buttons.length) % buttons.length
          : e.key === "Home"
            ? 0
            : e.key === "End"
              ? buttons.length - 1
              : -1;
    if (to < 0 || at < 0) return;
    e.preventDefault();
    buttons.forEach((b, i) => (b.tabIndex = i === to ? 0 : -1));
    buttons[to].focus();
  };

  const items: MenuItem[] = actions.map((a) => ({ label: a.label, onSelect: a.run, testId: `${testId}-menu-${a.key}` }));
  return (
    <div className="message-actions" data-testid={testId}>
      <div
        className="message-actions__toolbar"
        role="toolbar"
        aria-label={`Actions for ${label}`}
        ref={toolbar}
        onKeyDown={keyDown}
      >
        {actions.map((a, i) => (
          <button
            key={a.key}
            type="button"
            className="message-actions__button"
            tabIndex={i === 0 ? 0 : -1}
            onClick={a.run}
            data-testid={`${testId}-${a.key}`}
          >
            {a.label}
          </button>
        ))}
      </div>
      <Menu label={`Actions for ${label}`} items={items} className="message-actions__menu" testId={`${testId}-menu`} />
      <span className="message-actions__said" role="status" aria-live="polite">
        {said}
      </span>
    </div>
  );
}

/** The user's last message, open for editing in place: Enter sends, Shift+Enter adds a line,
 *  Escape cancels. */
export function MessageEditor({
  initialText,
  onSend,
  onCancel,
  sending,
}: {
  initialText: string;
  onSend: (text: string) => void;
  onCancel: () => void;
  sending: boolean;
}) {
  const [text, setText] = useState(initialText);
  const input = useRef<HTMLTextAreaElement>(null);
  useEffect(() => {
    const field = input.current;
    field?.focus();
    field?.setSelectionRange(field.value.length, field.value.length);
  }, []);
  const trimmed = text.trim();
  const send = () => {
    if (trimmed && !sending) onSend(trimmed);
  };
  const keyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === "Escape") {
      e.preventDefault();
      onCancel();
    } else if (e.key === "Enter" && !e.shiftKey && !e.nativeEvent.isComposing) {
      e.preventDefault();
      send();
    }
  };
  return (
    <div className="message-editor" data-testid="message-editor">
      <textarea
        ref={input}
        className="composer__input"
        rows={2}
        value={text}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={keyDown}
        aria-label="Edit your message"
        data-testid="message-editor-input"
      />
      <div className="message-editor__actions">
        <button type="button" className="button button--small" onClick={onCancel} data-testid="message-editor-cancel">
          Cancel
        </button>
        <button
          type="button"
          className="button button--primary button--small"
          onClick={send}
          disabled={!trimmed || sending}
          data-testid="message-editor-send"
        >
          Send
        </button>
      </div>
      <p className="composer__hint">The earlier message and its reply stay, folded, marked edited.</p>
    </div>
  );
}
