// The window's preferences in the fake API: the theme and the place it showed last.
import { vi } from "vitest";
import type { Theme, WindowPreferences } from "../bindings";
import type { SomeCommandFakes } from "./commandFakes";

export const preferences: WindowPreferences = { theme: "system", lastPlace: null };

export function resetPreferences() {
  Object.assign(preferences, { theme: "system", lastPlace: null });
}

export const fakePreferencesApi = {
  windowPreferences: vi.fn(async (): Promise<WindowPreferences> => ({ ...preferences })),
  setTheme: vi.fn(async (theme: Theme): Promise<Theme> => {
    preferences.theme = theme;
    return theme;
  }),
  setLastPlace: vi.fn(async (place: string | null): Promise<null> => {
    preferences.lastPlace = place;
    return null;
  }),
} satisfies SomeCommandFakes;
