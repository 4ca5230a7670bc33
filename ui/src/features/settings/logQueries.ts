// The app's log level (Settings > Log).
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { call } from "../../api";
import type { LogLevel } from "../../bindings";

export const logKeys = { level: ["log", "level"] as const };

export function useLogLevel() {
  return useQuery({ queryKey: logKeys.level, queryFn: () => call("logLevel") });
}

export function useSetLogLevel() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (level: LogLevel) => call("setLogLevel", level),
    onSuccess: (saved) => client.setQueryData(logKeys.level, saved),
  });
}
