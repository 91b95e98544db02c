// The rulesets of an emulated zone and the account's managed rulesets.

export interface Rule {
  id: string;
  version: string;
  action: string;
  expression: string;
  description?: string;
  enabled: boolean;
  ref: string;
  last_updated: string;
  categories?: string[];
  score_threshold?: number;
  action_parameters?: Record<string, unknown>;
  logging?: { enabled: boolean };
  [extra: string]: unknown;
}

export interface Ruleset {
  id: string;
  name: string;
  description: string;
  kind: "managed" | "custom" | "root" | "zone";
  phase: string;
  version: string;
  last_updated: string;
  source?: string;
  rules: Rule[];
}

interface RulesetsZoneState {
  rulesets: Ruleset[];
}

interface RulesetsAccountState {
  account_rulesets: Ruleset[];
}

declare module "../../types.js" {
  interface AreaStates {
    rulesets: { zone: RulesetsZoneState; state: RulesetsAccountState };
  }
}
