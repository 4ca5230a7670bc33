// What the window remembers: the theme (Settings > Appearance) and the place it showed last.
import { useEffect } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { call } from "../../api";
import type { Theme, WindowPreferences } from "../../bindings";
import { applyTheme } from "../../shell/theme";

export const preferenceKeys = { all: ["windowPreferences"] as const };

export function useWindowPreferences() {
  return useQuery({ queryKey: preferenceKeys.all, queryFn: () => call("windowPreferences"), staleTime: Infinity });
}

export function useSetTheme() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (theme: Theme) => call("setTheme", theme),
    onMutate: (theme) => applyTheme(theme),
    onSuccess: (theme) =>
      client.setQueryData<WindowPreferences>(preferenceKeys.all, (old) => ({ lastPlace: old?.lastPlace ?? null, theme })),
    // Not kept: back to what is.
    onError: () => {
      const kept = client.getQueryData<WindowPreferences>(preferenceKeys.all);
      applyTheme(kept?.theme ?? "system");
    },
  });
}

/** Shows the theme the engine keeps once it is read (the first paint used the cached one). */
export function useKeptTheme() {
  const theme = useWindowPreferences().data?.theme;
  useEffect(() => {
    if (theme) applyTheme(theme);
  }, [theme]);
}
