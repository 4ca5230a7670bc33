import { useEffect, useLayoutEffect, useRef, useState, type Dispatch, type SetStateAction } from "react";
import { call } from "../api";
import type { Agent, Team } from "../bindings";
import { useWindowPreferences } from "../features/settings/preferencesQueries";
import { placeOf, routeOf } from "./lastPlace";
import type { Route } from "./route";

/**
 * Opens the place the window showed last (once, at start, unless the user already went
 * somewhere), then keeps each new place for the next start — the one the user went to before
 * the last place was known included.
 */
export function useLastPlace(route: Route, setRoute: Dispatch<SetStateAction<Route>>, agents?: Agent[], teams?: Team[]) {
  const preferences = useWindowPreferences();
  // The route the window opened on. While the route is still this very object, the user has gone
  // nowhere: a click on Home made while the engine opened is a choice too, and a new object.
  const opening = useRef(route);
  const [restored, setRestored] = useState(false);
  const kept = useRef<string | null | undefined>(undefined);

  // Before the paint (a layout effect): when the first render already has the lists and the place
  // (read as the page started, shell/startReads.ts), the first screen is that place, not Home
  // drawn for a frame and then left.
  useLayoutEffect(() => {
    if (restored || !agents || !teams || preferences.isPending) return;
    const place = preferences.data?.lastPlace ?? null;
    kept.current = place;
    setRestored(true);
    const again = routeOf(place, agents, teams);
    // Decided on the route as it is when applied, not as this render saw it: the user's first
    // click wins over the place kept.
    if (again) setRoute((now) => (now === opening.current ? again : now));
    else if (place !== null) {
      // It led nowhere (its agent or team is gone): forgotten, and Home it is.
      kept.current = null;
      call("setLastPlace", null).catch(() => {});
    }
  }, [agents, teams, preferences.isPending, preferences.data, restored, setRoute]);

  useEffect(() => {
    if (!restored) return;
    const place = placeOf(route);
    if (place === kept.current) return;
    // A burst of moves keeps only the last.
    const timer = setTimeout(() => {
      kept.current = place;
      call("setLastPlace", place).catch(() => {});
    }, 300);
    return () => clearTimeout(timer);
  }, [route, restored]);
}
