// The registry: every area of the emulator, one line each.
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
