import { addHosts, groupSuggestedHosts } from "./sandbox";

/** The hosts a "Listed hosts" agent may reach, one a line, with the suggested groups to add. */
export function AllowedHostsField({
  id,
  hostsText,
  allowedHosts,
  suggestedHosts,
  disabled,
  touched,
  noHosts,
  hostsError,
  onChange,
}: {
  id: string;
  hostsText: string;
  /** The hosts the text lists now. */
  allowedHosts: string[];
  suggestedHosts: string[];
  disabled: boolean;
  touched: boolean;
  noHosts: boolean;
  hostsError: string | null;
  onChange: (hostsText: string) => void;
}) {
  const groups = groupSuggestedHosts(suggestedHosts);
  const listed = new Set(allowedHosts.map((h) => h.toLowerCase()));
  return (
    <div className="field sandbox-hosts">
      <label htmlFor={`${id}-hosts`}>Allowed hosts</label>
      <textarea
        id={`${id}-hosts`}
        rows={Math.min(8, Math.max(3, allowedHosts.length + 1))}
        value={hostsText}
        onChange={(e) => onChange(e.target.value)}
        placeholder={"registry.npmjs.org\n*.example.com"}
        spellCheck={false}
        autoComplete="off"
        aria-invalid={hostsError ? true : undefined}
        aria-describedby={`${id}-hosts-hint`}
        disabled={disabled}
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
                disabled={added || disabled}
                title={g.hosts.join(", ")}
                onClick={() => onChange(addHosts(hostsText, g.hosts))}
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
  );
}
