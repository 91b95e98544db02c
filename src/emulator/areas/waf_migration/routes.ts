// WAF migration read routes and the switch route.
// Spec: docs/emulator.md, Rulesets, Logpush and the WAF migration.
import { requireZone } from "../rulesets/request.js";
import type { Route, RouteRequest, RouteResponse } from "../../types.js";
import { buildMigrationConfig, migrationState, requireMigrationRequest } from "./config.js";
import { switchWafMigration } from "./switch.js";

export const routes: Route[] = [
  { method: "GET", pattern: "zones/:zone_id/waf_migration/check", handler: checkMigration },
  { method: "GET", pattern: "zones/:zone_id/waf_migration/config", handler: getMigrationConfig },
  { method: "GET", pattern: "zones/:zone_id/waf_migration/status", handler: getMigrationStatus },
  {
    method: "PUT",
    pattern: "zones/:zone_id/rulesets/phases/:phase/entrypoint",
    when: (query) => query.has("waf_migration"),
    handler: switchWafMigration,
  },
];

function checkMigration(req: RouteRequest): RouteResponse {
  const zone = requireZone(req);
  requireMigrationRequest(req, zone);
  const m = zone.waf_migration;
  return {
    result: {
      compatible: m.compatible,
      migration_state: migrationState(zone),
      ...(m.compatible ? {} : { reason: m.reason ?? "" }),
    },
  };
}

function getMigrationConfig(req: RouteRequest): RouteResponse {
  const zone = requireZone(req);
  requireMigrationRequest(req, zone);
  return { result: buildMigrationConfig(zone) };
}

/** Still answers after the migration: it is how a client confirms the new WAF is on. */
function getMigrationStatus(req: RouteRequest): RouteResponse {
  const zone = requireZone(req);
  const { mode, created } = zone.waf_migration;
  return {
    result: {
      created: created ?? null,
      migration_state: migrationState(zone),
      new_waf_status: mode === "previous" ? "disabled" : "enabled",
      old_waf_status: mode === "new" ? "disabled" : "enabled",
      source: created ? "api" : null,
    },
  };
}
