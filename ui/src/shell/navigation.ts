import { createContext, useContext } from "react";
import type { Route } from "./route";

/** Goes to a place in the app: for links deep in a page (an error's fix, a can't-run badge). */
export const NavigateContext = createContext<(route: Route) => void>(() => {});

export function useNavigate() {
  return useContext(NavigateContext);
}
