// An in-memory stand-in for the backend: `fakeApi` holds a fake for every command (typed by
// commandFakes.ts, so none can be missing), `fakeApiModule` replaces ../api in a test:
//   vi.mock("../api", async () => (await import("./fakeApi")).fakeApiModule);
// Each part of the backend has its own file (fakeAgents, fakeChat, fakeTeams, fakeMemory ...); the
// helpers tests seed and drive it with are exported here too.
import { vi } from "vitest";
import type { CommandArgs, CommandName } from "../api";
import type { CommandFakes } from "./commandFakes";
import { fakeListen, resetEvents } from "./fakeEvents";
import { backend, initialState } from "./fakeState";
import { fakeAgentsApi } from "./fakeAgents";
import { fakeChatApi } from "./fakeChat";
import { fakeTeamsApi } from "./fakeTeams";
import { fakeMemoryApi, resetMemory } from "./fakeMemory";
import { fakeBoardApi, resetBoard } from "./fakeBoard";
import { fakeLocalApi, resetLocalApi } from "./fakeLocalApi";
import { fakeLogsApi, resetLogs } from "./fakeLogs";
import { fakePreferencesApi, resetPreferences } from "./fakePreferences";
import { fakeAttentionApi, resetAttention } from "./fakeAttention";
import { fakeBooZeroApi, resetBooZero } from "./fakeBooZero";
import { fakeRoutinesApi, resetRoutines } from "./fakeRoutines";
import { fakeConnectorsApi } from "./fakeConnectors";
import { fakeOnboardingApi, resetOnboarding } from "./fakeOnboarding";
import { fakeHomeApi, resetHome } from "./fakeHome";
import { fakeSearchApi, resetSearch } from "./fakeSearch";
import { fakeLimitsApi, resetLimits } from "./fakeLimits";
import { fakeSpendApi, resetSpend } from "./fakeSpend";

export { backend, FILE_NAMES, SUGGESTED_HOSTS } from "./fakeState";
export { editOnDisk, emitFileChanged, seedAgent } from "./fakeAgents";
export {
  deliverRunEvent,
  emitMessageAdded,
  emitRunChanged,
  emitRunEvent,
  finishRun,
  recordRunEvent,
  NEW_CHAT_NOTICE,
  RESET_NOTICE,
  seedChat,
  seedMessage,
  seedRun,
} from "./fakeChat";
export { emitRoomMessage, seedRoomMessage, seedTeam } from "./fakeTeams";
export { seedSearch } from "./fakeSearch";
export { seedBudget, seedPaused, limitsState } from "./fakeLimits";

export const fakeApi = {
  ...fakeAgentsApi,
  ...fakeChatApi,
  ...fakeTeamsApi,
  ...fakeMemoryApi,
  ...fakeBoardApi,
  ...fakeAttentionApi,
  ...fakeLocalApi,
  ...fakeLogsApi,
  ...fakePreferencesApi,
  ...fakeBooZeroApi,
  ...fakeRoutinesApi,
  ...fakeConnectorsApi,
  ...fakeOnboardingApi,
  ...fakeHomeApi,
  ...fakeSearchApi,
  ...fakeLimitsApi,
  ...fakeSpendApi,
} satisfies CommandFakes;

/** What replaces ../api in a test: `call` runs the command's fake, `listen` the fake events. */
const commandFakes: CommandFakes = fakeApi;

export const fakeApiModule = {
  call: <K extends CommandName>(name: K, ...args: CommandArgs<K>) => commandFakes[name](...args),
  listen: fakeListen,
  appVersion: vi.fn(async () => "0.1.0"),
};

/** Fresh state and cleared call records; call in beforeEach. */
export function resetBackend() {
  Object.assign(backend, initialState());
  resetMemory();
  resetBoard();
  resetAttention();
  resetLocalApi();
  resetLogs();
  resetPreferences();
  resetBooZero();
  resetRoutines();
  resetOnboarding();
  resetHome();
  resetSearch();
  resetLimits();
  resetSpend();
  resetEvents();
  Object.values(fakeApi).forEach((fn) => fn.mockClear());
}
