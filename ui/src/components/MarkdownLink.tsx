import { useState, type ReactNode } from "react";
import { createPortal } from "react-dom";
import { call } from "../api";
import { errorMessage } from "../errors";
import { ConfirmDialog } from "./ConfirmDialog";

/** The schemes a link in a reply may open with (the engine checks again before opening). */
const OPENABLE = /^(https?:\/\/|mailto:)/i;

export function isOpenableLink(href: string | undefined): href is string {
  return typeof href === "string" && OPENABLE.test(href.trim());
}

/** A link in a reply: http, https and mailto open in the default browser (or mail app) after a
 *  confirm that shows the whole URL; anything else stays text, its target in the tooltip. The
 *  webview itself never navigates. */
export function MarkdownLink({ href, children }: { href: string | undefined; children: ReactNode }) {
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  if (!isOpenableLink(href)) {
    return (
      <span className="md-link" title={href ?? undefined}>
        {children}
      </span>
    );
  }
  const open = async () => {
    setBusy(true);
    setError(null);
    try {
      await call("openLink", href);
      setAsking(false);
    } catch (e) {
      setError(errorMessage(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <button type="button" className="md-link md-link--open" title={href} onClick={() => setAsking(true)} data-testid="md-link">
        {children}
      </button>
      {/* In <body>: a reply's bubble must not clip or contain the dialog. */}
      {asking &&
        createPortal(
          <ConfirmDialog
            title="Open this link?"
            confirmLabel={href.toLowerCase().startsWith("mailto:") ? "Open in mail app" : "Open in browser"}
            onConfirm={open}
            onCancel={() => setAsking(false)}
            tone="primary"
            busy={busy}
            error={error}
            confirmTestId="link-open"
            cancelTestId="link-cancel"
          >
            <p className="link-confirm__url" data-testid="link-url">
              {href}
            </p>
          </ConfirmDialog>,
          document.body,
        )}
    </>
  );
}
