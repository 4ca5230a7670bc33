import { useState, type FormEvent } from "react";
import type { ProviderStatus } from "../api";
import { useDeleteApiKey, useSetApiKey, useSetCustomBaseUrl } from "../queries";
import { errorMessage } from "../errors";
import { ErrorMessage } from "./ErrorMessage";

type Props = { status: ProviderStatus };

/** One provider's API key (write-only) and, for the custom provider, its base URL. */
export function ProviderRow({ status }: Props) {
  const { provider, label, keySet } = status;
  const [key, setKey] = useState("");
  const [baseUrl, setBaseUrl] = useState(status.baseUrl ?? "");
  const [notice, setNotice] = useState<string | null>(null);
  const setApiKey = useSetApiKey();
  const deleteApiKey = useDeleteApiKey();
  const setCustomBaseUrl = useSetCustomBaseUrl();

  const error = setApiKey.error ?? deleteApiKey.error ?? setCustomBaseUrl.error;
  const busy = setApiKey.isPending || deleteApiKey.isPending || setCustomBaseUrl.isPending;

  const resetFeedback = () => {
    setNotice(null);
    setApiKey.reset();
    deleteApiKey.reset();
    setCustomBaseUrl.reset();
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
    resetFeedback();
    setCustomBaseUrl.mutate(baseUrl.trim(), { onSuccess: () => setNotice("Base URL saved.") });
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

      {provider === "custom" && (
        <form className="provider__form" onSubmit={saveBaseUrl}>
          <input
            type="url"
            value={baseUrl}
            onChange={(e) => setBaseUrl(e.target.value)}
            placeholder="https://api.example.com/v1"
            aria-label="Base URL"
            spellCheck={false}
            disabled={busy}
            data-testid="base-url-input"
          />
          <button type="submit" className="button" disabled={busy} data-testid="save-base-url">
            Save
          </button>
        </form>
      )}

      <ErrorMessage message={error ? errorMessage(error) : null} />
      {notice && !error && (
        <p className="provider__notice" role="status">
          {notice}
        </p>
      )}
    </li>
  );
}
