// The command-line program with every command: each command's module is loaded alone when the command
// line names it (program-core.ts builds the program and holds the one catch).
import type { Command } from "commander";
import type { CliIO } from "./io.js";
import { API_COMMANDS } from "./commands/api-commands.js";
import { buildProgramWith, mainWith, type CommandContext, type CommandLoaders } from "./program-core.js";

export { helpRequest, reportError, VERSION, type CommandContext } from "./program-core.js";

/**
 * Each command's module, loaded alone when the command line names it, so that a command loads only
 * what it runs (a plan never loads the emulator, `validate` never loads undici): `validate` must start
 * about as fast as Node. Any other command line (help, a typo) registers every command. A new command
 * is added here (or, when it calls the API, in commands/api-commands.ts) and in commands/index.ts.
 */
const ALONE: CommandLoaders["alone"] = {
  validate: () => import("./commands/validate.js"),
  emulator: () => import("./commands/emulator.js"),
  ...API_COMMANDS,
};

const LOADERS: CommandLoaders = { alone: ALONE, all: () => import("./commands/index.js") };

/** The program with every command, or (`only`) with the one command the command line names. */
export function buildProgram(ctx: CommandContext, only?: string): Promise<Command> {
  return buildProgramWith(LOADERS, ctx, only);
}

/** Runs zoneform with `argv` (without node and script) and returns the exit code. */
export function main(argv: string[], rawIO: CliIO): Promise<number> {
  return mainWith(LOADERS, argv, rawIO);
}
