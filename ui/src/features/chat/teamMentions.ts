// `@TeamName` suggestions in Boo Zero's composer. Team names may hold spaces, so what is typed
// after the last `@` (up to the cursor, on one line) is matched against the start of each name.

/** Longest name fragment we try to complete after an `@`. */
const MAX_QUERY = 80;

export type MentionQuery = { start: number; query: string };

/** The `@…` being typed just before `cursor`, if any: where its `@` is and what follows it. */
export function mentionQuery(text: string, cursor: number): MentionQuery | null {
  const before = text.slice(0, cursor);
  const at = before.lastIndexOf("@");
  if (at === -1) return null;
  // An `@` inside a word (an e-mail address) starts no mention.
  if (at > 0 && /[\p{L}\p{N}_-]/u.test(before[at - 1])) return null;
  const query = before.slice(at + 1);
  if (query.includes("\n") || query.length > MAX_QUERY) return null;
  return { start: at, query };
}

/** Team names that start with `query` (case-insensitive) and go on past it, shortest first: a
 *  completed name followed by a space suggests only longer names that continue it. */
export function suggestTeams(names: string[], query: string, limit = 5): string[] {
  const q = query.toLowerCase();
  return names
    .filter((n) => n.toLowerCase().startsWith(q) && n.toLowerCase() !== q)
    .sort((a, b) => a.length - b.length || a.localeCompare(b))
    .slice(0, limit);
}

/** `text` with the mention at `mention` completed to `@name ` ; and where the cursor goes. */
export function completeMention(text: string, cursor: number, mention: MentionQuery, name: string) {
  const inserted = `@${name} `;
  const next = text.slice(0, mention.start) + inserted + text.slice(cursor);
  return { text: next, cursor: mention.start + inserted.length };
}
