import { useEffect, useState, type FormEvent } from "react";
import { useAttentionSettings, useGrants, useRevokeGrant, useSetAttentionSettings } from "./attentionQueries";
import { grantLabel } from "./attention";
import { useAgents } from "../agents/agentQueries";
import { ErrorWithCode } from "../../components/ErrorMessage";

/** The engine's bounds on the expiry (src-tauri/attention/src/types.rs). */
const MIN_HOURS = 1;
const MAX_HOURS = 720;

/** The hours as typed, when they are a whole number the engine takes; else null. */
export function parseExpiryHours(text: string): number | null {
  if (!/^\s*\d+\s*$/.test(text)) return null;
  const hours = Number(text);
  return hours >= MIN_HOURS && hours <= MAX_HOURS ? hours : null;
}

/** How long an approval waits before it is denied, and every "Allow always" with its Revoke. */
export function ApprovalSettingsCard() {
  return (
    <section className="card" aria-label="Approvals" data-testid="approval-settings">
      <h2 className="card__title">Approvals</h2>
      <p className="muted">
        When an agent asks to use a tool or share a note, it waits in the Inbox. Nobody answering in time counts as Deny.
      </p>
      <ExpiryForm />
      <GrantList />
    </section>
  );
}

function ExpiryForm() {
  const settings = useAttentionSettings();
  const save = useSetAttentionSettings();
  const [draft, setDraft] = useState<string | null>(null);
  const [touched, setTouched] = useState(false);
  useEffect(() => {
    if (settings.data) setDraft(String(settings.data.approvalExpiryHours));
  }, [settings.data]);

  const hours = draft === null ? null : parseExpiryHours(draft);
  const invalid = touched && hours === null;

  const submit = (e: FormEvent) => {
    e.preventDefault();
    setTouched(true);
    if (hours !== null) save.mutate({ approvalExpiryHours: hours });
  };

  return (
    <>
      <ErrorWithCode error={settings.error} />
      {draft !== null && (
        <form className="form approval-settings__expiry" onSubmit={submit} noValidate>
          <div className="field">
            <label htmlFor="approval-expiry">Deny unanswered approvals after (hours)</label>
            <input
              id="approval-expiry"
              type="number"
              inputMode="numeric"
              min={MIN_HOURS}
              max={MAX_HOURS}
              step={1}
              value={draft}
              onChange={(e) => {
                setDraft(e.target.value);
                setTouched(true);
                save.reset();
              }}
              aria-invalid={invalid || undefined}
              aria-describedby="approval-expiry-hint"
              data-testid="approval-expiry-hours"
            />
          </div>
          <button
            type="submit"
            className="button button--small"
            disabled={save.isPending || invalid}
            data-testid="approval-expiry-save"
          >
            Save
          </button>
          {save.isSuccess && !save.isPending && <span className="muted">Saved.</span>}
          <p
            id="approval-expiry-hint"
            className={invalid ? "field__error" : "field__hint"}
            data-testid="approval-expiry-hint"
          >
            {invalid
              ? `Enter a whole number of hours from ${MIN_HOURS} to ${MAX_HOURS} (30 days).`
              : `From ${MIN_HOURS} hour to ${MAX_HOURS} (30 days); new approvals use it.`}
          </p>
        </form>
      )}
      <ErrorWithCode error={save.error} />
    </>
  );
}

function GrantList() {
  const grants = useGrants();
  const revoke = useRevokeGrant();
  const agents = useAgents().data ?? [];
  const handleOf = (agentId: string) => agents.find((a) => a.id === agentId)?.handle;

  return (
    <div className="approval-settings__grants">
      <h3 className="approval-settings__subtitle">Allowed always</h3>
      <ErrorWithCode error={grants.error} />
      <ErrorWithCode error={revoke.error} />
      {grants.data?.length === 0 && (
        <p className="muted" data-testid="grants-empty">
          Nothing is allowed always. When you choose “Allow always” for an agent and a tool (for a shell, the commands
          that start like the one you allowed), it shows here and you can revoke it.
        </p>
      )}
      {grants.data && grants.data.length > 0 && (
        <ul className="grant-list" data-testid="grant-list">
          {grants.data.map((g) => {
            const handle = handleOf(g.agentId);
            return (
              <li key={g.id} className="grant" data-testid={`grant-${g.id}`}>
                <span className="grant__text">
                  <span>
                    <strong>{g.agentName}</strong>
                    {handle && <span className="muted"> @{handle}</span>} may use{" "}
                    <code data-testid={`granted-what-${g.id}`}>{grantLabel(g.tool, g.commandPrefix)}</code> without asking
                  </span>
                  <span className="grant__since">since {new Date(g.createdAt).toLocaleString()}</span>
                </span>
                <button
                  type="button"
                  className="button button--small button--danger-subtle"
                  onClick={() => revoke.mutate(g.id)}
                  disabled={revoke.isPending}
                  data-testid={`revoke-grant-${g.id}`}
                >
                  Revoke
                </button>
              </li>
            );
          })}
        </ul>
      )}
    </div>
  );
}
