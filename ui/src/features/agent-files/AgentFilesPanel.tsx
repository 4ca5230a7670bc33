import { useState } from "react";
import type { RuntimeKind } from "../../bindings";
import { useAgentFiles } from "./agentFileQueries";
import { isDirty, sessionKey, useFileSession } from "./fileSessions";
import { errorMessage } from "../../errors";
import { sortAgentFileNames } from "./agentFiles";
import { ErrorMessage } from "../../components/ErrorMessage";
import { FileDiskSync } from "./FileDiskSync";
import { FileEditorPane } from "./FileEditorPane";

type TabProps = { agentId: string; name: string; selected: boolean; onSelect: () => void };

function FileTab({ agentId, name, selected, onSelect }: TabProps) {
  const session = useFileSession(sessionKey(agentId, name));
  const dirty = isDirty(session);
  return (
    <button
      type="button"
      role="tab"
      aria-selected={selected}
      className={`file-tab ${selected ? "is-active" : ""} ${dirty ? "is-dirty" : ""}`}
      onClick={onSelect}
      data-testid={`file-tab-${name}`}
    >
      {name}
      {dirty && (
        <span className="file-tab__dot" title="Unsaved changes">
          {" •"}
        </span>
      )}
    </button>
  );
}

type Props = { agentId: string; runtime: RuntimeKind };

/** The agent's markdown files: one tab per file, one editor. */
export function AgentFilesPanel({ agentId, runtime }: Props) {
  const files = useAgentFiles(agentId);
  const [selected, setSelected] = useState<string | null>(null);

  if (files.error) return <ErrorMessage message={errorMessage(files.error)} />;
  if (!files.data) return <p className="muted">Loading files…</p>;

  const names = sortAgentFileNames(files.data.map((f) => f.name));
  if (names.length === 0) return <p className="muted">This agent has no files.</p>;
  const current = selected !== null && names.includes(selected) ? selected : names[0];

  return (
    <div className="files-panel">
      {names.map((name) => (
        <FileDiskSync key={name} agentId={agentId} name={name} />
      ))}
      <div className="file-tabs" role="tablist" aria-label="Agent files">
        {names.map((name) => (
          <FileTab
            key={name}
            agentId={agentId}
            name={name}
            selected={name === current}
            onSelect={() => setSelected(name)}
          />
        ))}
      </div>
      <FileEditorPane agentId={agentId} runtime={runtime} name={current} />
    </div>
  );
}
