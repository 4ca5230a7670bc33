import { useEffect, useId, useState, type FormEvent } from "react";
import type { ProviderStatus } from "../../bindings";
import { useDeleteApiKey, useSetApiKey, useSetBaseUrl } from "./settingsQueries";
import { errorMessage } from "../../errors";
import { exampleBaseUrl } from "../../lib/providers";
import { ErrorMessage } from "../../components/ErrorMessage";

type Props = { status: ProviderStatus };

/** One provider's API key (write-only) and the base URL its requests go to. */
export function ProviderRow({ status }: Props) {
  const { provider, label, keySet } = status;
  const id = useId();
  const [key, setKey] = useState("");
  const [baseUrl, setBaseUrl] = useState(status.baseUrl ?? "");
  const [notice, setNotice] = useState<string | null>(null);
  const setApiKey = useSetApiKey();
  const deleteApiKey = useDeleteApiKey();
  const saveUrl = useSetBaseUrl();

  // Show the URL the backend reports after a save or reset.
  useEffect(() => setBaseUrl(status.baseUrl ?? ""), [status.baseUrl]);

  const error = setApiKey.error ?? deleteApiKey.error ?? saveUrl.error;
  const busy = setApiKey.isPending || deleteApiKey.isPending || saveUrl.isPending;

  const resetFeedback = () => {
    setNotice(null);
    setApiKey.reset();
    deleteApiKey.reset();
    saveUrl.reset();
  };

  const saveKey = (e: FormEvent) => {
    e.preventDefault();
    const trimmed = key.trim();
    if (!trimmed || busy) return;
    resetFeedback();
    // Clear the field straight away: the key should not linger in the UI.
    setKey("");
    setApiKey.mutate({ provider, key: trimmed }, { onSuccess: () => setNotice("Key saved.") });
  };

  const removeKey = () => {
    resetFeedback();
    deleteApiKey.mutate(provider, { onSuccess: () => setNotice("Key removed.") });
  };

  const saveBaseUrl = (e: FormEvent) => {
    e.preventDefault();
    if (busy) return;
    resetFeedback();
    // An empty field means the default endpoint.
    const url = baseUrl.trim() || null;
    saveUrl.mutate({ provider, url }, { onSuccess: () => setNotice(url ? "Base URL saved." : "Base URL reset.") });
  };

  const resetBaseUrl = () => {
    resetFeedback();
    saveUrl.mutate({ provider, url: null }, { onSuccess: () => setNotice("Base URL reset.") });
  };

  return (
    <li className="provider" data-testid={`provider-${provider}`}>
      <div className="provider__head">
        <span className="provider__label">{label}</span>
        <span className={`status ${keySet ? "status--ok" : "status--off"}`} data-testid={`key-status-${provider}`}>
          {keySet ? "Key set" : "Not set"}
        </span>
      </div>

      <form className="provider__form" onSubmit={saveKey}>
        <input
          type="password"
          value={key}
          onChange={(e) => setKey(e.target.value)}
          placeholder={keySet ? "Enter a new key to replace it" : "Paste API key"}
          aria-label={`${label} API key`}
          autoComplete="off"
          spellCheck={false}
          disabled={busy}
          data-testid={`key-input-${provider}`}
        />
        <button
          type="submit"
          className="button button--primary"
          disabled={busy || !key.trim()}
          data-testid={`save-key-${provider}`}
        >
          Save key
        </button>
        {keySet && (
          <button
            type="button"
            className="button button--danger-subtle"
            onClick={removeKey}
            disabled={busy}
            data-testid={`remove-key-${provider}`}
          >
            Remove
          </button>
        )}
      </form>

      <form className="provider__form provider__form--small" onSubmit={saveBaseUrl}>
        <label className="provider__url-label" htmlFor={`${id}-base-url`}>
          Base URL
        </label>
        <input
          id={`${id}-base-url`}
          type="url"
          value={baseUrl}
          onChange={(e) => setBaseUrl(e.target.value)}
          placeholder={status.defaultBaseUrl ?? exampleBaseUrl(provider)}
          spellCheck={false}
          disabled={busy}
          data-testid={`base-url-input-${provider}`}
        />
        <button type="submit" className="button button--small" disabled={busy} data-testid={`save-base-url-${provider}`}>
          Save
        </button>
        <button
          type="button"
          className="button button--small"
          onClick={resetBaseUrl}
          disabled={busy}
          title="Use the provider's default endpoint"
          data-testid={`reset-base-url-${provider}`}
        >
          Reset
        </button>
      </form>

      <ErrorMessage message={error ? errorMessage(error) : null} />
      {notice && !error && (
        <p className="provider__notice" role="status">
          {notice}
        </p>
      )}
    </li>
  );
}
