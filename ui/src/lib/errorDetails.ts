// What "Copy details" puts on the clipboard for an error: enough for a bug report, nothing secret
// (the message is what the app showed; keys never reach the UI).
import { appVersion, call } from "../api";

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

/** How many of the log's last lines a report carries (the engine caps them at 50 and 16 KiB). */
export const RECENT_LOG_LINES = 50;

/** The log's last lines, read when an error shows so that the copy, made later within a click,
 *  needs no await. None when they cannot be read (the engine did not start, say). */
export function fetchRecentLog(): Promise<string[]> {
  return Promise.resolve()
    .then(() => call("recentLogLines", RECENT_LOG_LINES))
    .catch(() => []);
}

export function errorDetails(
  error: { code?: string | null; message: string; recentLog?: string[] },
  now = new Date(),
): string {
  const lines = [
    "Clawboo error",
    `Code: ${error.code ?? "none"}`,
    `Message: ${error.message}`,
    `App version: ${version ?? "unknown"}`,
    `OS: ${operatingSystem()}`,
    `Time: ${now.toISOString()}`,
  ];
  // The log holds no key or token (the engine never logs one), so it can go into a report.
  if (error.recentLog?.length) lines.push("", `Last ${error.recentLog.length} lines of the log:`, ...error.recentLog);
  return lines.join("\n");
}
