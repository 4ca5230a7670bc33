import { useState } from "react";
import type { ExportFormat, ExportTarget } from "../../bindings";
import { call } from "../../api";
import { errorCode, errorMessage } from "../../errors";
import { Menu } from "../../components/Menu";
import { useToasts } from "../../components/Toasts";

/** "Export…": a chat, a room or a card's runs as Markdown, or as JSON with the exact stored
 *  events, saved where the user picks in the system's save dialog. */
export function ExportMenu({ target, testId }: { target: ExportTarget; testId: string }) {
  const toasts = useToasts();
  const [busy, setBusy] = useState(false);
  const run = async (format: ExportFormat) => {
    if (busy) return;
    setBusy(true);
    try {
      const saved = await call("exportThread", target, format);
      if (saved) toasts.info(`Saved to ${saved}`);
    } catch (e) {
      toasts.error(`The export failed: ${errorMessage(e)}`, errorCode(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Menu
      label="Export"
      testId={testId}
      className="export-menu"
      items={[
        { label: "Export as Markdown…", onSelect: () => void run("markdown"), testId: `${testId}-markdown` },
        { label: "Export as JSON (exact events)…", onSelect: () => void run("json"), testId: `${testId}-json` },
      ]}
    />
  );
}
