// Whether agents can be sandboxed here.
import { useQuery } from "@tanstack/react-query";
import { call } from "../../api";

export const sandboxKeys = {
  info: ["sandboxInfo"] as const,
};

/** Whether agents are sandboxed on this OS; fixed for the app's life. */
export function useSandboxInfo() {
  return useQuery({ queryKey: sandboxKeys.info, queryFn: () => call("sandboxInfo"), staleTime: Infinity });
}
