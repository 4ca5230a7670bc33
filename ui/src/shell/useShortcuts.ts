import { useEffect, useRef } from "react";
import { shortcutFor, type ShortcutAction } from "./shortcuts";
import type { Route } from "./route";

type ShortcutHandlers = {
  onShortcuts: () => void;
  onSearch: () => void;
  onNewAgent: () => void;
  onNewTeam: () => void;
  onRoute: (route: Route) => void;
  onToggleSidebar: () => void;
};

/** The app's keyboard shortcuts (see shortcuts.ts), while no dialog is open. The handlers are read
 *  fresh on each key. */
export function useShortcuts(handlers: ShortcutHandlers) {
  const current = useRef(handlers);
  current.current = handlers;
  useEffect(() => {
    const routes: Partial<Record<ShortcutAction, Route>> = {
      settings: { page: "settings" },
      inbox: { page: "inbox", focus: null },
      board: { page: "board", cardId: null },
      memory: { page: "memory" },
      routines: { page: "routines" },
    };
    const onKey = (e: KeyboardEvent) => {
      const action = shortcutFor(e);
      if (!action) return;
      // A dialog open keeps the keyboard (Esc closes it first).
      if (document.querySelector('[aria-modal="true"]')) return;
      e.preventDefault();
      if (action === "shortcuts") current.current.onShortcuts();
      else if (action === "search") current.current.onSearch();
      else if (action === "new-agent") current.current.onNewAgent();
      else if (action === "new-team") current.current.onNewTeam();
      else if (action === "toggle-sidebar") current.current.onToggleSidebar();
      else if (routes[action]) current.current.onRoute(routes[action]);
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, []);
}
