import { useState, type FormEvent } from "react";
import type { BooZeroInfo } from "../../bindings";
import { useBooZero, useSetBooZeroRules, useSetGlobalBrief } from "./booZeroQueries";
import { errorMessage } from "../../errors";
import { CharCounter, charCount } from "../../components/CharCounter";
import { ErrorMessage } from "../../components/ErrorMessage";

/** Details > Brief on Boo Zero's page: the user's global brief, saved and sent to no agent. */
export function BooZeroBrief() {
  const info = useBooZero();
  if (info.error) return <ErrorMessage message={errorMessage(info.error)} />;
  if (!info.data) return <p className="muted">Loading…</p>;
  return <BriefForm info={info.data} />;
}

function BriefForm({ info }: { info: BooZeroInfo }) {
  const [text, setText] = useState(info.globalBrief);
  const save = useSetGlobalBrief();
  const dirty = text.trim() !== info.globalBrief;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!save.isPending) save.mutate(text);
  };
  return (
    <form className="brief-dialog__section" onSubmit={submit} data-testid="boo-zero-brief">
      <div className="brief-dialog__heading">
        <h3>
          <label htmlFor="boo-zero-brief-input">Brief</label>
        </h3>
        <CharCounter count={charCount(text.trim())} max={info.globalBriefBudget} testId="boo-zero-brief-counter" />
      </div>
      <p className="field__hint" data-testid="boo-zero-brief-note">
        Saved here, sent to no agent. Your own notes on what all your teams are for.
      </p>
      <textarea
        id="boo-zero-brief-input"
        value={text}
        rows={10}
        onChange={(e) => {
          setText(e.target.value);
          if (save.error) save.reset();
        }}
        disabled={save.isPending}
        data-testid="boo-zero-brief-input"
      />
      <div className="brief-dialog__save">
        {!dirty && save.isSuccess && <span className="saved-notice">Saved</span>}
        <button
          type="submit"
          className="button button--small"
          disabled={!dirty || save.isPending}
          data-testid="boo-zero-brief-save"
        >
          {save.isPending ? "Saving…" : "Save brief"}
        </button>
      </div>
      <ErrorMessage message={save.error ? errorMessage(save.error) : null} />
    </form>
  );
}

/** Details > Rules on Boo Zero's page: sent in front of every message of its chat. */
export function BooZeroRules() {
  const info = useBooZero();
  if (info.error) return <ErrorMessage message={errorMessage(info.error)} />;
  if (!info.data) return <p className="muted">Loading…</p>;
  // Keyed by what is stored: a save or a reset to the default starts the form over.
  return <RulesForm key={info.data.rules} info={info.data} />;
}

function RulesForm({ info }: { info: BooZeroInfo }) {
  const [text, setText] = useState(info.rules);
  const save = useSetBooZeroRules();
  const count = charCount(text.trim());
  const over = count > info.rulesBudget;
  const dirty = text.trim() !== info.rules.trim();
  const ratio = Math.min(count / info.rulesBudget, 1);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!save.isPending && !over) save.mutate(text);
  };
  return (
    <form className="brief-dialog__section" onSubmit={submit} data-testid="boo-zero-rules">
      <div className="brief-dialog__heading">
        <h3>
          <label htmlFor="boo-zero-rules-input">Rules</label>
        </h3>
        {info.rulesAreDefault && (
          <span className="pill pill--muted" data-testid="boo-zero-rules-default">
            Default
          </span>
        )}
      </div>
      <p className="field__hint">
        Sent in front of every message you write to Boo Zero, never kept in its conversation. Mention a team with
        @TeamName and that message also carries the team&apos;s brief, open cards, saved memory and recent chat.
      </p>
      <div className={`file-meter ${over ? "is-over" : ""}`} data-testid="boo-zero-rules-meter">
        <div className="file-meter__row">
          <CharCounter count={count} max={info.rulesBudget} testId="boo-zero-rules-counter" />
          <span className="file-meter__bar" aria-hidden="true">
            <span className="file-meter__fill" style={{ width: `${ratio * 100}%` }} />
          </span>
        </div>
        {over && (
          <p className="file-meter__warning" data-testid="boo-zero-rules-over">
            {count - info.rulesBudget} characters over the budget: shorten the rules to save them.
          </p>
        )}
      </div>
      <textarea
        id="boo-zero-rules-input"
        value={text}
        rows={10}
        onChange={(e) => {
          setText(e.target.value);
          if (save.error) save.reset();
        }}
        disabled={save.isPending}
        data-testid="boo-zero-rules-input"
      />
      <div className="brief-dialog__save">
        {!dirty && save.isSuccess && <span className="saved-notice">Saved</span>}
        {!info.rulesAreDefault && (
          <button
            type="button"
            className="button button--small"
            disabled={save.isPending}
            onClick={() => save.mutate(null)}
            data-testid="boo-zero-rules-reset"
          >
            Back to the default
          </button>
        )}
        <button
          type="submit"
          className="button button--small"
          disabled={!dirty || over || save.isPending}
          data-testid="boo-zero-rules-save"
        >
          {save.isPending ? "Saving…" : "Save rules"}
        </button>
      </div>
      <ErrorMessage message={save.error ? errorMessage(save.error) : null} />
    </form>
  );
}
