// What the user typed in a composer and did not send, kept per conversation or room in
// localStorage: it is there again after switching away and back, and after a restart. Sending
// empties the composer, which removes the draft.

const PREFIX = "clawboo.draft.";

/** A composer's draft key: a one-to-one conversation (`chat:<id>`), a room (`room:<id>`), or an
 *  agent's chat before its conversation exists (`agent:<id>`). */
export type DraftKey = `chat:${string}` | `room:${string}` | `agent:${string}`;

function storage(): Storage | null {
  try {
    return window.localStorage;
  } catch {
    return null; // storage refused (a locked-down webview): drafts last as long as the view
  }
}

export function readDraft(key: DraftKey): string {
  return storage()?.getItem(PREFIX + key) ?? "";
}

/** Keeps `text` as the draft of `key`; an empty text removes it. */
export function writeDraft(key: DraftKey, text: string): void {
  const store = storage();
  if (!store) return;
  try {
    if (text.trim()) store.setItem(PREFIX + key, text);
    else store.removeItem(PREFIX + key);
  } catch {
    // Full storage: the draft is kept only while the composer is open.
  }
}

/** Moves a draft to a new key (an agent's first message made its conversation). */
export function moveDraft(from: DraftKey, to: DraftKey): void {
  const text = readDraft(from);
  if (!text) return;
  if (!readDraft(to)) writeDraft(to, text);
  writeDraft(from, "");
}
