import type { Provider } from "../bindings";

export const PROVIDERS: ReadonlyArray<{ value: Provider; label: string; exampleBaseUrl: string }> = [
  { value: "anthropic", label: "Anthropic", exampleBaseUrl: "https://api.anthropic.com" },
  { value: "openai", label: "OpenAI", exampleBaseUrl: "https://api.openai.com/v1" },
  { value: "openrouter", label: "OpenRouter", exampleBaseUrl: "https://openrouter.ai/api/v1" },
  { value: "custom", label: "Custom (OpenAI-compatible)", exampleBaseUrl: "https://api.example.com/v1" },
];

/** "OpenAI", "Custom (OpenAI-compatible)"; the id itself for one not listed. */
export const providerLabel = (provider: string) => PROVIDERS.find((p) => p.value === provider)?.label ?? provider;

/** A placeholder for the base URL field when the backend reports no default. */
export function exampleBaseUrl(provider: Provider): string {
  return PROVIDERS.find((p) => p.value === provider)?.exampleBaseUrl ?? "";
}

/** The provider a Native agent starts with. */
export const DEFAULT_PROVIDER: Provider = "anthropic";
