// Every command's module, in the order of `--help`, loaded alone when the command line names it, so that a command
// loads only what it runs (a plan never loads the emulator, `validate` never loads undici).
import type { Register } from "./command.js";

export type CommandModule = { register: Register };

const COMMANDS: Record<string, () => Promise<CommandModule>> = {
  validate: () => import("./commands/validate.js"),
  plan: () => import("./commands/plan.js"),
  apply: () => import("./commands/apply.js"),
  show: () => import("./commands/show.js"),
  drift: () => import("./commands/drift.js"),
  emulator: () => import("./commands/emulator.js"),
  certificates: () => import("./commands/certificates.js"),
  "waf-migration": () => import("./commands/waf-migration.js"),
  audit: () => import("./commands/audit.js"),
  inventory: () => import("./commands/inventory.js"),
  evidence: () => import("./commands/evidence.js"),
  csp: () => import("./commands/csp.js"),
  export: () => import("./commands/export.js"),
  logpush: () => import("./commands/logpush.js"),
  whoami: () => import("./commands/whoami.js"),
};

/** The modules of the command `only` names (when it names one), else of every command, in the order of `--help`. */
export function loadCommands(only?: string): Promise<CommandModule[]> {
  const names = only !== undefined && Object.hasOwn(COMMANDS, only) ? [only] : Object.keys(COMMANDS);
  return Promise.all(names.map((name) => COMMANDS[name]!()));
}
