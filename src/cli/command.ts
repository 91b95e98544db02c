// What a command module (src/cli/commands/*) is given and gives back: the program (program.ts) loads
// each one and calls its `register`; a command never imports the program.
import type { Command } from "commander";
import type { CliIO } from "./io.js";

export interface CommandContext {
  io: CliIO;
  /** Set by a command's action: the process exit code. */
  setExit(code: number): void;
}

export type Register = (program: Command, ctx: CommandContext) => void;

/** zoneform's version; a test keeps it equal to package.json's. */
export const VERSION = "0.3.2";
