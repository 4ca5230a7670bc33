import { useEffect, useRef } from "react";
import { useAppInfo, useProviders, useRuntimeAccess, useRuntimes } from "./settingsQueries";
import { errorMessage } from "../../errors";
import { ProviderRow } from "./ProviderRow";
import { RuntimeRow } from "./RuntimeRow";
import { ErrorMessage } from "../../components/ErrorMessage";
import { RunnerSettingsCard } from "../board/RunnerSettingsCard";
import { ObservabilityCard } from "../board/ObservabilityCard";
import { ApprovalSettingsCard } from "../attention/ApprovalSettingsCard";
import { LocalApiSettings } from "./LocalApiSettings";
import { SpendSettings } from "./SpendSettings";
import { LogSettingsCard } from "./LogSettingsCard";
import { AppearanceCard } from "./AppearanceCard";
import { ConnectorsSection } from "../connectors/ConnectorsSection";
import { LimitsCard } from "../limits/LimitsCard";

type Props = {
  onSetUpStarterTeam?: () => void;
  /** Opened to add a key (from the first-run page): the API keys are scrolled into view. */
  showKeys?: boolean;
  /** Opened to raise a budget (from the Inbox): Limits is scrolled into view. */
  showLimits?: boolean;
  /** Opened from the first-run page: a banner leads back to it. */
  onBackToSetup?: () => void;
};

export function SettingsPage({ onSetUpStarterTeam, showKeys = false, showLimits = false, onBackToSetup }: Props = {}) {
  const providers = useProviders();
  const runtimes = useRuntimes();
  const access = useRuntimeAccess();
  const appInfo = useAppInfo();
  const keysRef = useRef<HTMLElement>(null);
  const limitsRef = useRef<HTMLElement>(null);
  useEffect(() => {
    if (showKeys) keysRef.current?.scrollIntoView?.({ block: "start" });
  }, [showKeys]);
  useEffect(() => {
    if (showLimits) limitsRef.current?.scrollIntoView?.({ block: "start" });
  }, [showLimits]);

  return (
    <div className="settings-page">
      {onBackToSetup && (
        <div className="back-to-setup" role="status" data-testid="back-to-setup">
          <span>
            {providers.data?.some((p) => p.keySet)
              ? "A key is stored: setting up can go on."
              : "Add a key below, then go back to setting up."}
          </span>
          <button type="button" className="button button--primary button--small" onClick={onBackToSetup} data-testid="back-to-setup-button">
            Back to setup
          </button>
        </div>
      )}
      <h1 className="page-title">Settings</h1>

      <section className="card">
        <h2 className="card__title">Runtimes</h2>
        <p className="muted">The programs that run your agents. Clawboo looks for them on this machine.</p>
        {runtimes.isPending && <p className="muted">Loading…</p>}
        <ErrorMessage message={runtimes.error ? errorMessage(runtimes.error) : null} />
        <ErrorMessage message={access.error ? errorMessage(access.error) : null} />
        {runtimes.data && (
          <ul className="provider-list">
            {runtimes.data.map((info) => (
              <RuntimeRow key={info.kind} info={info} access={access.data?.find((a) => a.kind === info.kind)} />
            ))}
          </ul>
        )}
      </section>

      {onSetUpStarterTeam && (
        <section className="card" aria-label="Starter team">
          <h2 className="card__title">Starter team</h2>
          <p className="muted">
            Look for runtimes and keys again and make a team: Boo Zero leading a researcher and a builder.
          </p>
          <div>
            <button type="button" className="button" onClick={onSetUpStarterTeam} data-testid="setup-starter-team">
              Set up a starter team
            </button>
          </div>
        </section>
      )}

      <section className="card" data-testid="settings-api-keys" ref={keysRef}>
        <h2 className="card__title">API keys</h2>
        <p className="muted">Keys are stored in your system keychain and are never shown again after saving.</p>
        {providers.isPending && <p className="muted">Loading…</p>}
        <ErrorMessage message={providers.error ? errorMessage(providers.error) : null} />
        {providers.data && (
          <ul className="provider-list">
            {providers.data.map((status) => (
              <ProviderRow key={status.provider} status={status} />
            ))}
          </ul>
        )}
      </section>

      <ConnectorsSection />

      <ApprovalSettingsCard />

      <RunnerSettingsCard />

      <LimitsCard sectionRef={limitsRef} />

      <ObservabilityCard />

      <SpendSettings />

      <LocalApiSettings />

      <AppearanceCard />

      <LogSettingsCard />

      <section className="card card--quiet" aria-label="About Clawboo">
        <h2 className="card__title">About</h2>
        {appInfo.data ? (
          <dl className="app-info">
            <dt>Version</dt>
            <dd data-testid="app-version">{appInfo.data.version}</dd>
            <dt>Data directory</dt>
            <dd>
              <code data-testid="app-data-dir">{appInfo.data.dataDir}</code>
            </dd>
          </dl>
        ) : (
          <ErrorMessage message={appInfo.error ? errorMessage(appInfo.error) : null} />
        )}
      </section>
    </div>
  );
}
