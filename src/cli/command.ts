// What a command module (src/cli/commands/*) is given and gives back: the program (program.ts) loads each one and
// calls its `register`.
import type { Command } from "commander";
import type { CliIO } from "./io.js";

export interface CommandContext {
  io: CliIO;
  setExit(code: number): void;
}

export type Register = (program: Command, ctx: CommandContext) => void;

/** zoneform's version. */
export const VERSION = "0.4.0";
