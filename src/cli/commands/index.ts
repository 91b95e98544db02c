// Registers every command. Each command lives in its own file and exports `register(program, ctx)`.
import type { Command } from "commander";
import type { CommandContext } from "../program.js";
import { register as registerValidate } from "./validate.js";
import { register as registerPlan } from "./plan.js";
import { register as registerApply } from "./apply.js";
import { register as registerDrift } from "./drift.js";
import { register as registerEmulator } from "./emulator.js";
import { register as registerCertificates } from "./certificates.js";
import { register as registerWafMigration } from "./waf-migration.js";
import { register as registerAudit } from "./audit.js";
import { register as registerCsp } from "./csp.js";
import { register as registerExport } from "./export.js";
import { register as registerLogpush } from "./logpush.js";
import { register as registerWhoami } from "./whoami.js";
import { register as registerShow } from "./show.js";
import { register as registerInventory } from "./inventory.js";

export function registerCommands(program: Command, ctx: CommandContext): void {
  registerValidate(program, ctx);
  registerPlan(program, ctx);
  registerApply(program, ctx);
  registerShow(program, ctx);
  registerDrift(program, ctx);
  registerEmulator(program, ctx);
  registerCertificates(program, ctx);
  registerWafMigration(program, ctx);
  registerAudit(program, ctx);
  registerInventory(program, ctx);
  registerCsp(program, ctx);
  registerExport(program, ctx);
  registerLogpush(program, ctx);
  registerWhoami(program, ctx);
}
