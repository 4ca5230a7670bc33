import type { Theme } from "../../bindings";
import { ErrorWithCode } from "../../components/ErrorMessage";
import { useSetTheme, useWindowPreferences } from "./preferencesQueries";

const THEMES: { theme: Theme; label: string; hint: string }[] = [
  { theme: "system", label: "System", hint: "Light or dark as your system is, changing with it." },
  { theme: "light", label: "Light", hint: "Always light." },
  { theme: "dark", label: "Dark", hint: "Always dark." },
];

/** Settings > Appearance: the theme, applied at once and kept for the next start. */
export function AppearanceCard() {
  const preferences = useWindowPreferences();
  const save = useSetTheme();
  const shown = save.isPending ? save.variables : preferences.data?.theme;
  return (
    <section className="card" aria-label="Appearance" data-testid="appearance-settings">
      <h2 className="card__title">Appearance</h2>
      <ErrorWithCode error={preferences.error} />
      {shown && (
        <div className="appearance-choices" role="radiogroup" aria-label="Theme">
          {THEMES.map(({ theme, label, hint }) => (
            <label key={theme} className={`sandbox-choice ${shown === theme ? "is-checked" : ""}`}>
              <input
                type="radio"
                name="theme"
                value={theme}
                checked={shown === theme}
                onChange={() => save.mutate(theme)}
                data-testid={`theme-${theme}`}
              />
              <span className="sandbox-choice__text">
                <span className="sandbox-choice__label">{label}</span>
                <span className="sandbox-choice__hint">{hint}</span>
              </span>
            </label>
          ))}
        </div>
      )}
      <ErrorWithCode error={save.error} />
    </section>
  );
}
