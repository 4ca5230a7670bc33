import { useQuery } from "@tanstack/react-query";
import { call } from "../../api";
import { boardKeys } from "./boardQueries";
import { errorMessage } from "../../errors";
import { ErrorMessage } from "../../components/ErrorMessage";

/** What the card's runs changed in its git repository: the files and the unified diff, from
 *  the card's own branch (its worktree while the card is open). */
export function CardDiffView({ cardId }: { cardId: string }) {
  const diff = useQuery({ queryKey: boardKeys.diff(cardId), queryFn: () => call("boardRunDiff", cardId) });
  if (diff.error) return <ErrorMessage message={errorMessage(diff.error)} />;
  if (!diff.data) return <p className="muted">Loading the changes…</p>;
  const { branch, base, filesChanged, patch, truncated, live } = diff.data;
  return (
    <div className="card-diff" data-testid="card-diff">
      <p className="muted">
        Branch <code>{branch}</code> from <code>{base.slice(0, 10)}</code>
        {live ? ", as the worktree is now (uncommitted work included)." : ", its commits (the worktree was removed)."}
      </p>
      {filesChanged.length === 0 ? (
        <p className="muted">No changes yet.</p>
      ) : (
        <>
          <ul className="card-diff__files" data-testid="card-diff-files">
            {filesChanged.map((path) => (
              <li key={path}>
                <code>{path}</code>
              </li>
            ))}
          </ul>
          <pre className="card-diff__patch">
            {patch.split("\n").map((line, i) => (
              <span key={i} className={lineClass(line)}>
                {line}
                {"\n"}
              </span>
            ))}
          </pre>
          {truncated && <p className="banner banner--warning">The diff is long: it was cut. The branch holds it all.</p>}
        </>
      )}
    </div>
  );
}

function lineClass(line: string): string | undefined {
  if (line.startsWith("+++") || line.startsWith("---")) return "diff-file";
  if (line.startsWith("+")) return "diff-add";
  if (line.startsWith("-")) return "diff-del";
  if (line.startsWith("@@")) return "diff-hunk";
  return undefined;
}
