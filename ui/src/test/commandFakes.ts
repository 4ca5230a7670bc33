// The shape every fake command has: the real command's arguments and data (from bindings.ts through
// api.ts), so a fake cannot drift from the command it stands in for.
import type { CommandArgs, CommandData, CommandName } from "../api";

export type CommandFake<K extends CommandName> = (...args: CommandArgs<K>) => Promise<CommandData<K>>;

/** One fake for every command: a command added to the backend is a type error in fakeApi.ts until
 *  it has one. */
export type CommandFakes = { [K in CommandName]: CommandFake<K> };

/** The fakes of one part of the backend (fakeMemory.ts, fakeBoard.ts ...), checked the same way. */
export type SomeCommandFakes = Partial<CommandFakes>;
