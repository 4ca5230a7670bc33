import { useEffect, useRef } from "react";
import { call } from "../api";
import type { Agent, Team } from "../bindings";
import { useWindowPreferences } from "../features/settings/preferencesQueries";
import { placeOf, routeOf } from "./lastPlace";
import type { Route } from "./route";

/**
 * Opens the place the window showed last (once, at start, unless the user already went
 * somewhere), then keeps each new place for the next start.
 */
export function useLastPlace(route: Route, setRoute: (route: Route) => void, agents?: Agent[], teams?: Team[]) {
  const preferences = useWindowPreferences();
  const restored = useRef(false);
  const kept = useRef<string | null | undefined>(undefined);

  useEffect(() => {
    if (restored.current || !agents || !teams || preferences.isPending) return;
    restored.current = true;
    const place = preferences.data?.lastPlace ?? null;
    kept.current = place;
    if (route.page !== "home") return; // the user went somewhere first: that wins
    const again = routeOf(place, agents, teams);
    if (again) setRoute(again);
    else if (place !== null) {
      // It led nowhere (its agent or team is gone): forgotten, and Home it is.
      kept.current = null;
      call("setLastPlace", null).catch(() => {});
    }
  }, [agents, teams, preferences.isPending, preferences.data, route.page, setRoute]);

  useEffect(() => {
    if (!restored.current) return;
    const place = placeOf(route);
    if (place === kept.current) return;
    // A burst of moves keeps only the last.
    const timer = setTimeout(() => {
      kept.current = place;
      call("setLastPlace", place).catch(() => {});
    }, 300);
    return () => clearTimeout(timer);
  }, [route]);
}
