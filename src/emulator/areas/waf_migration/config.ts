// The WAF migration's derived data: proposed config, migration state, eligibility.
// Spec: docs/emulator.md, Rulesets, Logpush and the WAF migration.
import { OWASP_RULESET_ID, OWASP_THRESHOLD_RULE_ID } from "../rulesets/owasp-rules.js";
import { CLOUDFLARE_MANAGED_RULESET_ID } from "../rulesets/seed.js";
import { ApiFault, type RouteRequest, type ZoneState } from "../../types.js";

/** Code of every refused migration request (the real one is not known; clients key on 400). */
const WAF_MIGRATION_CODE = 20230;

type Sensitivity = ZoneState["waf_migration"]["old_sensitivity"];
type OldAction = ZoneState["waf_migration"]["old_action"];

/** Spec table "Sensitivity mapping". */
const SENSITIVITY_MAPPING: Record<Sensitivity, { paranoia_level: number; score_threshold: number }> = {
  high: { paranoia_level: 2, score_threshold: 40 },
  medium: { paranoia_level: 1, score_threshold: 25 },
  low: { paranoia_level: 1, score_threshold: 40 },
  default: { paranoia_level: 2, score_threshold: 40 },
};

/** Simulate becomes log; the old challenge maps to its current equivalent, the managed challenge. */
const ACTION_MAPPING: Record<OldAction, string> = {
  simulate: "log",
  block: "block",
  challenge: "managed_challenge",
};

/** `start` for an eligible zone not yet migrated (the only documented value); the others are ours. */
export function migrationState(zone: ZoneState): "start" | "incompatible" | "validation" | "done" {
  const m = zone.waf_migration;
  if (m.mode === "new") return "done";
  if (m.mode === "validation") return "validation";
  return m.compatible ? "start" : "incompatible";
}

export function buildMigrationConfig(zone: ZoneState): { name: string; rules: Array<Record<string, unknown>> } {
  const { old_sensitivity, old_action } = zone.waf_migration;
  const { paranoia_level, score_threshold } = SENSITIVITY_MAPPING[old_sensitivity];
  const disabledLevels = [2, 3, 4].filter((level) => level > paranoia_level);
  const proposal = (description: string, actionParameters: Record<string, unknown>): Record<string, unknown> => ({
    id: "",
    version: "",
    action: "execute",
    expression: "true",
    description,
    ref: "",
    enabled: true,
    action_parameters: actionParameters,
  });
  return {
    name: "default",
    rules: [
      proposal("Execute Cloudflare OWASP Core Ruleset", {
        id: OWASP_RULESET_ID,
        version: "latest",
        overrides: {
          categories: disabledLevels.map((level) => ({ category: `paranoia-level-${level}`, enabled: false })),
          rules: [{ id: OWASP_THRESHOLD_RULE_ID, action: ACTION_MAPPING[old_action], score_threshold }],
        },
      }),
      proposal("Execute Cloudflare Managed Ruleset", { id: CLOUDFLARE_MANAGED_RULESET_ID, version: "latest" }),
    ],
  };
}

/** The migration endpoints answer only for a zone not yet migrated, and only in phase two. */
export function requireMigrationRequest(req: RouteRequest, zone: ZoneState): void {
  if (req.query.get("phase_two") !== "1") {
    throw refuse(
      "phase_two=1 is required: phase one of the WAF migration has ended and every zone is checked under " +
        "phase two rules",
    );
  }
  if (zone.waf_migration.mode === "new") {
    throw refuse(
      `zone ${zone.name} already uses the new WAF managed rules; the migration is irreversible and cannot be run again`,
    );
  }
}

export function refuse(message: string): ApiFault {
  return new ApiFault(400, [{ code: WAF_MIGRATION_CODE, message }]);
}
