// Registers every command. Each command lives in its own file and exports `register(program, ctx)`.
import type { Command } from "commander";
import type { CommandContext } from "../program.js";
import { register as registerValidate } from "./validate.js";
import { register as registerPlan } from "./plan.js";
import { register as registerApply } from "./apply.js";
import { register as registerDrift } from "./drift.js";
import { register as registerEmulator } from "./emulator.js";

export function registerCommands(program: Command, ctx: CommandContext): void {
  void program;
  void ctx;
  registerValidate(program, ctx);
  registerPlan(program, ctx);
  registerApply(program, ctx);
  registerDrift(program, ctx);
  registerEmulator(program, ctx);
}
