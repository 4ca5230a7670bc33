import { useEffect, useState } from "react";
import { copyText } from "../lib/clipboard";
import { errorDetails, fetchRecentLog } from "../lib/errorDetails";

type Props = { code?: string | null; message: string };

/** "Copy details": the error's code, message, app version, OS and time, and the log's last
 *  lines, as text for a report. */
export function CopyErrorDetails({ code, message }: Props) {
  const [state, setState] = useState<"idle" | "copied" | "failed">("idle");
  // Read as the error shows: the copy must happen within the click, with no await before it.
  const [recentLog, setRecentLog] = useState<string[]>([]);
  useEffect(() => {
    let current = true;
    void fetchRecentLog().then((lines) => current && setRecentLog(lines));
    return () => {
      current = false;
    };
  }, [code, message]);
  const copy = () => {
    copyText(errorDetails({ code, message, recentLog })).then(
      () => setState("copied"),
      () => setState("failed"),
    );
  };
  return (
    <span className="error-details">
      <button type="button" className="link-button error-details__copy" onClick={copy} data-testid="copy-error-details">
        Copy details
      </button>
      {state !== "idle" && (
        <span className="error-details__status" role="status" data-testid="copy-error-status">
          {state === "copied" ? "Copied" : "Copying failed: select the text and copy it yourself."}
        </span>
      )}
    </span>
  );
}
