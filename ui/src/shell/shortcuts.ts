// The app's keyboard shortcuts: the global ones (handled in App) and those of one place (the
// composer, the file editor, the inbox), all listed in the `?` sheet from here.

export type ShortcutAction =
  | "shortcuts"
  | "search"
  | "new-agent"
  | "new-team"
  | "settings"
  | "inbox"
  | "board"
  | "memory"
  | "routines"
  | "toggle-sidebar";

export const isMac = typeof navigator !== "undefined" && /Mac|iPhone|iPad/.test(navigator.platform);
export const MOD = isMac ? "⌘" : "Ctrl";

type Global = { action: ShortcutAction; keys: string[]; label: string; mod: boolean; shift?: boolean; key: string };

export const GLOBAL_SHORTCUTS: Global[] = [
  { action: "shortcuts", keys: ["?"], label: "Show the keyboard shortcuts", mod: false, key: "?" },
  { action: "search", keys: [MOD, "K"], label: "Search everything", mod: true, key: "k" },
  { action: "new-agent", keys: [MOD, "N"], label: "New agent", mod: true, key: "n" },
  { action: "new-team", keys: [MOD, "Shift", "N"], label: "New team", mod: true, shift: true, key: "n" },
  { action: "inbox", keys: [MOD, "1"], label: "Inbox", mod: true, key: "1" },
  { action: "board", keys: [MOD, "2"], label: "Board", mod: true, key: "2" },
  { action: "memory", keys: [MOD, "3"], label: "Memory", mod: true, key: "3" },
  { action: "routines", keys: [MOD, "4"], label: "Routines", mod: true, key: "4" },
  { action: "settings", keys: [MOD, ","], label: "Settings", mod: true, key: "," },
  { action: "toggle-sidebar", keys: [MOD, "B"], label: "Narrow or widen the sidebar", mod: true, key: "b" },
];

/** Shortcuts that work in one place; handled there, listed here. */
export const LOCAL_SHORTCUTS: { where: string; items: { keys: string[]; label: string }[] }[] = [
  {
    where: "Chat composer",
    items: [
      { keys: ["Enter"], label: "Send" },
      { keys: ["Shift", "Enter"], label: "New line" },
      { keys: ["Tab"], label: "Complete the @handle being typed" },
    ],
  },
  { where: "Agent files editor", items: [{ keys: [MOD, "S"], label: "Save the file" }] },
  {
    where: "Search everything",
    items: [
      { keys: ["↑", "↓"], label: "Move through the results" },
      { keys: ["Enter"], label: "Open the result (a message: scrolled to and highlighted)" },
    ],
  },
  { where: "Inbox", items: [{ keys: [MOD, "Enter"], label: "Send your answer" }] },
  { where: "Dialogs and this sheet", items: [{ keys: ["Esc"], label: "Close" }] },
];

/** Whether typing goes into the element (a field, a select, the file editor). */
export function isTextTarget(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  return ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName);
}

/** The global action a key press asks for, or null. `?` counts only outside a text field. */
export function shortcutFor(e: Pick<KeyboardEvent, "key" | "ctrlKey" | "metaKey" | "shiftKey" | "altKey" | "target">): ShortcutAction | null {
  if (e.altKey) return null;
  const mod = isMac ? e.metaKey : e.ctrlKey;
  if (!mod && !e.ctrlKey && !e.metaKey && e.key === "?") return isTextTarget(e.target) ? null : "shortcuts";
  if (!mod) return null;
  const key = e.key.toLowerCase();
  const hit = GLOBAL_SHORTCUTS.find((s) => s.mod && s.key === key && !!s.shift === e.shiftKey);
  return hit?.action ?? null;
}
