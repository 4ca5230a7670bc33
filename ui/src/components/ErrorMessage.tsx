import { errorCode, errorMessage } from "../errors";
import { CopyErrorDetails } from "./CopyErrorDetails";

type Props = { message: string | null | undefined; className?: string; code?: string | null };

/** An error from the backend or a form, shown inline; with the backend's code when given, and
 *  then "Copy details" for a report. */
export function ErrorMessage({ message, className, code }: Props) {
  if (!message) return null;
  const shown = (
    <p className={`error-message ${className ?? ""}`} role="alert" data-testid="error-message">
      {code && (
        <code className="error-message__code" data-testid="error-code">
          {code}
        </code>
      )}
      {message}
    </p>
  );
  if (!code) return shown;
  return (
    <div className="error-block">
      {shown}
      <CopyErrorDetails code={code} message={message} />
    </div>
  );
}

/** A thrown value (usually a ClawbooError) shown with its code and message; nothing when null. */
export function ErrorWithCode({ error, className }: { error: unknown; className?: string }) {
  if (error === null || error === undefined) return null;
  return <ErrorMessage message={errorMessage(error)} code={errorCode(error)} className={className} />;
}
