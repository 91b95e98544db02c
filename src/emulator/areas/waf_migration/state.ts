// Where an emulated zone stands in the migration from the previous WAF to the managed rulesets.

export interface WafMigrationZoneState {
  waf_migration: {
    /** previous: old WAF only; validation: both run; new: new WAF only. */
    mode: "previous" | "validation" | "new";
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
