// The local API part of the fake API: its on/off switch, address and keychain token.
import { vi } from "vitest";
import type { SomeCommandFakes } from "./commandFakes";
import { ClawbooError } from "../errors";
import type { LocalApiStatus } from "../bindings";

function initialLocalApi() {
  return {
    enabled: false,
    port: 43123,
    token: "a".repeat(64),
    /** Tokens handed out, in order (a regenerate adds one). */
    generated: 1,
    failEnable: null as string | null,
  };
}

export const localApi = initialLocalApi();

export function resetLocalApi() {
  Object.assign(localApi, initialLocalApi());
}

function status(): LocalApiStatus {
  const running = localApi.enabled;
  return {
    enabled: localApi.enabled,
    running,
    port: running ? localApi.port : null,
    url: running ? `http://127.0.0.1:${localApi.port}` : null,
    portFile: "/data/api.json",
    error: null,
  };
}

export const fakeLocalApi = {
  localApiStatus: vi.fn(async () => status()),
  localApiSetEnabled: vi.fn(async (enabled: boolean) => {
    if (enabled && localApi.failEnable) {
      throw new ClawbooError("keychain_unavailable", localApi.failEnable);
    }
    localApi.enabled = enabled;
    return status();
  }),
  localApiToken: vi.fn(async () => localApi.token),
  localApiRegenerateToken: vi.fn(async () => {
    localApi.generated += 1;
    localApi.token = String(localApi.generated % 10).repeat(64);
    return localApi.token;
  }),
} satisfies SomeCommandFakes;
