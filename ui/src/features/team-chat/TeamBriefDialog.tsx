import { useState, type FormEvent } from "react";
import type { Team } from "../../bindings";
import {
  useAddTeamRule,
  useRemoveTeamRule,
  useSetAboutYou,
  useSetTeamBrief,
  useSetTeamProjectFolder,
} from "./teamQueries";
import { errorMessage } from "../../errors";
import { Modal } from "../../components/Modal";
import { ErrorMessage } from "../../components/ErrorMessage";
import { CharCounter, charCount } from "../../components/CharCounter";
import { MAX_ABOUT_YOU_CHARS, MAX_BRIEF_CHARS, MAX_RULES_CHARS } from "./limits";

import { BudgetEditor } from "../limits/BudgetEditor";

type Props = { team: Team; onClose: () => void };

/** The team's brief, its rules (with their shared 4,000-character budget), About you and its
 *  spending budgets. */
export function TeamBriefDialog({ team, onClose }: Props) {
  return (
    <Modal title="Team brief & rules" onClose={onClose} testId="team-brief-dialog">
      <div className="brief-dialog">
        <RulesSection team={team} />
        <TextSection
          key={`brief-${team.id}`}
          team={team}
          label="Brief"
          hint="What this team is for. For you and the team page; agents are not sent the brief."
          initial={team.brief}
          max={MAX_BRIEF_CHARS}
          rows={4}
          testId="team-brief"
          useSave={useSetTeamBrief}
        />
        <ProjectFolderSection key={`folder-${team.id}`} team={team} />
        <TextSection
          key={`about-${team.id}`}
          team={team}
          label="About you"
          hint="Your introduction: the leader, and anyone you @mention, read it before answering you."
          initial={team.aboutYou}
          max={MAX_ABOUT_YOU_CHARS}
          rows={4}
          testId="team-about-you"
          useSave={useSetAboutYou}
        />
        <section className="brief-dialog__section" aria-label="Budgets">
          <h3>Budgets</h3>
          <BudgetEditor scope="team" scopeId={team.id} what="Every run of this team's members in its rooms and on its cards" />
        </section>
      </div>
      <div className="modal__actions">
        <button type="button" className="button" onClick={onClose} data-testid="team-brief-close">
          Close
        </button>
      </div>
    </Modal>
  );
}

function RulesSection({ team }: { team: Team }) {
  const [draft, setDraft] = useState("");
  const add = useAddTeamRule();
  const remove = useRemoveTeamRule();
  const stored = team.rules.reduce((sum, r) => sum + charCount(r.text), 0);
  const total = stored + charCount(draft.trim());

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!draft.trim() || add.isPending) return;
    add.mutate({ id: team.id, text: draft }, { onSuccess: () => setDraft("") });
  };

  const error = add.error ?? remove.error;

  return (
    <section className="brief-dialog__section" aria-labelledby="team-rules-heading">
      <div className="brief-dialog__heading">
        <h3 id="team-rules-heading">Rules</h3>
        <CharCounter count={total} max={MAX_RULES_CHARS} testId="rules-counter" />
      </div>
      <p className="field__hint">
        Every agent of the team follows these, as set by you. Tip: type <code>/rule &lt;text&gt;</code> in the team chat
        to add one.
      </p>
      {team.rules.length === 0 ? (
        <p className="muted" data-testid="no-rules">
          No rules yet.
        </p>
      ) : (
        <ol className="rule-list" data-testid="rule-list">
          {team.rules.map((rule, index) => (
            <li key={rule.id} className="rule-list__item">
              <span className="rule-list__number" aria-hidden="true">
                {index + 1}.
              </span>
              <span className="rule-list__text">{rule.text}</span>
              <button
                type="button"
                className="button button--small button--danger-subtle"
                onClick={() => remove.mutate({ id: team.id, ruleId: rule.id })}
                disabled={remove.isPending}
                aria-label={`Remove rule: ${rule.text}`}
                data-testid="remove-rule"
              >
                Remove
              </button>
            </li>
          ))}
        </ol>
      )}
      <form className="rule-add" onSubmit={submit}>
        <input
          type="text"
          value={draft}
          placeholder="Add a rule, e.g. “Cite your sources.”"
          onChange={(e) => {
            setDraft(e.target.value);
            if (add.error) add.reset();
          }}
          disabled={add.isPending}
          aria-label="New rule"
          data-testid="rule-input"
        />
        <button
          type="submit"
          className="button button--primary"
          disabled={!draft.trim() || add.isPending}
          data-testid="rule-add"
        >
          Add rule
        </button>
      </form>
      <ErrorMessage message={error ? errorMessage(error) : null} />
    </section>
  );
}

