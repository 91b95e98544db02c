// Where an emulated zone stands in the WAF migration.
import type { EmptyZoneContext } from "../../area.js";

export interface WafMigrationZoneState {
  waf_migration: {
    /** previous: old WAF only; validation: both run; new: new WAF only. */
    mode: NonNullable<EmptyZoneContext["wafMode"]>;
    compatible: boolean;
    /** Why not, when not compatible (e.g. URI-based overrides). */
    reason?: string;
    /** Old WAF settings the migration config is derived from. */
    old_sensitivity: "high" | "medium" | "low" | "default";
    old_action: "block" | "challenge" | "simulate";
    created?: string;
  };
}

declare module "../../types.js" {
  interface AreaStates {
    waf_migration: { zone: WafMigrationZoneState };
  }
}
