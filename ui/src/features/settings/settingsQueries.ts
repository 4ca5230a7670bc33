// TanStack Query hooks for Settings: the app, API keys and endpoints, runtimes and their access.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { call } from "../../api";
import type { Access, Provider, RuntimeInfo, RuntimeKind } from "../../bindings";

export const settingsKeys = {
  appInfo: ["appInfo"] as const,
  providers: ["providers"] as const,
  runtimes: ["runtimes"] as const,
  runtimeAccess: ["runtimeAccess"] as const,
};

export function useAppInfo() {
  return useQuery({ queryKey: settingsKeys.appInfo, queryFn: () => call("appInfo"), staleTime: Infinity });
}

export function useProviders() {
  return useQuery({ queryKey: settingsKeys.providers, queryFn: () => call("listProviders") });
}

function useProviderMutation<TVars>(fn: (vars: TVars) => Promise<unknown>) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: fn,
    onSettled: () => {
      void client.invalidateQueries({ queryKey: settingsKeys.runtimeAccess }); // a key decides "automatic"
      return client.invalidateQueries({ queryKey: settingsKeys.providers });
    },
  });
}

export function useSetApiKey() {
  return useProviderMutation(({ provider, key }: { provider: Provider; key: string }) =>
    call("setApiKey", provider, key),
  );
}

export function useDeleteApiKey() {
  return useProviderMutation((provider: Provider) => call("deleteApiKey", provider));
}

export function useSetBaseUrl() {
  return useProviderMutation(({ provider, url }: { provider: Provider; url: string | null }) =>
    call("setBaseUrl", provider, url),
  );
}

export function useRuntimes() {
  return useQuery({ queryKey: settingsKeys.runtimes, queryFn: () => call("listRuntimes") });
}

export function useSetRuntimePath() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ kind, path }: { kind: RuntimeKind; path: string | null }) => call("setRuntimePath", kind, path),
    onSuccess: (info) => {
      client.setQueryData<RuntimeInfo[]>(settingsKeys.runtimes, (list) =>
        list?.map((r) => (r.kind === info.kind ? info : r)),
      );
    },
    onSettled: () => client.invalidateQueries({ queryKey: settingsKeys.runtimes }),
  });
}

export function useRuntimeAccess() {
  return useQuery({ queryKey: settingsKeys.runtimeAccess, queryFn: () => call("listRuntimeAccess") });
}

export function useSetRuntimeAccess() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ kind, access }: { kind: RuntimeKind; access: Access | null }) => call("setRuntimeAccess", kind, access),
    onSuccess: (list) => client.setQueryData(settingsKeys.runtimeAccess, list),
    onSettled: () => client.invalidateQueries({ queryKey: settingsKeys.runtimeAccess }),
  });
}

/** The models `provider` offers (asked once by the engine with the stored key, then kept);
 *  `refresh` asks again. Only while `enabled` (the provider has a key or an address). */
export function useProviderModels(provider: Provider | null, enabled: boolean) {
  const client = useQueryClient();
  const key = ["providerModels", provider] as const;
  const query = useQuery({
    queryKey: key,
    queryFn: () => call("providerModels", provider!, false),
    enabled: enabled && provider !== null,
    staleTime: Infinity,
    retry: false,
  });
  const refresh = useMutation({
    mutationFn: () => call("providerModels", provider!, true),
    onSuccess: (models) => client.setQueryData(key, models),
  });
  return { query, refresh };
}
