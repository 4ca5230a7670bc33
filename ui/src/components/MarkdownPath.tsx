import { createContext, useContext, useState, type ReactNode } from "react";
import { call } from "../api";
import { errorMessage } from "../errors";

/** Whose reply this is: a relative path in it is taken inside that agent's folder. Replies
 *  rendered without one show paths as plain code. */
const PathOwnerContext = createContext<{ agentId: string | null } | null>(null);

export function PathOwnerProvider({ agentId, children }: { agentId: string | null; children: ReactNode }) {
  return <PathOwnerContext.Provider value={{ agentId }}>{children}</PathOwnerContext.Provider>;
}

// A path as agents cite one in `code`: absolute, home- or dot-relative, with a slash inside, or
// a file name with a common extension. No spaces, no scheme (links are MarkdownLink's).
const WITH_SLASH = /^(~\/|\/|\.{1,2}\/)?[\w.@+-]+(\/[\w.@+-]+)*\/?$/;
const FILE_NAME = /^[\w@+-][\w.@+-]*\.(md|txt|json|ya?ml|toml|csv|tsv|html?|css|js|jsx|ts|tsx|mjs|py|rs|go|java|rb|sh|sql|log|pdf|png|jpe?g|svg|docx?|xlsx?)$/i;

export function looksLikePath(text: string): boolean {
  if (text.length > 400 || /\s|:\/\//.test(text)) return false;
  if (text.includes("/")) return WITH_SLASH.test(text) && !/^\/+$/.test(text);
  return FILE_NAME.test(text);
}

/** Inline code in a reply: a path inside the agent's folder, a card's worktree or a project
 *  folder opens in the file manager (the engine checks where it points before anything opens);
 *  anything else is code. */
export function MarkdownCode({ className, children }: { className?: string; children?: ReactNode }) {
  const owner = useContext(PathOwnerContext);
  const [error, setError] = useState<string | null>(null);
  const text = typeof children === "string" ? children : null;
  if (!owner || text === null || className || !looksLikePath(text)) {
    return <code className={className}>{children}</code>;
  }
  const open = async () => {
    setError(null);
    try {
      await call("openPath", text, owner.agentId);
    } catch (e) {
      setError(errorMessage(e));
    }
  };
  return (
    <>
      <button type="button" className="md-path" title="Open in the file manager" onClick={open} data-testid="md-path">
        <code>{text}</code>
      </button>
      {error && (
        <span className="md-path__error" role="alert">
          {" "}
          {error}
        </span>
      )}
    </>
  );
}
