// The only module that talks to the Tauri backend: one typed `call` over the generated commands
// and one typed `listen` over the generated events (bindings.ts, from the Rust side). Names,
// arguments, results and payloads all come from bindings.ts, so nothing here repeats a command.
// Tests replace this module with test/fakeApi's `fakeApiModule` (`vi.mock(".../api", ...)`).
import { getVersion } from "@tauri-apps/api/app";
import { commands, events, type AppError } from "./bindings";
import { toClawbooError } from "./errors";
import { timeStartCall } from "./lib/startSteps";

type Commands = typeof commands;

/** A backend command, by its name in bindings.ts (`"listAgents"`, `"sendChatMessage"`, ...). */
export type CommandName = keyof Commands;

export type CommandArgs<K extends CommandName> = Parameters<Commands[K]>;

type CommandOutcome<K extends CommandName> = Awaited<ReturnType<Commands[K]>>;

/** What a command's generated function returns when it reports errors as a value. */
type CommandResult<T> = { status: "ok"; data: T } | { status: "error"; error: AppError };

/** A command's data: unwrapped from its result, or as it comes for the few commands that cannot fail
 *  with an AppError (they return their data directly). */
export type CommandData<K extends CommandName> =
  CommandOutcome<K> extends CommandResult<infer T> ? T : CommandOutcome<K>;

/** The commands whose generated function returns its data directly rather than a result. */
type PlainCommand = { [K in CommandName]: CommandOutcome<K> extends CommandResult<unknown> ? never : K }[CommandName];

/** Listed so `call` knows, without guessing from the data's shape, which results to unwrap. A
 *  command added to the Rust side without an AppError fails to compile until it is added here. */
const PLAIN_COMMANDS = [
  "reportInteractive",
  "sandboxInfo",
  "boardColumns",
  "attentionViewing",
  "suggestedConnectors",
] as const satisfies readonly PlainCommand[];
type ListedPlain = (typeof PLAIN_COMMANDS)[number];
const everyPlainCommandListed: [Exclude<PlainCommand, ListedPlain>] extends [never] ? true : false = true;
void everyPlainCommandListed;

const plainCommands: ReadonlySet<CommandName> = new Set(PLAIN_COMMANDS);

/**
 * Runs a backend command: `call("updateAgent", id, patch)`. Resolves with the command's data;
 * every failure (an AppError the command returned, or the invoke itself failing) is thrown as a
 * ClawbooError with a code and a message.
 */
export async function call<K extends CommandName>(name: K, ...args: CommandArgs<K>): Promise<CommandData<K>> {
  const command = commands[name] as (...args: CommandArgs<K>) => Promise<unknown>;
  let outcome: unknown;
  try {
    outcome = await timeStartCall(name, command(...args));
  } catch (e) {
    throw toClawbooError(e);
  }
  if (plainCommands.has(name)) return outcome as CommandData<K>;
  const result = outcome as CommandResult<CommandData<K>>;
  if (result.status === "ok") return result.data;
  throw toClawbooError(result.error);
}

type Events = typeof events;

/** A backend event, by its name in bindings.ts (`"agentsChanged"`, `"runEventEmitted"`, ...). */
export type EventName = keyof Events;

export type EventPayload<K extends EventName> = Parameters<Parameters<Events[K]["listen"]>[0]>[0]["payload"];

export type Unlisten = () => void;

/** Calls `handler` with each payload of the event until the returned function is called. */
export function listen<K extends EventName>(name: K, handler: (payload: EventPayload<K>) => void): Promise<Unlisten> {
  const event = events[name] as unknown as {
    listen: (cb: (event: { payload: EventPayload<K> }) => void) => Promise<Unlisten>;
  };
  return event.listen((e) => handler(e.payload));
}

/** The app's version from the shell itself: known even when the engine did not start. */
export const appVersion = (): Promise<string> => getVersion();
