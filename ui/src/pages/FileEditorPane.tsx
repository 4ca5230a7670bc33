import { useCallback, useEffect, useRef, useState } from "react";
import { useAgentFile, useAppInfo, useWriteAgentFile } from "../queries";
import { isDirty, sessionKey, useFileSession, useFileSessionStore } from "../fileSessions";
import { errorMessage } from "../errors";
import { PERSONA_FILE } from "../lib/agentFiles";
import { MarkdownEditor } from "../components/MarkdownEditor";
import { SoulMeter } from "../components/SoulMeter";
import { ConflictBanner } from "../components/ConflictBanner";
import { ErrorMessage } from "../components/ErrorMessage";

type Props = { agentId: string; name: string };

/** Editor, save controls and status for the selected agent file. */
export function FileEditorPane({ agentId, name }: Props) {
  const key = sessionKey(agentId, name);
  const store = useFileSessionStore();
  const session = useFileSession(key);
  const file = useAgentFile(agentId, name);
  const appInfo = useAppInfo();
  const write = useWriteAgentFile(agentId);
  const [saveErrors, setSaveErrors] = useState<Record<string, string>>({});

  const setSaveError = useCallback(
    (message: string | null) =>
      setSaveErrors(({ [key]: _old, ...rest }) => (message ? { ...rest, [key]: message } : rest)),
    [key],
  );

  const save = useCallback(() => {
    const current = store.get(key);
    if (!current || current.saving !== null) return;
    if (!isDirty(current) && current.conflict === null) return;
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
  }, [store, key, name, write, setSaveError]);

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
        <MarkdownEditor
          docKey={key}
          value={session.draft}
          onChange={onChange}
          onSave={save}
          label={`${name} editor`}
        />
      </div>

      <div className="file-pane__footer">
        <div className="file-pane__status">
          {name === PERSONA_FILE && appInfo.data && (
            <SoulMeter text={session.draft} budget={appInfo.data.personaBudget} />
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
    </div>
  );
}
