// Registers every command. Each command lives in its own file and exports `register(program, ctx)`.
import type { Command } from "commander";
import type { CommandContext } from "../program.js";

export function registerCommands(program: Command, ctx: CommandContext): void {
  void program;
  void ctx;
}
