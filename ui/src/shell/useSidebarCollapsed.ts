import { useCallback, useState } from "react";

/** The choice, kept in the webview: how the sidebar looks is this window's business. */
const KEPT = "clawboo.sidebarCollapsed";
/** Below this width the sidebar starts narrow until the user says otherwise. */
const NARROW_WINDOW_PX = 1000;

function initial(): boolean {
  try {
    const kept = localStorage.getItem(KEPT);
    if (kept === "true" || kept === "false") return kept === "true";
  } catch {
    // No storage: decide by the window.
  }
  return typeof window.innerWidth === "number" && window.innerWidth < NARROW_WINDOW_PX;
}

/** Whether the sidebar is a rail of icons, and the toggle (⌘/Ctrl+B, or its « button). */
export function useSidebarCollapsed(): [boolean, () => void] {
  const [collapsed, setCollapsed] = useState(initial);
  const toggle = useCallback(() => {
    setCollapsed((was) => {
      try {
        localStorage.setItem(KEPT, String(!was));
      } catch {
        // Kept for this session only.
      }
      return !was;
    });
  }, []);
  return [collapsed, toggle];
}
