import { useEffect, useId, useRef, useState, type KeyboardEvent } from "react";
import type { Agent, AgentPatch, NetworkAccess, SandboxSettings } from "../../bindings";
import { errorCode, errorMessage } from "../../errors";
import { useSandboxInfo } from "./sandboxQueries";
import { useUpdateAgent } from "../agents/agentQueries";
import {
  addHosts,
  groupSuggestedHosts,
  hostsFromText,
  hostsToText,
  NETWORK_CHOICES,
  sameSandbox,
} from "./sandbox";
import { ConfirmDialog } from "../../components/ConfirmDialog";
import { ErrorMessage } from "../../components/ErrorMessage";
import { ShieldIcon } from "./ShieldIcon";

/** The element the "Sandbox settings" links scroll to. */
export const SANDBOX_SECTION_ID = "agent-sandbox";

const patchOf = (sandbox: SandboxSettings): AgentPatch => ({
  name: null,
  handle: null,
  description: null,
  tint: null,
  runtime: null,
  model: null,
  approvalPolicy: null,
  provider: null,
  sandbox,
});

type Props = {
  agent: Agent;
  /** Changes when a link asks for this section: it scrolls into view and takes the focus. */
  focusKey?: number;
};

/**
 * The agent's OS sandbox: where it may connect (Network), and whether it runs confined at all.
 * Saved on its own through the agent's update, apart from the profile's other fields.
 */
