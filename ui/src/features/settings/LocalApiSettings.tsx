import { useState } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { call } from "../../api";
import { errorMessage } from "../../errors";
import { ErrorMessage } from "../../components/ErrorMessage";
import { ConfirmDialog } from "../../components/ConfirmDialog";
import { copyText } from "../../lib/clipboard";

const statusKey = ["localApi", "status"] as const;
const MASK = "•".repeat(24);

/** A curl command that starts a run of `@worker` (the user swaps in their agent's handle). */
export function curlExample(url: string, token: string) {
  return [
    `curl -X POST ${url}/api/runtimes/@worker/run \\`,
    `  -H "Authorization: Bearer ${token}" \\`,
    `  -H "Content-Type: application/json" \\`,
    `  -d '{"task": "Summarise the open issues in issues.md"}'`,
  ].join("\n");
}

async function copy(text: string): Promise<string | null> {
  try {
    await copyText(text);
    return null;
  } catch {
    return "Copying failed: select the text and copy it yourself.";
  }
}

/** Settings > Local API: on or off, its address, its token (masked until revealed), and a curl
 *  example. The token is fetched from the keychain only when the user reveals or copies it, and
 *  is never kept in the query cache. */
export function LocalApiSettings() {
  const client = useQueryClient();
  const status = useQuery({ queryKey: statusKey, queryFn: () => call("localApiStatus") });
  const toggle = useMutation({
    mutationFn: (enabled: boolean) => call("localApiSetEnabled", enabled),
    onSuccess: (next) => client.setQueryData(statusKey, next),
  });
  const [token, setToken] = useState<string | null>(null);
  const [revealed, setRevealed] = useState(false);
  const [note, setNote] = useState<string | null>(null);
  const [confirming, setConfirming] = useState(false);
  const fetchToken = useMutation({ mutationFn: () => call("localApiToken") });
  const regenerate = useMutation({ mutationFn: () => call("localApiRegenerateToken") });
  const info = status.data;
  const url = info?.running ? info.url : null;
  const failure = toggle.error ?? fetchToken.error ?? status.error;

  const theToken = async (): Promise<string> => {
    if (token !== null) return token;
    const fetched = await fetchToken.mutateAsync();
    setToken(fetched);
    return fetched;
  };
  const reveal = async () => {
    if (revealed) return setRevealed(false);
    await theToken();
    setRevealed(true);
  };
  const copyToken = async () => setNote((await copy(await theToken())) ?? "Token copied.");
  const copyCurl = async () => {
    if (!url) return;
    setNote((await copy(curlExample(url, await theToken()))) ?? "Command copied.");
  };
  const confirmRegenerate = async () => {
    const fresh = await regenerate.mutateAsync();
    setToken(fresh);
    setConfirming(false);
    setNote("A new token is in force; the old one no longer works.");
  };

  return (
    <section className="card" aria-label="Local API" data-testid="local-api-section">
      <h2 className="card__title">Local API</h2>
      <p className="muted">
        Lets your own scripts start agent runs, follow them and stop them, over HTTP on this computer only
        (127.0.0.1). Off unless you switch it on: every request needs the token below.
      </p>
      <ErrorMessage message={failure ? errorMessage(failure) : null} />
      {info && (
        <>
          <label className="local-api__toggle">
            <input
              type="checkbox"
              checked={info.enabled}
              disabled={toggle.isPending}
              onChange={(e) => toggle.mutate(e.target.checked)}
              data-testid="local-api-toggle"
            />{" "}
            Allow scripts on this computer to start runs
          </label>
          {info.enabled && !info.running && (
            <ErrorMessage message={`On, but not listening: ${info.error ?? "unknown reason"}. Switch it off and on again.`} />
          )}
          {url && (
            <dl className="app-info">
              <dt>Address</dt>
              <dd>
                <code data-testid="local-api-url">{url}</code>
              </dd>
              <dt>Port file</dt>
              <dd>
                <code data-testid="local-api-port-file">{info.portFile}</code>{" "}
                <span className="muted">(a new random port at each start; scripts read it here)</span>
              </dd>
              <dt>Token</dt>
              <dd>
                <code data-testid="local-api-token">{revealed && token ? token : MASK}</code>{" "}
                <button type="button" className="button button--small" onClick={reveal} data-testid="local-api-reveal">
                  {revealed ? "Hide" : "Reveal"}
                </button>{" "}
                <button type="button" className="button button--small" onClick={copyToken} data-testid="local-api-copy">
                  Copy
                </button>{" "}
                <button
                  type="button"
                  className="button button--small"
                  onClick={() => setConfirming(true)}
                  data-testid="local-api-regenerate"
                >
                  Regenerate…
                </button>
              </dd>
            </dl>
          )}
          {url && (
            <>
              <p className="muted">Start a run of an agent (by its handle or id):</p>
              <pre className="local-api__curl" data-testid="local-api-curl">
                {curlExample(url, revealed && token ? token : "<token>")}
              </pre>
              <button type="button" className="button button--small" onClick={copyCurl} data-testid="local-api-copy-curl">
                Copy command
              </button>
            </>
          )}
          {note && (
            <p className="muted" role="status" data-testid="local-api-note">
              {note}
            </p>
          )}
        </>
      )}
      {confirming && (
        <ConfirmDialog
          title="Regenerate the token?"
          confirmLabel="Regenerate"
          onConfirm={confirmRegenerate}
          onCancel={() => setConfirming(false)}
          busy={regenerate.isPending}
          error={regenerate.error ? errorMessage(regenerate.error) : null}
          confirmTestId="local-api-regenerate-confirm"
        >
          Scripts using the current token stop working until you give them the new one.
        </ConfirmDialog>
      )}
    </section>
  );
}
