import { useId, useRef, useState, type FormEvent, type KeyboardEvent } from "react";

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
};

/** Where the user writes to the agent. Enter sends, Shift+Enter starts a new line. */
export function ChatComposer({ initialText, onTextChange, running, sending, stopping, onSend, onStop }: Props) {
  const id = useId();
  const [text, setText] = useState(initialText);
  const latest = useRef(text);
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

  const keyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
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
          value={text}
          onChange={(e) => change(e.target.value)}
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
      <p className="composer__hint" id={`${id}-hint`}>
        /reset starts a fresh conversation · Enter sends, Shift+Enter adds a line
      </p>
    </form>
  );
}
