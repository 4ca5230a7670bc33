import { useState, type FormEvent, type KeyboardEvent } from "react";
import type { AttentionRequest } from "../../bindings";
import { useAnswerRequest } from "../attention/attentionQueries";
import { answerDestination, MAX_ANSWER_CHARS } from "../attention/attention";
import { codePointLength } from "../../lib/format";
import { ErrorWithCode } from "../../components/ErrorMessage";

/** The user's answer to an agent's question, and where it will go before it is sent. */
export function AnswerForm({ request }: { request: AttentionRequest }) {
  const [text, setText] = useState("");
  const answer = useAnswerRequest();
  const tooLong = codePointLength(text) > MAX_ANSWER_CHARS;
  const canSend = text.trim() !== "" && !tooLong && !answer.isPending;

  const send = (e?: FormEvent) => {
    e?.preventDefault();
    if (!canSend) return;
    // The text stays until the backend takes it, so a refusal loses nothing.
    answer.mutate({ id: request.id, answer: { type: "text", text } }, { onSuccess: () => setText("") });
  };

  // Enter makes a new line (answers can be long); Ctrl/Cmd+Enter sends.
  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) send();
  };

  return (
    <form className="answer-form" onSubmit={send}>
      <textarea
        aria-label={`Your answer to ${request.agentName}`}
        rows={3}
        value={text}
        placeholder={`Answer ${request.agentName}…`}
        onChange={(e) => {
          setText(e.target.value);
          if (answer.error) answer.reset();
        }}
        onKeyDown={onKeyDown}
        aria-invalid={tooLong || undefined}
        data-testid={`answer-${request.id}`}
      />
      <div className="answer-form__foot">
        <p className="answer-form__where" data-testid={`answer-where-${request.id}`}>
          {tooLong ? `An answer has at most ${MAX_ANSWER_CHARS.toLocaleString("en-US")} characters.` : answerDestination(request)}
        </p>
        <button
          type="submit"
          className="button button--small button--primary"
          disabled={!canSend}
          data-testid={`send-answer-${request.id}`}
        >
          {answer.isPending ? "Sending…" : "Send answer"}
        </button>
      </div>
      <ErrorWithCode error={answer.error} />
    </form>
  );
}