type TextSectionProps = {
  team: Team;
  label: string;
  hint: string;
  initial: string;
  max: number;
  rows: number;
  testId: string;
  useSave: typeof useSetTeamBrief;
};

function TextSection({ team, label, hint, initial, max, rows, testId, useSave }: TextSectionProps) {
  const [text, setText] = useState(initial);
  const [savedText, setSavedText] = useState(initial);
  const save = useSave();
  const count = charCount(text.trim());
  const dirty = text !== savedText;

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (save.isPending) return;
    save.mutate({ id: team.id, text }, { onSuccess: () => setSavedText(text) });
  };

  return (
    <form className="brief-dialog__section" onSubmit={submit}>
      <div className="brief-dialog__heading">
        <h3>
          <label htmlFor={`${testId}-input`}>{label}</label>
        </h3>
        <CharCounter count={count} max={max} testId={`${testId}-counter`} />
      </div>
      <p className="field__hint">{hint}</p>
      <textarea
        id={`${testId}-input`}
        value={text}
        rows={rows}
        onChange={(e) => {
          setText(e.target.value);
          if (save.error) save.reset();
        }}
        disabled={save.isPending}
        data-testid={`${testId}-input`}
      />
      <div className="brief-dialog__save">
        {!dirty && save.isSuccess && <span className="saved-notice">Saved</span>}
        <button
          type="submit"
          className="button button--small"
          disabled={!dirty || save.isPending}
          data-testid={`${testId}-save`}
        >
          {save.isPending ? "Saving…" : `Save ${label.toLowerCase()}`}
        </button>
      </div>
      <ErrorMessage message={save.error ? errorMessage(save.error) : null} />
    </form>
  );
}

/** Where the team's Board cards work when a card names no folder of its own. */
function ProjectFolderSection({ team }: { team: Team }) {
  const [folder, setFolder] = useState(team.projectFolder ?? "");
  const save = useSetTeamProjectFolder();
  const dirty = folder.trim() !== (team.projectFolder ?? "");
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (save.isPending) return;
    save.mutate({ id: team.id, folder: folder.trim() === "" ? null : folder.trim() });
  };
  return (
    <form className="brief-dialog__section" onSubmit={submit}>
      <div className="brief-dialog__heading">
        <h3>
          <label htmlFor="team-folder-input">Project folder</label>
        </h3>
      </div>
      <p className="field__hint">
        Where the team&apos;s Board cards work, unless a card names its own. A git repository gets one worktree and
        branch per card; your checkout is never touched.
      </p>
      <input
        id="team-folder-input"
        className="mono"
        value={folder}
        placeholder="/home/me/code/shop"
        onChange={(e) => {
          setFolder(e.target.value);
          if (save.error) save.reset();
        }}
        disabled={save.isPending}
        data-testid="team-folder-input"
      />
      <div className="brief-dialog__save">
        {!dirty && save.isSuccess && <span className="saved-notice">Saved</span>}
        <button type="submit" className="button button--small" disabled={!dirty || save.isPending} data-testid="team-folder-save">
          Save
        </button>
      </div>
      <ErrorMessage message={save.error ? errorMessage(save.error) : null} />
    </form>
  );
}
