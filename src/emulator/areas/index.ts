// The registry: every area of the emulator, one line each. Nothing else lists them: the router takes
// their routes and id shapes, the seed and a new zone their parts of the state, the admin API their
// endpoints, recorded answers their loaders (area.ts). The order is the order of a zone's fields in
// the state. Adding an area: docs/emulator.md, "Adding an emulator area".
import type { EmulatorArea } from "../area.js";
import { customHostnames } from "./custom_hostnames/index.js";
import { logpush } from "./logpush_jobs/index.js";
import { notifications } from "./notifications/index.js";
import { pageShield } from "./page_shield/index.js";
import { rulesets } from "./rulesets/index.js";
import { user } from "./user/index.js";
import { wafMigration } from "./waf_migration/index.js";
import { zones } from "./zones/index.js";

export const AREAS: readonly EmulatorArea[] = [
  zones,
  pageShield,
  rulesets,
  logpush,
  customHostnames,
  notifications,
  wafMigration,
  user,
];
