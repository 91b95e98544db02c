// The commands that call the Cloudflare API, each loaded alone when the command line names it: the
// program of every command (../program.ts) has them, and so has the executable's bundle of them
// (../api-main.ts), which never holds `validate` or the emulator.
import type { CommandLoaders } from "../program-core.js";

export const API_COMMANDS: CommandLoaders["alone"] = {
  plan: () => import("./plan.js"),
  apply: () => import("./apply.js"),
  show: () => import("./show.js"),
  drift: () => import("./drift.js"),
  certificates: () => import("./certificates.js"),
  "waf-migration": () => import("./waf-migration.js"),
  audit: () => import("./audit.js"),
  inventory: () => import("./inventory.js"),
  csp: () => import("./csp.js"),
  export: () => import("./export.js"),
  logpush: () => import("./logpush.js"),
  whoami: () => import("./whoami.js"),
};
