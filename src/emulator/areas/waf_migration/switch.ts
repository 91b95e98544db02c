// The WAF migration switch.
// Spec: docs/emulator.md, Rulesets, Logpush and the WAF migration.
import { createRuleset, findEntrypoint, replaceRules, touchRuleset } from "../rulesets/store.js";
import { validateRules } from "../rulesets/validate.js";
import { readDryRun, requireBody, requireZone, ruleContext } from "../rulesets/request.js";
import { MANAGED_PHASE } from "../rulesets/seed.js";
import type { RouteRequest, RouteResponse, ZoneState } from "../../types.js";
import { refuse, requireMigrationRequest } from "./config.js";

const TARGETS: Record<string, "validation" | "new"> = {
  validation: "validation",
  "2": "validation",
  pending: "new",
  "1": "new",
};

export function switchWafMigration(req: RouteRequest): RouteResponse {
  const zone = requireZone(req);
  if (req.params.phase !== MANAGED_PHASE) {
    throw refuse(`waf_migration is only accepted on the ${MANAGED_PHASE} entry point, not ${req.params.phase}`);
  }
  const raw = req.query.get("waf_migration") ?? "";
  const target = TARGETS[raw];
  if (!target) throw refuse(`'${raw}' is not a valid value for waf_migration; use pending (1) or validation (2)`);
  requireMigrationRequest(req, zone);
  const dryRun = readDryRun(req.query);
  checkTransition(zone, target);
  const body = requireBody(req.body);
  if (!Array.isArray(body.rules) || body.rules.length === 0) {
    throw refuse("the new WAF configuration must hold rules (GET waf_migration/config?phase_two=1 proposes them)");
  }
  const rules = validateRules(body.rules, ruleContext(req, MANAGED_PHASE));
  if (dryRun) return { result: null };
  const now = req.now();
  const existing = findEntrypoint(zone, MANAGED_PHASE);
  let ruleset;
  if (existing) {
    replaceRules(existing, rules, now);
    if (typeof body.description === "string") {
      existing.description = body.description;
      touchRuleset(existing, now);
    }
    ruleset = existing;
  } else {
    const name = typeof body.name === "string" && body.name !== "" ? body.name : "default";
    ruleset = createRuleset(
      zone,
      { name, kind: "zone", phase: MANAGED_PHASE, description: body.description as string | undefined },
      rules,
      now,
    );
  }
  zone.waf_migration.mode = target;
  zone.waf_migration.created ??= now;
  return { result: ruleset };
}

function checkTransition(zone: ZoneState, target: "validation" | "new"): void {
  const m = zone.waf_migration;
  if (!m.compatible) {
    throw refuse(`zone ${zone.name} is not eligible for the WAF migration${m.reason ? `: ${m.reason}` : ""}`);
  }
  if (target === "validation") {
    if (zone.plan !== "enterprise") {
      throw refuse(
        `validation mode (both WAFs side by side) is only available to Enterprise zones; zone ${zone.name} ` +
          `is on the ${zone.plan} plan, use waf_migration=pending`,
      );
    }
    if (m.mode !== "previous")
      throw refuse(
        `zone ${zone.name} is already in validation mode; use waf_migration=pending to finish the migration`,
      );
  }
}
