/**
 * Copies `text`. WebKitGTK (Linux) may refuse `navigator.clipboard` in the app's webview, so a
 * hidden textarea and `execCommand("copy")` come first: they work within the click that asked,
 * everywhere. The async API is the fallback (and what jsdom tests see). Rejects when both fail.
 */
export async function copyText(text: string): Promise<void> {
  if (copyWithSelection(text)) return;
  if (!navigator.clipboard?.writeText) throw new Error("Copying is not available here.");
  await navigator.clipboard.writeText(text);
}

function copyWithSelection(text: string): boolean {
  if (typeof document.execCommand !== "function") return false;
  const area = document.createElement("textarea");
  area.value = text;
  area.setAttribute("readonly", "");
  // Off screen, not display:none: a hidden element cannot be selected.
  area.style.position = "fixed";
  area.style.top = "-1000px";
  area.style.opacity = "0";
  const focused = document.activeElement as HTMLElement | null;
  document.body.appendChild(area);
  area.select();
  let copied = false;
  try {
    copied = document.execCommand("copy");
  } catch {
    copied = false;
  }
  area.remove();
  focused?.focus?.();
  return copied;
}
