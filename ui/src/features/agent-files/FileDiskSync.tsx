import { useEffect } from "react";
import { useAgentFile } from "./agentFileQueries";
import { sessionKey, useFileSessionStore } from "./fileSessions";

type Props = { agentId: string; name: string };

/**
 * Keeps one file's editor session in step with its content on disk. Rendered
 * for every file of the open agent, so a change event (which refetches the
 * file) is reconciled even when that file's tab is not the selected one.
 */
export function FileDiskSync({ agentId, name }: Props) {
  const store = useFileSessionStore();
  const { data } = useAgentFile(agentId, name);

  useEffect(() => {
    if (data) store.loaded(sessionKey(agentId, name), data.content);
  }, [store, agentId, name, data]);

  return null;
}
