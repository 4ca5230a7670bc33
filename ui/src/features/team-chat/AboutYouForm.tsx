import { useState, type FormEvent } from "react";
import type { Team } from "../../bindings";
import { useSetAboutYou } from "./teamQueries";
import { errorMessage } from "../../errors";
import { ErrorMessage } from "../../components/ErrorMessage";
import { CharCounter, charCount } from "../../components/CharCounter";
import { MAX_ABOUT_YOU_CHARS } from "./limits";

type Props = { team: Team };

/** Shown instead of the chat until the user has introduced themselves to the team. */
export function AboutYouGate({ team }: Props) {
  const [text, setText] = useState("");
  const save = useSetAboutYou();
  const count = charCount(text.trim());
  const over = count > MAX_ABOUT_YOU_CHARS;

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!text.trim() || over || save.isPending) return;
    save.mutate({ id: team.id, text });
  };

  return (
    <form className="about-you-gate" onSubmit={submit} data-testid="about-you-gate">
      <h2>Introduce yourself to this team</h2>
      <p className="muted">
        Who you are, what you do and how you like answers. The leader — and anyone you @mention — reads this before
        answering you. You can change it later under “Team brief &amp; rules”.
      </p>
      <textarea
        value={text}
        rows={7}
        placeholder="I'm Sam, I run a small bakery. Keep answers short and practical."
        onChange={(e) => {
          setText(e.target.value);
          if (save.error) save.reset();
        }}
        disabled={save.isPending}
        aria-label="About you"
        data-testid="about-you-input"
      />
      <div className="about-you-gate__footer">
        <CharCounter count={count} max={MAX_ABOUT_YOU_CHARS} testId="about-you-counter" />
        <button
          type="submit"
          className="button button--primary"
          disabled={!text.trim() || over || save.isPending}
          data-testid="about-you-save"
        >
          {save.isPending ? "Saving…" : "Save and start chatting"}
        </button>
      </div>
      <ErrorMessage message={save.error ? errorMessage(save.error) : null} />
    </form>
  );
}
