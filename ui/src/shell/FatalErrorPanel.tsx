import { CopyErrorDetails } from "../components/CopyErrorDetails";

type Props = { message: string; code?: string | null };

/** Shown instead of the app when the backend cannot open its data directory. */
export function FatalErrorPanel({ message, code = null }: Props) {
  return (
    <main className="fatal" role="alert" data-testid="fatal-error">
      <div className="fatal__card">
        <div className="fatal__icon" aria-hidden="true">!</div>
        <h1>Clawboo can’t start</h1>
        <p className="fatal__lead">The data directory could not be opened.</p>
        <p className="fatal__message" data-testid="error-message">
          {message}
        </p>
        <p className="fatal__hint">Fix the problem above, then reload Clawboo.</p>
        <CopyErrorDetails code={code} message={message} />
        <button type="button" className="button button--primary" onClick={() => window.location.reload()}>
          Reload
        </button>
      </div>
    </main>
  );
}
