// In-memory editor state for agent files: what was last saved (the baseline),
// what the user is typing (the draft), and any disk change that conflicts with
// the draft. Lives for the whole app session so switching tabs, sub-tabs or
// agents never loses unsaved edits.
import { createContext, useContext, useSyncExternalStore } from "react";

export type FileSession = {
  /** Content last known to be on disk and accepted by the editor. */
  baseline: string;
  /** Current editor content. Dirty when it differs from the baseline. */
  draft: string;
  /** Disk content that arrived while the draft had unsaved changes. */
  conflict: string | null;
  /** Content of a save still in flight; its own change event is not a conflict. */
  saving: string | null;
};

export const isDirty = (s: FileSession | undefined): boolean => !!s && s.draft !== s.baseline;

export function newSession(content: string): FileSession {
  return { baseline: content, draft: content, conflict: null, saving: null };
}

/**
 * Merges freshly read disk content into a session. Returns the same object when
 * nothing needs to change.
 */
export function reconcileWithDisk(session: FileSession, disk: string): FileSession {
  if (disk === session.baseline) {
    // Disk is what we already know; a pending conflict has gone away.
    return session.conflict === null ? session : { ...session, conflict: null };
  }
  if (disk === session.draft || disk === session.saving) {
    // Our own save (or an identical edit) landed on disk.
    return { ...session, baseline: disk, conflict: null };
  }
  if (!isDirty(session)) {
    // Nothing to lose: follow the disk.
    return { ...session, baseline: disk, draft: disk, conflict: null };
  }
  if (session.conflict === disk) return session;
  return { ...session, conflict: disk };
}

export const sessionKey = (agentId: string, name: string) => `${agentId}\u0000${name}`;

export class FileSessionStore {
  private sessions = new Map<string, FileSession>();
  private listeners = new Set<() => void>();

  get(key: string): FileSession | undefined {
    return this.sessions.get(key);
  }

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  /** Applies `change` to the session; a no-op when it returns the same object. */
  update(key: string, change: (s: FileSession | undefined) => FileSession | undefined): void {
    const before = this.sessions.get(key);
    const after = change(before);
    if (after === before) return;
    if (after) this.sessions.set(key, after);
    else this.sessions.delete(key);
    this.listeners.forEach((l) => l());
  }

  /** Starts a session from disk content, or reconciles an existing one. */
  loaded(key: string, disk: string): void {
    this.update(key, (s) => (s ? reconcileWithDisk(s, disk) : newSession(disk)));
  }

  setDraft(key: string, draft: string): void {
    this.update(key, (s) => (s && s.draft !== draft ? { ...s, draft } : s));
  }

  saveStarted(key: string, content: string): void {
    this.update(key, (s) => (s ? { ...s, saving: content } : s));
  }

  saveFinished(key: string, saved: string | null): void {
    this.update(key, (s) => {
      if (!s) return s;
      if (saved === null) return { ...s, saving: null };
      return { ...s, baseline: saved, saving: null, conflict: null };
    });
  }

  /** Conflict resolution: drop the edits and take the disk version. */
  loadDiskVersion(key: string): void {
    this.update(key, (s) => (s && s.conflict !== null ? { ...s, ...newSession(s.conflict) } : s));
  }

  /** Conflict resolution: keep the draft; a later save overwrites the disk. */
  keepMyEdits(key: string): void {
    this.update(key, (s) => (s && s.conflict !== null ? { ...s, baseline: s.conflict, conflict: null } : s));
  }

  forgetAgent(agentId: string): void {
    const prefix = sessionKey(agentId, "");
    for (const key of [...this.sessions.keys()]) {
      if (key.startsWith(prefix)) this.update(key, () => undefined);
    }
  }
}

export const FileSessionContext = createContext<FileSessionStore | null>(null);

export function useFileSessionStore(): FileSessionStore {
  const store = useContext(FileSessionContext);
  if (!store) throw new Error("FileSessionContext is missing");
  return store;
}

/** Re-renders when the session for `key` changes. */
export function useFileSession(key: string | null): FileSession | undefined {
  const store = useFileSessionStore();
  return useSyncExternalStore(store.subscribe, () => (key ? store.get(key) : undefined));
}
