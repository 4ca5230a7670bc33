import { useCallback } from "react";
import { readDraft, writeDraft, type DraftKey } from "./drafts";

/** A composer's kept draft: the text to start from and where to keep edits. The composer reads
 *  its start only when it mounts: give it `key={draftKey}` so another key starts it afresh. */
export function useDraft(key: DraftKey) {
  const onTextChange = useCallback((text: string) => writeDraft(key, text), [key]);
  return { initialText: readDraft(key), onTextChange };
}
