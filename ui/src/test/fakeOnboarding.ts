// The first-run part of the fake API (src-tauri/engine/src/onboarding.rs): not a first run unless
// a test says so; the proposal and the team made are what the test sets.
import { vi } from "vitest";
import type { SomeCommandFakes } from "./commandFakes";
import { ClawbooError } from "../errors";
import type { OnboardingState, RuntimeInfo, RuntimeKind, StarterProposal, StarterTeamInput, Team } from "../bindings";

function initialOnboarding() {
  return {
    state: { firstRun: false, finished: false, starterTeamId: null } as OnboardingState,
    proposal: null as StarterProposal | null,
    /** What the probe of each runtime answers; a kind left out stays "looking" until released. */
    runtimes: new Map<RuntimeKind, RuntimeInfo>(),
    pending: new Map<RuntimeKind, (info: RuntimeInfo) => void>(),
    made: null as ((input: StarterTeamInput) => Team) | null,
  };
}

export const onboarding = initialOnboarding();

export function resetOnboarding() {
  Object.assign(onboarding, initialOnboarding());
}

export const fakeOnboardingApi = {
  onboardingState: vi.fn(async (): Promise<OnboardingState> => ({ ...onboarding.state })),
  finishOnboarding: vi.fn(async (): Promise<OnboardingState> => {
    onboarding.state = { ...onboarding.state, firstRun: false, finished: true };
    return { ...onboarding.state };
  }),
  starterTeamProposal: vi.fn(async (): Promise<StarterProposal> => {
    if (!onboarding.proposal) throw new ClawbooError("internal", "no proposal seeded");
    return structuredClone(onboarding.proposal);
  }),
  createStarterTeam: vi.fn(async (input: StarterTeamInput): Promise<Team> => {
    if (!onboarding.made) throw new ClawbooError("runtime_not_found", "Nothing can run an agent yet.");
    const team = onboarding.made(input);
    onboarding.state = { firstRun: false, finished: true, starterTeamId: team.id };
    return team;
  }),
  runtimeInfo: vi.fn(
    (kind: RuntimeKind): Promise<RuntimeInfo> =>
      new Promise((resolve) => {
        const known = onboarding.runtimes.get(kind);
        if (known) resolve({ ...known });
        else onboarding.pending.set(kind, resolve);
      }),
  ),
} satisfies SomeCommandFakes;
