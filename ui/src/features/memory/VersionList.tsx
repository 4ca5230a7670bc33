import type { FactChange, FactVersion } from "../../bindings";
import { diffWords } from "./textDiff";
import { authorLabel, formatTime } from "./memoryLabels";

const CHANGES: Record<FactChange, string> = {
  created: "Created",
  edited: "Edited",
  deleted: "Deleted",
  restored: "Restored",
};

/** A fact's versions, oldest first; each edit shows the words it removed and added. */
export function VersionList({ versions }: { versions: FactVersion[] }) {
  return (
    <ol className="memory-versions" data-testid="memory-versions">
      {versions.map((version, i) => (
        <VersionRow key={version.version} version={version} previous={i > 0 ? versions[i - 1] : null} />
      ))}
    </ol>
  );
}

function VersionRow({ version, previous }: { version: FactVersion; previous: FactVersion | null }) {
  const tagsBefore = previous?.tags.join(", ") ?? "";
  const tagsNow = version.tags.join(", ");
  return (
    <li className={`memory-version memory-version--${version.change}`} data-testid={`memory-version-${version.version}`}>
      <div className="memory-version__head">
        <span className="memory-version__number">v{version.version}</span>
        <span className="memory-version__change" data-testid={`memory-version-change-${version.version}`}>
          {CHANGES[version.change]}
        </span>
        <span>by {authorLabel(version.by)}</span>
        <time className="muted">{formatTime(version.at)}</time>
      </div>
      {!previous ? (
        <p className="memory-version__text">{version.text}</p>
      ) : previous.text !== version.text ? (
        <p className="memory-version__text memory-diff" data-testid={`memory-diff-${version.version}`}>
          {diffWords(previous.text, version.text).map((part, i) =>
            part.kind === "same" ? (
              <span key={i}>{part.text}</span>
            ) : part.kind === "added" ? (
              <ins key={i}>{part.text}</ins>
            ) : (
              <del key={i}>{part.text}</del>
            ),
          )}
        </p>
      ) : null}
      {previous && tagsBefore !== tagsNow && (
        <p className="memory-version__tags muted">
          Tags: {tagsBefore || "none"} → {tagsNow || "none"}
        </p>
      )}
      {!previous && version.tags.length > 0 && <p className="memory-version__tags muted">Tags: {tagsNow}</p>}
    </li>
  );
}
