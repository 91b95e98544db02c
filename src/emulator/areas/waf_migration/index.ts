// The migration from the previous WAF to the managed rulesets.
import type { EmulatorArea } from "../../area.js";
import { routes } from "./routes.js";
import type { WafMigrationZoneState } from "./state.js";

export const wafMigration: EmulatorArea = {
  name: "waf_migration",
  routes,
  emptyZone: ({ wafMode }): WafMigrationZoneState => ({
    waf_migration: { mode: wafMode ?? "new", compatible: true, old_sensitivity: "default", old_action: "block" },
  }),
};
