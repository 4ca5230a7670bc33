import { useEffect, useId, useRef, useState, type KeyboardEvent } from "react";
import type { Agent, AgentPatch, NetworkAccess, SandboxSettings } from "../../bindings";
import { errorCode, errorMessage } from "../../errors";
import { useSandboxInfo } from "./sandboxQueries";
import { useUpdateAgent } from "../agents/agentQueries";
import { hostsFromText, hostsToText, sameSandbox } from "./sandbox";
import { ErrorMessage } from "../../components/ErrorMessage";
import { ShieldIcon } from "./ShieldIcon";
import { AllowedHostsField } from "./AllowedHostsField";
import { UnconfinedConfirm } from "./UnconfinedConfirm";
import { UnconfinedSwitch } from "./UnconfinedSwitch";
import { NetworkChoices } from "./NetworkChoices";

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

      <NetworkChoices
        name={`${id}-network`}
        network={network}
        confined={saved.confined}
        disabled={update.isPending}
        onChange={(choice) => edit(() => setNetwork(choice))}
      />

      {network === "hosts" && saved.confined && (
        <AllowedHostsField
          id={id}
          hostsText={hostsText}
          allowedHosts={wanted.allowedHosts}
          suggestedHosts={info.data?.suggestedHosts ?? []}
          disabled={update.isPending}
          touched={touched}
          noHosts={noHosts}
          hostsError={hostsError}
          onChange={(text) => edit(() => setHostsText(text))}
        />
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

      <UnconfinedSwitch
        confined={saved.confined}
        disabled={update.isPending}
        saved={savedNotice === "confined"}
        onChange={(unconfined) => {
          if (update.error) update.reset();
          setSavedNotice(null);
          // Off asks first; back on needs no confirmation.
          if (unconfined) setConfirmingOff(true);
          else save({ ...saved, confined: true }, "confined");
        }}
      />
      <ErrorMessage message={otherError && !confirmingOff ? otherError : null} code={code} />

      {confirmingOff && (
        <UnconfinedConfirm
          agent={agent}
          busy={update.isPending}
          error={update.error ? errorMessage(update.error) : null}
          onCancel={() => {
            setConfirmingOff(false);
            update.reset();
          }}
          onConfirm={() => save({ ...saved, confined: false }, "confined", () => setConfirmingOff(false))}
        />
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
