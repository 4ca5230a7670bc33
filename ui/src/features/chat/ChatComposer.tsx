import { useId, useLayoutEffect, useRef, useState, type FormEvent, type KeyboardEvent } from "react";
import { completeMention, mentionQuery, suggestTeams } from "./teamMentions";

const CONVERSATION_COMMANDS = ["/reset", "/new"];

type Props = {
  /** Text left in the composer last time (kept across tab switches). */
  initialText: string;
  onTextChange: (text: string) => void;
  /** A run is going: sending waits, stopping is offered. */
  running: boolean;
  sending: boolean;
  stopping: boolean;
  /** Rejects when the message was not sent; the text is then put back. */
  onSend: (text: string) => Promise<unknown>;
  onStop: () => void;
  /** Names `@` may complete: team names (Boo Zero's chat) or teammates' handles (a team room). */
  mentionables?: string[];
  mentionKind?: "team" | "teammate";
};

/** Where the user writes to the agent. Enter sends, Shift+Enter starts a new line. */
export function ChatComposer({
  initialText,
  onTextChange,
  running,
  sending,
  stopping,
  onSend,
  onStop,
  mentionables,
  mentionKind = "team",
}: Props) {
  const id = useId();
  const [text, setText] = useState(initialText);
  const [cursor, setCursor] = useState(initialText.length);
  const latest = useRef(text);
  const input = useRef<HTMLTextAreaElement>(null);
  const placeCaret = useRef<number | null>(null);
  const mention = mentionables?.length ? mentionQuery(text, cursor) : null;
  const suggestions = mention && mentionables ? suggestTeams(mentionables, mention.query) : [];
  const trimmed = text.trim();
  // A run blocks new messages, but /reset and /new may end the conversation at any time.
  const canSend = !sending && trimmed.length > 0 && (!running || CONVERSATION_COMMANDS.includes(trimmed));

  const change = (next: string) => {
    latest.current = next;
    setText(next);
    onTextChange(next);
  };

  const send = () => {
    if (!canSend) return;
    const message = trimmed;
    change("");
    onSend(message).catch(() => {
      // Give the words back unless the user has started on something new.
      if (!latest.current) change(message);
    });
  };

  const submit = (e: FormEvent) => {
    e.preventDefault();
    send();
  };

  const complete = (name: string) => {
    if (!mention) return;
    const next = completeMention(text, cursor, mention, name);
    change(next.text);
    setCursor(next.cursor);
    placeCaret.current = next.cursor;
  };

  // The caret goes after a completed mention as soon as the new text is in the field, before the
  // next key can land (a later frame would race a fast typist).
  useLayoutEffect(() => {
    if (placeCaret.current === null) return;
    input.current?.focus();
    input.current?.setSelectionRange(placeCaret.current, placeCaret.current);
    placeCaret.current = null;
  });

  const keyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === "Tab" && !e.shiftKey && suggestions.length > 0) {
      e.preventDefault();
      complete(suggestions[0]);
      return;
    }
    if (e.key !== "Enter" || e.shiftKey || e.nativeEvent.isComposing) return;
    e.preventDefault();
    send();
  };

  return (
    <form className="composer" onSubmit={submit}>
      <div className="composer__row">
        <textarea
          id={`${id}-input`}
          className="composer__input"
          rows={2}
          ref={input}
          value={text}
          onChange={(e) => {
            change(e.target.value);
            setCursor(e.target.selectionStart ?? e.target.value.length);
          }}
          onSelect={(e) => setCursor(e.currentTarget.selectionStart ?? text.length)}
          onKeyDown={keyDown}
          placeholder="Write a message…"
          aria-label="Message"
          aria-describedby={`${id}-hint`}
          data-testid="chat-input"
        />
        <div className="composer__actions">
          {running && (
            <button
              type="button"
              className="button button--danger-subtle"
              onClick={onStop}
              disabled={stopping}
              data-testid="chat-stop"
            >
              {stopping ? "Stopping…" : "Stop"}
            </button>
          )}
          <button type="submit" className="button button--primary" disabled={!canSend} data-testid="chat-send">
            Send
          </button>
        </div>
      </div>
      {suggestions.length > 0 && (
        <ul
          className="composer__mentions"
          aria-label={mentionKind === "team" ? "Teams to mention" : "Teammates to mention"}
          data-testid={`${mentionKind}-mention-suggestions`}
        >
          {suggestions.map((name) => (
            <li key={name}>
              <button
                type="button"
                className="button button--small"
                // Keeps the focus (and the cursor) in the message.
                onMouseDown={(e) => e.preventDefault()}
                onClick={() => complete(name)}
                data-testid={`${mentionKind}-mention-${name}`}
              >
                @{name}
              </button>
            </li>
          ))}
        </ul>
      )}
      <p className="composer__hint" id={`${id}-hint`}>
        /reset starts a fresh conversation · Enter sends, Shift+Enter adds a line
        {mentionables !== undefined &&
          (mentionKind === "team"
            ? " · @TeamName brings a team's brief, cards, memory and recent chat (Tab completes)"
            : " · @handle addresses a teammate (Tab completes)")}
      </p>
    </form>
  );
}
