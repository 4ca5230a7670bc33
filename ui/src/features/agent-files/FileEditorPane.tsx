import { lazy, Suspense, useCallback, useEffect, useRef, useState } from "react";
import type { RuntimeKind } from "../../bindings";
import { useAgentFile, useAgentFileRoutes, useWriteAgentFile } from "./agentFileQueries";
import { useAppInfo } from "../settings/settingsQueries";
import { isDirty, sessionKey, useFileSession, useFileSessionStore } from "./fileSessions";
import { errorMessage } from "../../errors";
import { charsOverBudget, fileChars, PERSONA_FILE } from "./agentFiles";
import { formatCount } from "../../lib/format";
import { runtimeLabel } from "../../lib/runtimes";
import { FileBudgetMeter } from "./FileBudgetMeter";
import { ConfirmDialog } from "../../components/ConfirmDialog";
import { ConflictBanner } from "./ConflictBanner";
import { ErrorMessage } from "../../components/ErrorMessage";

// CodeMirror is most of the UI's weight: it loads when a file is first opened.
const MarkdownEditor = lazy(() => import("./MarkdownEditor").then((m) => ({ default: m.MarkdownEditor })));

type Props = { agentId: string; runtime: RuntimeKind; name: string };

/** Editor, save controls and status for the selected agent file. */
export function FileEditorPane({ agentId, runtime, name }: Props) {
  const key = sessionKey(agentId, name);
  const store = useFileSessionStore();
  const session = useFileSession(key);
  const file = useAgentFile(agentId, name);
  const appInfo = useAppInfo();
  const routes = useAgentFileRoutes(agentId);
  const write = useWriteAgentFile(agentId);
  const [saveErrors, setSaveErrors] = useState<Record<string, string>>({});
  // The over-budget confirm, open for this file's session key.
  const [confirmingKey, setConfirmingKey] = useState<string | null>(null);

  const route = routes.data?.find((r) => r.file === name) ?? null;
  // Until the routes load, SOUL.md still has its known budget.
  const budget = route?.budget ?? (name === PERSONA_FILE ? appInfo.data?.personaBudget : undefined);

  const setSaveError = useCallback(
    (message: string | null) =>
      setSaveErrors(({ [key]: _old, ...rest }) => (message ? { ...rest, [key]: message } : rest)),
    [key],
  );

  const canSave = useCallback(() => {
    const current = store.get(key);
    return !!current && current.saving === null && (isDirty(current) || current.conflict !== null);
  }, [store, key]);

  const writeDraft = useCallback(() => {
    const current = store.get(key);
    if (!current || !canSave()) return;
    const content = current.draft;
    setSaveError(null);
    store.saveStarted(key, content);
    write.mutateAsync({ name, content }).then(
      () => store.saveFinished(key, content),
      (e: unknown) => {
        store.saveFinished(key, null);
        setSaveError(errorMessage(e));
      },
    );
  }, [store, key, name, write, setSaveError, canSave]);

  // A draft over a budget that applies is saved only once the user says so: its runs would be
  // refused until it is shortened. The text itself is never cut or lost.
  const save = useCallback(() => {
    const current = store.get(key);
    if (!current || !canSave()) return;
    if (route?.budgetApplies && charsOverBudget(current.draft, route.budget) > 0) setConfirmingKey(key);
    else writeDraft();
  }, [store, key, canSave, route, writeDraft]);

  const onChange = useCallback((text: string) => store.setDraft(key, text), [store, key]);

  // Ctrl/Cmd-S also saves when focus is outside the editor (a tab, the Save button).
  // Inside the editor, CodeMirror's keymap handles it first and prevents the default.
  const saveRef = useRef(save);
  useEffect(() => {
    saveRef.current = save;
  });
  useEffect(() => {
    const onKeyDown = (e: KeyboardEvent) => {
      if (e.defaultPrevented || e.altKey || e.shiftKey || !(e.ctrlKey || e.metaKey)) return;
      if (e.key.toLowerCase() !== "s") return;
      e.preventDefault();
      saveRef.current();
    };
    window.addEventListener("keydown", onKeyDown);
    return () => window.removeEventListener("keydown", onKeyDown);
  }, []);

  if (!session) {
    return (
      <div className="file-pane file-pane--placeholder">
        {file.error ? <ErrorMessage message={errorMessage(file.error)} /> : <p className="muted">Loading {name}…</p>}
      </div>
    );
  }

  const dirty = isDirty(session);
  const saving = session.saving !== null;

  return (
    <div className="file-pane">
      {session.conflict !== null && (
        <ConflictBanner
          fileName={name}
          onLoadDisk={() => store.loadDiskVersion(key)}
          onKeepMine={() => store.keepMyEdits(key)}
        />
      )}

      <div className="file-pane__editor">
        <Suspense fallback={null}>
          <MarkdownEditor
            docKey={key}
            value={session.draft}
            onChange={onChange}
            onSave={save}
            label={`${name} editor`}
          />
        </Suspense>
      </div>

      <div className="file-pane__footer">
        <div className="file-pane__status">
          {budget !== undefined && (
            <FileBudgetMeter
              name={name}
              text={session.draft}
              budget={budget}
              route={route}
              runtimeLabel={runtimeLabel(runtime)}
            />
          )}
          <ErrorMessage message={saveErrors[key]} />
        </div>
        <div className="file-pane__actions">
          {dirty && (
            <span className="dirty-label" data-testid="dirty-marker">
              Unsaved changes
            </span>
          )}
          <span className="shortcut-hint">Ctrl/⌘ S</span>
          <button
            type="button"
            className="button button--primary"
            onClick={save}
            disabled={saving || (!dirty && session.conflict === null)}
            data-testid="save-file-button"
          >
            {saving ? "Saving…" : "Save"}
          </button>
        </div>
      </div>

      {confirmingKey === key && route && (
        <ConfirmDialog
          title={`Save ${name} over its budget?`}
          confirmLabel="Save anyway"
          cancelLabel="Keep editing"
          confirmTestId="save-over-budget-confirm"
          cancelTestId="save-over-budget-cancel"
          onConfirm={() => {
            setConfirmingKey(null);
            writeDraft();
          }}
          onCancel={() => setConfirmingKey(null)}
        >
          <p>
            <strong>{name}</strong> has {formatCount(fileChars(session.draft))} characters, over its budget of{" "}
            {formatCount(route.budget)} by {formatCount(charsOverBudget(session.draft, route.budget))}. While it is,
            this agent&apos;s runs are refused; nothing is ever cut. Save anyway keeps your text exactly as written;
            Keep editing leaves it here, unsaved.
          </p>
        </ConfirmDialog>
      )}
    </div>
  );
}
