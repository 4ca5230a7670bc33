// What "Copy details" puts on the clipboard for an error: enough for a bug report, nothing secret
// (the message is what the app showed; keys never reach the UI).
import { appVersion } from "../api";

let version: string | null = null;

/** Learns the app's version once, at start, so a copy made later needs no await (a copy must
 *  happen within the click that asked for it). */
export function learnAppVersion(): void {
  if (version) return;
  appVersion()
    .then((v) => {
      version = v;
    })
    .catch(() => {});
}

/** The OS as the webview reports it ("Linux x86_64", "MacIntel", "Win32") and the browser engine. */
function operatingSystem(): string {
  const platform = navigator.platform || "unknown platform";
  return `${platform} (${navigator.userAgent})`;
}

export function errorDetails(error: { code?: string | null; message: string }, now = new Date()): string {
  return [
    "Clawboo error",
    `Code: ${error.code ?? "none"}`,
    `Message: ${error.message}`,
    `App version: ${version ?? "unknown"}`,
    `OS: ${operatingSystem()}`,
    `Time: ${now.toISOString()}`,
  ].join("\n");
}
