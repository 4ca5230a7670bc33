import { useEffect, useId, useState, type FormEvent } from "react";
import { CopyCommand, isCommand } from "../../components/CopyCommand";
import type { RuntimeAccess, RuntimeInfo } from "../../bindings";
import { useSetRuntimePath } from "./settingsQueries";
import { errorMessage } from "../../errors";
import { ErrorMessage } from "../../components/ErrorMessage";
import { RuntimeAccessChoice } from "./RuntimeAccessChoice";

/** `access`: for runtimes that can use the user's own sign-in instead of a key. */
type Props = { info: RuntimeInfo; access?: RuntimeAccess };

/** Whether a runtime was found on this machine, and a way to point at it by hand. */
export function RuntimeRow({ info, access }: Props) {
  const { kind, label, found, path, version, customPath, installHint, problem } = info;
  const id = useId();
  const [draft, setDraft] = useState(customPath ?? "");
  const [notice, setNotice] = useState<string | null>(null);
  const setPath = useSetRuntimePath();

  useEffect(() => setDraft(customPath ?? ""), [customPath]);

  const save = (path: string | null, done: string) => {
    setNotice(null);
    setPath.reset();
    setPath.mutate({ kind, path }, { onSuccess: () => setNotice(done) });
  };

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const trimmed = draft.trim();
    if (!trimmed || setPath.isPending) return;
    save(trimmed, "Path saved.");
  };

  return (
    <li className="runtime" data-testid={`runtime-${kind}`}>
      <div className="runtime__head">
        <span className="runtime__label">{label}</span>
        <span className={`status ${found ? "status--ok" : "status--off"}`} data-testid={`runtime-status-${kind}`}>
          {found ? "Found" : "Not found"}
        </span>
      </div>

      {found ? (
        <p className="runtime__found">
          {path && <code>{path}</code>}
          {version && <span className="muted"> {version}</span>}
          {customPath && <span className="runtime__tag">set by hand</span>}
        </p>
      ) : (
        <p className="runtime__hint">{isCommand(installHint) ? <CopyCommand command={installHint} /> : installHint}</p>
      )}
      {problem && <p className="runtime__problem">{problem}</p>}
      {access && <RuntimeAccessChoice access={access} />}

      {kind !== "native" && (
        <form className="provider__form provider__form--small" onSubmit={submit}>
          <label className="provider__url-label" htmlFor={`${id}-path`}>
            Path
          </label>
          <input
            id={`${id}-path`}
            type="text"
            value={draft}
            onChange={(e) => setDraft(e.target.value)}
            placeholder={path ?? "Detected automatically"}
            spellCheck={false}
            autoComplete="off"
            disabled={setPath.isPending}
            data-testid={`runtime-path-${kind}`}
          />
          <button
            type="submit"
            className="button button--small"
            disabled={setPath.isPending || !draft.trim()}
            data-testid={`save-runtime-path-${kind}`}
          >
            Save
          </button>
          {customPath && (
            <button
              type="button"
              className="button button--small"
              onClick={() => save(null, "Using automatic detection.")}
              disabled={setPath.isPending}
              data-testid={`clear-runtime-path-${kind}`}
            >
              Use automatic detection
            </button>
          )}
        </form>
      )}

      <ErrorMessage message={setPath.error ? errorMessage(setPath.error) : null} />
      {notice && !setPath.error && (
        <p className="provider__notice" role="status">
          {notice}
        </p>
      )}
    </li>
  );
}
