// The app's log level (Settings > Log).
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import * as api from "./api";
import type { LogLevel } from "./api";

export const logKeys = { level: ["log", "level"] as const };

export function useLogLevel() {
  return useQuery({ queryKey: logKeys.level, queryFn: api.logLevel });
}

export function useSetLogLevel() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (level: LogLevel) => api.setLogLevel(level),
    onSuccess: (saved) => client.setQueryData(logKeys.level, saved),
  });
}
