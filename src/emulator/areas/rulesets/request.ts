// Request helpers shared by the rulesets routes and the WAF migration switch.
import type { RuleContext } from "./action-params.js";
import { invalid, problem, RULESET_CODE } from "./problems.js";
import { isObject } from "../../validate.js";
import { ApiFault, type RouteRequest, type ZoneState } from "../../types.js";

export function ruleContext(req: RouteRequest, phase: string): RuleContext {
  return { phase, managed: req.state.account_rulesets.filter((r) => r.kind === "managed") };
}

export function readDryRun(query: URLSearchParams): boolean {
  const raw = query.get("dry_run");
  if (raw === null || raw === "false") return false;
  if (raw === "true") return true;
  throw invalid([problem("/", raw, "dry_run", "it must be true or false")]);
}

export function requireZone(req: RouteRequest): ZoneState {
  if (!req.zone) throw new ApiFault(404, [{ code: 7003, message: "Could not route to zone" }]);
  return req.zone;
}

export function requireBody(body: unknown): Record<string, unknown> {
  if (!isObject(body))
    throw new ApiFault(400, [
      { code: RULESET_CODE.invalid, message: "the request body must be a JSON object", source: { pointer: "/" } },
    ]);
  return body;
}
