import { useEffect, useId, useState, type KeyboardEvent } from "react";
import type { OpenclawGateway } from "../../bindings";
import { errorMessage } from "../../errors";
import { useOpenclawGateway, useSetOpenclawGateway } from "./agentQueries";
import { ErrorMessage } from "../../components/ErrorMessage";
import { GatewayHealthBadge } from "./GatewayHealthBadge";

type Mode = "clawboo" | "existing";

const modeOf = (gateway: OpenclawGateway | undefined): Mode => (gateway?.url ? "existing" : "clawboo");

/** What is wrong with the form before it goes to the backend, which checks again. */
function problemOf(mode: Mode, url: string, token: string, tokenSet: boolean): string | null {
  if (mode === "clawboo") return null;
  const trimmed = url.trim();
  if (!trimmed) return "Enter the Gateway's address, for example ws://127.0.0.1:18789.";
  if (!/^wss?:\/\/./i.test(trimmed)) return "A Gateway address starts with ws:// or wss://.";
  if (!tokenSet && !token.trim()) return "Enter the Gateway's token.";
  return null;
}

/**
 * Which OpenClaw Gateway an agent runs on: one Clawboo starts on this machine, or one the user
 * already runs (here or elsewhere). The token is write-only: the UI only learns whether it is set.
 * Saved on its own, apart from the profile's other fields, because the token goes to the keychain.
 */
export function OpenclawGatewayFields({ agentId }: { agentId: string }) {
  const id = useId();
  const gateway = useOpenclawGateway(agentId);
  const save = useSetOpenclawGateway(agentId);
  const [mode, setMode] = useState<Mode>(modeOf(gateway.data));
  const [url, setUrl] = useState(gateway.data?.url ?? "");
  const [token, setToken] = useState("");
  const [touched, setTouched] = useState(false);
  const [savedNotice, setSavedNotice] = useState(false);

  // Take the saved choice once it loads (or changes elsewhere) while the user is not editing.
  useEffect(() => {
    if (!gateway.data || touched) return;
    setMode(modeOf(gateway.data));
    setUrl(gateway.data.url ?? "");
  }, [gateway.data, touched]);

  const saved = gateway.data;
  const tokenSet = !!saved?.tokenSet && !!saved.url;
  const dirty =
    mode !== modeOf(saved) || (mode === "existing" && (url.trim() !== (saved?.url ?? "") || token.trim() !== ""));
  const problem = problemOf(mode, url, token, tokenSet);

  const edit = (change: () => void) => {
    change();
    setTouched(true);
    setSavedNotice(false);
    if (save.error) save.reset();
  };

  const submit = () => {
    if (!dirty || problem || save.isPending) return;
    const input =
      mode === "clawboo" ? { url: null, token: null } : { url: url.trim(), token: token.trim() ? token.trim() : null };
    save.mutate(input, {
      onSuccess: (result) => {
        setToken("");
        setUrl(result.url ?? "");
        setMode(modeOf(result));
        setTouched(false);
        setSavedNotice(true);
      },
    });
  };

  // Enter saves this section, not the profile form around it.
  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key !== "Enter") return;
    e.preventDefault();
    submit();
  };

  if (gateway.error) return <ErrorMessage message={errorMessage(gateway.error)} />;

  return (
    <fieldset className="gateway-fields" data-testid="gateway-fields" disabled={save.isPending || gateway.isPending}>
      <legend>Gateway</legend>
      {saved?.url && (
        <p className="gateway-fields__health">
          <GatewayHealthBadge agentId={agentId} variant="profile" />
        </p>
      )}
      <p className="field__hint">
        Point agents on several machines at one Gateway you run: this is how a team spans machines.
      </p>
      <p className="field__hint" data-testid="gateway-sign-in-hint">
        On Clawboo&apos;s own Gateway, OpenClaw uses the API key of the agent&apos;s provider. To run on your own
        OpenClaw sign-in, point the agent at a Gateway you run: OpenClaw keeps its sign-in with all its other state,
        which Clawboo does not hand to an agent.
      </p>
      <div className="gateway-fields__choices" role="radiogroup" aria-label="Gateway">
        <label>
          <input
            type="radio"
            name={`${id}-mode`}
            checked={mode === "clawboo"}
            onChange={() => edit(() => setMode("clawboo"))}
            data-testid="gateway-mode-clawboo"
          />
          Started by Clawboo (this machine)
        </label>
        <label>
          <input
            type="radio"
            name={`${id}-mode`}
            checked={mode === "existing"}
            onChange={() => edit(() => setMode("existing"))}
            data-testid="gateway-mode-existing"
          />
          An existing Gateway
        </label>
      </div>

      {mode === "existing" && (
        <div className="field-row">
          <div className="field field--grow">
            <label htmlFor={`${id}-url`}>Gateway URL</label>
            <input
              id={`${id}-url`}
              type="text"
              value={url}
              onChange={(e) => edit(() => setUrl(e.target.value))}
              onKeyDown={onKeyDown}
              placeholder="ws://127.0.0.1:18789"
              autoComplete="off"
              spellCheck={false}
              aria-describedby={`${id}-url-hint`}
              data-testid="gateway-url-input"
            />
            <p className="field__hint" id={`${id}-url-hint`}>
              wss:// anywhere; plain ws:// only on this machine or a private network (LAN, Tailscale). This
              agent runs there as an agent of its own (checked with OpenClaw 2026.9.6): its own workspace for its
              SOUL.md and other files, and its approval policy as that agent's tool rules (Ask brings each
              command to your Inbox; Read-only cannot write or run commands). Clawboo's tools reach it through
              this computer; its model is that Gateway's own. Clawboo never starts or stops it; from another
              machine, approve this computer there once (openclaw devices approve).
            </p>
          </div>
          <div className="field field--grow">
            <label htmlFor={`${id}-token`}>Token</label>
            <input
              id={`${id}-token`}
              type="password"
              value={token}
              onChange={(e) => edit(() => setToken(e.target.value))}
              onKeyDown={onKeyDown}
              placeholder={tokenSet ? "Saved; type to replace it" : "The Gateway's gateway.auth.token"}
              autoComplete="off"
              spellCheck={false}
              data-testid="gateway-token-input"
            />
            <p className="field__hint" data-testid="gateway-token-status">
              {tokenSet ? "A token is saved in the system keychain." : "No token saved yet."}
            </p>
          </div>
        </div>
      )}

      {touched && dirty && problem && <p className="field__error">{problem}</p>}
      <ErrorMessage message={save.error ? errorMessage(save.error) : null} />
      <div className="form__actions">
        <button
          type="button"
          className="button"
          onClick={submit}
          disabled={!dirty || !!problem || save.isPending}
          data-testid="save-gateway-button"
        >
          {save.isPending ? "Saving…" : "Save Gateway"}
        </button>
        {savedNotice && !dirty && (
          <span className="saved-notice" role="status" data-testid="gateway-saved">
            Saved
          </span>
        )}
      </div>
    </fieldset>
  );
}