export function SandboxFields({ agent, focusKey }: Props) {
  const id = useId();
  const info = useSandboxInfo();
  const update = useUpdateAgent();
  const saved = agent.sandbox;
  const [network, setNetwork] = useState<NetworkAccess>(saved.network);
  const [hostsText, setHostsText] = useState(hostsToText(saved.allowedHosts));
  const [touched, setTouched] = useState(false);
  const [savedNotice, setSavedNotice] = useState<"network" | "confined" | null>(null);
  const [confirmingOff, setConfirmingOff] = useState(false);
  const section = useRef<HTMLFieldSetElement>(null);

  // Follow changes made elsewhere while the user is not editing.
  useEffect(() => {
    if (touched) return;
    setNetwork(saved.network);
    setHostsText(hostsToText(saved.allowedHosts));
  }, [saved, touched]);

  useEffect(() => {
    if (!focusKey || !section.current) return;
    scrollToTop(section.current);
    section.current.focus({ preventScroll: true });
  }, [focusKey]);

  const wanted: SandboxSettings = { confined: saved.confined, network, allowedHosts: hostsFromText(hostsText) };
  const dirty = !sameSandbox(wanted, saved);
  const noHosts = network === "hosts" && wanted.allowedHosts.length === 0;

  const edit = (change: () => void) => {
    change();
    setTouched(true);
    setSavedNotice(null);
    if (update.error) update.reset();
  };

  const save = (sandbox: SandboxSettings, what: "network" | "confined", then?: () => void) =>
    update.mutate(
      { id: agent.id, patch: patchOf(sandbox) },
      {
        onSuccess: (result) => {
          // Turning the sandbox off or on keeps a Network edit under way.
          if (what === "network") {
            setNetwork(result.sandbox.network);
            setHostsText(hostsToText(result.sandbox.allowedHosts));
            setTouched(false);
          }
          setSavedNotice(what);
          then?.();
        },
      },
    );

  const saveNetwork = () => {
    if (!dirty || noHosts || update.isPending) return;
    save(wanted, "network");
  };

  // Enter in the host list adds a line; elsewhere in this section it saves the section, not the profile.
  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key !== "Enter" || e.target instanceof HTMLTextAreaElement) return;
    e.preventDefault();
    saveNetwork();
  };

  const os = info.data?.os;
  if (info.data && !info.data.supported) {
    return (
      <section className="sandbox-fields" id={SANDBOX_SECTION_ID} data-testid="sandbox-fields">
        <h3 className="sandbox-fields__title">
          <ShieldIcon /> Sandbox
        </h3>
        <p className="sandbox-fields__unsupported" data-testid="sandbox-unsupported">
          Agents are not sandboxed on this OS{os ? ` (${osLabel(os)})` : ""}: every agent runs with your whole account —
          your files, your keys and your network. Clawboo's sandbox works on macOS and Linux.
        </p>
      </section>
    );
  }

  const groups = groupSuggestedHosts(info.data?.suggestedHosts ?? []);
  const listed = new Set(wanted.allowedHosts.map((h) => h.toLowerCase()));
  const code = update.error ? errorCode(update.error) : null;
  // A refused host list is the user's to fix: said plainly, by the list.
  const hostsError = code === "invalid_input" ? errorMessage(update.error) : null;
  const otherError = update.error && !hostsError ? errorMessage(update.error) : null;

  return (
    <fieldset
      ref={section}
      tabIndex={-1}
      className={`sandbox-fields ${saved.confined ? "" : "is-unconfined"}`}
      id={SANDBOX_SECTION_ID}
      data-testid="sandbox-fields"
      onKeyDown={onKeyDown}
    >
      <legend className="sandbox-fields__title">
        <ShieldIcon /> Sandbox
      </legend>
      <p className="field__hint">
        The agent's programs run in an OS sandbox: they see the agent's folder and the team's project folder, not the
        rest of your files, and reach only what the Network setting allows.
      </p>

      <div className="sandbox-fields__network" role="radiogroup" aria-label="Network" data-testid="sandbox-network">
        <span className="sandbox-fields__label">Network</span>
        {!saved.confined && (
          <p className="field__hint" data-testid="sandbox-network-off">
            Applies when the sandbox is on. Without it the agent reaches any host directly.
          </p>
        )}
        {NETWORK_CHOICES.map((choice) => (
          <label key={choice.value} className={`sandbox-choice ${network === choice.value ? "is-checked" : ""}`}>
            <input
              type="radio"
              name={`${id}-network`}
              value={choice.value}
              checked={network === choice.value}
              disabled={update.isPending || !saved.confined}
              onChange={() => edit(() => setNetwork(choice.value))}
              data-testid={`sandbox-network-${choice.value}`}
            />
            <span className="sandbox-choice__text">
              <span className="sandbox-choice__label">{choice.label}</span>
              <span className="sandbox-choice__hint">{choice.hint}</span>
            </span>
          </label>
        ))}
      </div>

      {network === "hosts" && saved.confined && (
        <div className="field sandbox-hosts">
          <label htmlFor={`${id}-hosts`}>Allowed hosts</label>
          <textarea
            id={`${id}-hosts`}
            rows={Math.min(8, Math.max(3, wanted.allowedHosts.length + 1))}
            value={hostsText}
            onChange={(e) => edit(() => setHostsText(e.target.value))}
            placeholder={"registry.npmjs.org\n*.example.com"}
            spellCheck={false}
            autoComplete="off"
            aria-invalid={hostsError ? true : undefined}
            aria-describedby={`${id}-hosts-hint`}
            disabled={update.isPending}
            data-testid="sandbox-hosts-input"
          />
          <p className="field__hint" id={`${id}-hosts-hint`}>
            One host a line, like registry.npmjs.org; *.example.com allows its subdomains. No https://, path or port.
          </p>
          {groups.length > 0 && (
            <div className="sandbox-hosts__suggested" data-testid="sandbox-suggested">
              {groups.map((g) => {
                const added = g.hosts.every((h) => listed.has(h));
                return (
                  <button
                    key={g.label}
                    type="button"
                    className="button button--small"
                    disabled={added || update.isPending}
                    title={g.hosts.join(", ")}
                    onClick={() => edit(() => setHostsText((text) => addHosts(text, g.hosts)))}
                    data-testid={`sandbox-add-${g.label}`}
                  >
                    {added ? `${g.label} added` : `Add ${g.label}`}
                  </button>
                );
              })}
            </div>
          )}
          {touched && noHosts && <p className="field__error">List at least one host, or choose Clawboo only.</p>}
          {hostsError && (
            <p className="field__error" role="alert" data-testid="sandbox-hosts-error">
              {hostsError}
            </p>
          )}
        </div>
      )}
      {hostsError && network !== "hosts" && (
        <p className="field__error" role="alert" data-testid="sandbox-hosts-error">
          {hostsError}
        </p>
      )}

      <div className="form__actions">
        <button
          type="button"
          className="button"
          onClick={saveNetwork}
          disabled={!dirty || noHosts || update.isPending}
          data-testid="save-sandbox-button"
        >
          {update.isPending && !confirmingOff ? "Saving…" : "Save network"}
        </button>
        {dirty && (
          <button
            type="button"
            className="button"
            onClick={() => {
              setNetwork(saved.network);
              setHostsText(hostsToText(saved.allowedHosts));
              setTouched(false);
              update.reset();
            }}
          >
            Discard changes
          </button>
        )}
        {savedNotice === "network" && !dirty && (
          <span className="saved-notice" role="status" data-testid="sandbox-saved">
            Saved
          </span>
        )}
      </div>

      <div className={`sandbox-off ${saved.confined ? "" : "is-on"}`}>
        <label className="switch">
          <input
            type="checkbox"
            role="switch"
            checked={!saved.confined}
            aria-checked={!saved.confined}
            disabled={update.isPending}
            onChange={(e) => {
              if (update.error) update.reset();
              setSavedNotice(null);
              // Off asks first; back on needs no confirmation.
              if (e.target.checked) setConfirmingOff(true);
              else save({ ...saved, confined: true }, "confined");
            }}
            data-testid="sandbox-unconfined-switch"
          />
          <span className="switch__track" aria-hidden="true" />
          <span className="switch__label">Run without the sandbox</span>
        </label>
        <p className="field__hint">
          {saved.confined
            ? "Only for an agent you trust with your whole account."
            : "This agent runs with your whole account: it can read and change your files, use your keys and " +
              "sign-ins, and reach any host. Turn this off to sandbox it again."}
        </p>
        {savedNotice === "confined" && (
          <span className="saved-notice" role="status" data-testid="sandbox-confined-saved">
            {saved.confined ? "The sandbox is on again" : "Saved"}
          </span>
        )}
      </div>
      <ErrorMessage message={otherError && !confirmingOff ? otherError : null} code={code} />

      {confirmingOff && (
        <ConfirmDialog
          title={`Run @${agent.handle} without the sandbox?`}
          confirmLabel="Run without the sandbox"
          confirmTestId="confirm-unconfined"
          cancelLabel="Keep the sandbox"
          cancelTestId="cancel-unconfined"
          busy={update.isPending}
          error={update.error ? errorMessage(update.error) : null}
          onCancel={() => {
            setConfirmingOff(false);
            update.reset();
          }}
          onConfirm={() => save({ ...saved, confined: false }, "confined", () => setConfirmingOff(false))}
        >
          <p>
            Without Clawboo's sandbox, <strong>{agent.name}</strong> runs with your whole account, as if you ran its
            programs yourself:
          </p>
          <ul className="sandbox-risks">
            <li>
              <strong>Files</strong>: it can read, change and delete any file you can, not only its own folder.
            </li>
            <li>
              <strong>Keys</strong>: it can use the keys and sign-ins on this machine (SSH keys, cloud and API
              credentials, browser data).
            </li>
            <li>
              <strong>Network</strong>: it can reach any host; the Network setting no longer applies.
            </li>
          </ul>
          <p>It shows a red “unconfined” badge wherever it appears. You can turn the sandbox back on here at any time.</p>
        </ConfirmDialog>
      )}
    </fieldset>
  );
}

/** Scrolls the page's own scroller to `el` (scrollIntoView would also move the app's fixed frame). */
function scrollToTop(el: HTMLElement) {
  for (let box = el.parentElement; box; box = box.parentElement) {
    const overflow = getComputedStyle(box).overflowY;
    if (overflow !== "auto" && overflow !== "scroll") continue;
    const top = el.getBoundingClientRect().top - box.getBoundingClientRect().top + box.scrollTop - 12;
    box.scrollTo?.({ top, behavior: "smooth" });
    return;
  }
}

function osLabel(os: string): string {
  return ({ windows: "Windows", macos: "macOS", linux: "Linux" } as Record<string, string>)[os] ?? os;
}
