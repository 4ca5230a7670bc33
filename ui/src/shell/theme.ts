// The theme: the user's choice (Settings > Appearance, kept by the engine) or the system's. The
// page's tokens (styles/theme.css) follow `data-theme` on <html>, set here and nowhere else.
import type { Theme } from "../bindings";

/** The last choice, also kept in the webview so the first paint already has it. */
const CACHED = "clawboo.theme";
const DARK = "(prefers-color-scheme: dark)";

let followingSystem: MediaQueryList | null = null;
const onSystemChange = () => paint("system");

function systemIsDark(): boolean {
  return typeof window.matchMedia === "function" ? window.matchMedia(DARK).matches : true;
}

function paint(theme: Theme) {
  const dark = theme === "dark" || (theme === "system" && systemIsDark());
  document.documentElement.dataset.theme = dark ? "dark" : "light";
}

/** Shows `theme` now and, for "system", follows the system while it stays chosen. */
export function applyTheme(theme: Theme) {
  followingSystem?.removeEventListener("change", onSystemChange);
  followingSystem = null;
  if (theme === "system" && typeof window.matchMedia === "function") {
    followingSystem = window.matchMedia(DARK);
    followingSystem.addEventListener("change", onSystemChange);
  }
  paint(theme);
  try {
    localStorage.setItem(CACHED, theme);
  } catch {
    // Storage may be unavailable; the engine still has the choice.
  }
}

/** Before the first render: the last choice seen here, else the system's. */
export function applyCachedTheme() {
  let cached: string | null = null;
  try {
    cached = localStorage.getItem(CACHED);
  } catch {
    cached = null;
  }
  applyTheme(cached === "light" || cached === "dark" ? cached : "system");
}
