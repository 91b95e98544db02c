// Rulesets routes.
// Spec: docs/emulator.md, Rulesets, Logpush and the WAF migration.
import { paginateByCursor } from "./paging.js";
import {
  createRuleset,
  deleteRule,
  findEntrypoint,
  findZoneRuleset,
  insertRule,
  notFound,
  readPosition,
  replaceRules,
  summarizeRuleset,
  touchRuleset,
  updateRule,
  zoneRulesetsListed,
} from "./store.js";
import { invalid, problem, RULESET_CODE } from "./problems.js";
import { checkRuleSet, RULESET_PHASES, validateRule, validateRules, type RuleInput } from "./validate.js";
import { MANAGED_PHASE } from "./seed.js";
import { ApiFault, type Route, type RouteRequest, type RouteResponse, type ZoneState } from "../../types.js";
import type { Ruleset } from "./state.js";
import { readDryRun, requireBody, requireZone, ruleContext } from "./request.js";

export const routes: Route[] = [
  { method: "GET", pattern: "accounts/:account_id/rulesets", handler: listAccountRulesets },
  { method: "GET", pattern: "accounts/:account_id/rulesets/:ruleset_id", handler: getAccountRuleset },
  { method: "GET", pattern: "zones/:zone_id/rulesets", handler: listZoneRulesets },
  { method: "POST", pattern: "zones/:zone_id/rulesets", handler: createZoneRuleset },
  { method: "GET", pattern: "zones/:zone_id/rulesets/phases/:phase/entrypoint", handler: getEntrypoint },
  { method: "PUT", pattern: "zones/:zone_id/rulesets/phases/:phase/entrypoint", handler: putEntrypoint },
  { method: "GET", pattern: "zones/:zone_id/rulesets/:ruleset_id", handler: getZoneRuleset },
  { method: "PUT", pattern: "zones/:zone_id/rulesets/:ruleset_id", handler: putZoneRuleset },
  { method: "DELETE", pattern: "zones/:zone_id/rulesets/:ruleset_id", handler: deleteZoneRuleset },
  { method: "POST", pattern: "zones/:zone_id/rulesets/:ruleset_id/rules", handler: createRule },
  { method: "PATCH", pattern: "zones/:zone_id/rulesets/:ruleset_id/rules/:rule_id", handler: patchRule },
  { method: "DELETE", pattern: "zones/:zone_id/rulesets/:ruleset_id/rules/:rule_id", handler: removeRule },
];

function listAccountRulesets(req: RouteRequest): RouteResponse {
  requireAccount(req);
  return paginateByCursor(req.state.account_rulesets.map(summarizeRuleset), req.query);
}

function getAccountRuleset(req: RouteRequest): RouteResponse {
  requireAccount(req);
  const id = requireId(req.params.ruleset_id, "ruleset");
  const ruleset = req.state.account_rulesets.find((r) => r.id === id);
  if (!ruleset) throw notFound(`could not find ruleset ${id}`);
  return { result: ruleset };
}

function listZoneRulesets(req: RouteRequest): RouteResponse {
  // Like the real API, a zone's list also shows the managed rulesets it may deploy (with `source` where the
  // stored ruleset has one).
  const zone = requireZone(req);
  return paginateByCursor(zoneRulesetsListed(zone, req.state.account_rulesets).map(summarizeRuleset), req.query);
}

function getZoneRuleset(req: RouteRequest): RouteResponse {
  const zone = requireZone(req);
  const id = requireId(req.params.ruleset_id, "ruleset");
  const own = findZoneRuleset(zone, id);
  const account = req.state.account_rulesets.find((r) => r.id === id);
  // A managed ruleset a recorded zone list brought in has no rules of its own: the account's copy, when there
  // is one, answers with its rules.
  const ruleset = own?.kind === "managed" ? (account ?? own) : (own ?? account);
  if (!ruleset) throw notFound(`could not find ruleset ${id}`);
  return { result: ruleset };
}

function createZoneRuleset(req: RouteRequest): RouteResponse {
  const zone = requireZone(req);
  const dryRun = readDryRun(req.query);
  const body = requireBody(req.body);
  const errors = [];
  if (typeof body.name !== "string" || body.name === "")
    errors.push(problem("/name", body.name ?? "", "name", "a name is required"));
  if (body.kind !== "zone" && body.kind !== "custom") {
    errors.push(problem("/kind", body.kind ?? "", "kind", "zone-level rulesets must be of kind zone or custom"));
  }
  if (typeof body.phase !== "string" || !(RULESET_PHASES as readonly string[]).includes(body.phase)) {
    errors.push(problem("/phase", body.phase ?? "", "phase", "it is not a known phase"));
  }
  if (body.description !== undefined && typeof body.description !== "string") {
    errors.push(problem("/description", body.description, "description", "it must be a string"));
  }
  if (errors.length > 0) throw invalid(errors);
  const phase = body.phase as string;
  if (body.kind === "zone" && findEntrypoint(zone, phase)) {
    throw new ApiFault(400, [
      {
        code: RULESET_CODE.kindExceeded,
        message:
          `'zone' is not a valid value for kind because exceeded maximum number of zone rulesets for ` +
          `phase ${phase}`,
        source: { pointer: "/kind" },
      },
    ]);
  }
  const rules = validateRules(body.rules, ruleContext(req, phase));
  refuseDeployOnPreviousWaf(zone, phase, rules);
  if (dryRun) return { result: null };
  const input = {
    name: body.name as string,
    kind: body.kind as Ruleset["kind"],
    phase,
    description: body.description as string | undefined,
  };
  return { result: createRuleset(zone, input, rules, req.now()) };
}

function getEntrypoint(req: RouteRequest): RouteResponse {
  const zone = requireZone(req);
  const phase = requirePhase(req.params.phase);
  const ruleset = findEntrypoint(zone, phase);
  if (!ruleset) throw notFound(`could not find entrypoint ruleset in the ${phase} phase`);
  return { result: ruleset };
}

function putEntrypoint(req: RouteRequest): RouteResponse {
  const zone = requireZone(req);
  const phase = requirePhase(req.params.phase);
  const dryRun = readDryRun(req.query);
  const body = requireBody(req.body);
  const existing = findEntrypoint(zone, phase);
  if (existing) return writeRuleset(req, zone, existing, body, dryRun);
  // PUT creates a missing entry point (notes "Rulesets").
  const rules = validateRules(body.rules, ruleContext(req, phase));
  checkImmutable(body, { kind: "zone", phase });
  refuseDeployOnPreviousWaf(zone, phase, rules);
  if (dryRun) return { result: null };
  const name = typeof body.name === "string" && body.name !== "" ? body.name : "default";
  const description = typeof body.description === "string" ? body.description : undefined;
  return { result: createRuleset(zone, { name, description, kind: "zone", phase }, rules, req.now()) };
}

function putZoneRuleset(req: RouteRequest): RouteResponse {
  const zone = requireZone(req);
  const dryRun = readDryRun(req.query);
  const body = requireBody(req.body);
  return writeRuleset(req, zone, requireWritable(req, zone), body, dryRun);
}

function deleteZoneRuleset(req: RouteRequest): RouteResponse {
  const zone = requireZone(req);
  const dryRun = readDryRun(req.query);
  const ruleset = requireWritable(req, zone);
  if (!dryRun) zone.rulesets = zone.rulesets.filter((r) => r.id !== ruleset.id);
  return { status: 204, empty: true };
}

function createRule(req: RouteRequest): RouteResponse {
  const zone = requireZone(req);
  const dryRun = readDryRun(req.query);
  const ruleset = requireWritable(req, zone);
  const body = requireBody(req.body);
  const { position, ...rest } = body;
  const rule = validateRule(rest, ruleContext(req, ruleset.phase));
  const pos = readPosition(position);
  refuseDeployOnPreviousWaf(zone, ruleset.phase, [rule]);
  return applyWrite(req, ruleset, dryRun, (target) => {
    throwIfAny(checkRuleSet([...target.rules.map(asInput), rule]));
    insertRule(target, rule, pos, req.now());
  });
}

function patchRule(req: RouteRequest): RouteResponse {
  const zone = requireZone(req);
  const dryRun = readDryRun(req.query);
  const ruleset = requireWritable(req, zone);
  const ruleId = requireId(req.params.rule_id, "rule");
  const body = requireBody(req.body);
  const { position, ...rest } = body;
  const pos = readPosition(position);
  // A body of only `position` moves the rule and leaves its content (and version) alone.
  const rule = Object.keys(rest).length === 0 ? undefined : validateRule(rest, ruleContext(req, ruleset.phase));
  if (rule) refuseDeployOnPreviousWaf(zone, ruleset.phase, [rule]);
  if (!rule && pos === undefined)
    throw invalid([problem("/", body, "body", "it must hold a rule, a position, or both")]);
  return applyWrite(req, ruleset, dryRun, (target) => {
    updateRule(target, ruleId, rule, pos, req.now());
    throwIfAny(checkRuleSet(target.rules.map(asInput)));
  });
}

function removeRule(req: RouteRequest): RouteResponse {
  const zone = requireZone(req);
  const dryRun = readDryRun(req.query);
  const ruleset = requireWritable(req, zone);
  const ruleId = requireId(req.params.rule_id, "rule");
  return applyWrite(req, ruleset, dryRun, (target) => deleteRule(target, ruleId, req.now()));
}

/** PUT of a whole ruleset: name, kind and phase are immutable, the rule list is replaced. */
function writeRuleset(
  req: RouteRequest,
  zone: ZoneState,
  ruleset: Ruleset,
  body: Record<string, unknown>,
  dryRun: boolean,
): RouteResponse {
  checkImmutable(body, ruleset);
  if (body.description !== undefined && typeof body.description !== "string") {
    throw invalid([problem("/description", body.description, "description", "it must be a string")]);
  }
  // The 2026 SDK makes `rules` optional; leaving it out keeps the rules rather than wiping them.
  const rules = body.rules === undefined ? undefined : validateRules(body.rules, ruleContext(req, ruleset.phase));
  if (rules) refuseDeployOnPreviousWaf(zone, ruleset.phase, rules);
  return applyWrite(req, ruleset, dryRun, (target) => {
    if (typeof body.description === "string") target.description = body.description;
    if (rules) replaceRules(target, rules, req.now());
    else touchRuleset(target, req.now());
  });
}

/**
 * Runs `mutate` on a copy, so that a write failing half-way (or a dry run) leaves the ruleset as it was; a
 * successful write is then copied back into the stored object.
 */
function applyWrite(
  _req: RouteRequest,
  ruleset: Ruleset,
  dryRun: boolean,
  mutate: (target: Ruleset) => void,
): RouteResponse {
  const draft = structuredClone(ruleset);
  mutate(draft);
  if (dryRun) return { result: null };
  Object.assign(ruleset, draft);
  return { result: ruleset };
}

/** Until migrated, a zone's managed WAF is the previous one: new managed rules go through the switch. */
function refuseDeployOnPreviousWaf(zone: ZoneState, phase: string, rules: readonly RuleInput[]): void {
  if (phase !== MANAGED_PHASE || zone.waf_migration.mode !== "previous") return;
  const i = rules.findIndex((r) => r.action === "execute");
  if (i < 0) return;
  throw new ApiFault(400, [
    {
      code: RULESET_CODE.previousWaf,
      message:
        `zone ${zone.name} still uses the previous WAF managed rules; migrate it first (GET ` +
        `waf_migration/check?phase_two=1, then PUT this entry point with ` +
        `waf_migration=pending&phase_two=1) before deploying managed rulesets`,
      source: { pointer: rules.length > 1 ? `/rules/${i}/action` : "/action" },
    },
  ]);
}

function checkImmutable(body: Record<string, unknown>, current: { name?: string; kind: string; phase: string }): void {
  const errors = (["name", "kind", "phase"] as const).flatMap((key) => {
    const value = body[key];
    const now = current[key];
    return value !== undefined && now !== undefined && value !== now
      ? [problem(`/${key}`, value, key, `the ${key} of a ruleset cannot be changed (it is ${JSON.stringify(now)})`)]
      : [];
  });
  throwIfAny(errors);
}

function requireWritable(req: RouteRequest, zone: ZoneState): Ruleset {
  const id = requireId(req.params.ruleset_id, "ruleset");
  const ruleset = findZoneRuleset(zone, id);
  if (ruleset && ruleset.kind !== "managed") return ruleset;
  if (ruleset || req.state.account_rulesets.some((r) => r.id === id)) {
    throw new ApiFault(403, [
      {
        code: RULESET_CODE.invalid,
        message:
          `ruleset ${id} is a managed ruleset and cannot be modified; deploy it with an execute rule ` +
          `and tune it with overrides`,
      },
    ]);
  }
  throw notFound(`could not find ruleset ${id}`);
}

function requirePhase(phase: string | undefined): string {
  if (!phase || !(RULESET_PHASES as readonly string[]).includes(phase)) {
    throw new ApiFault(400, [
      {
        code: RULESET_CODE.invalid,
        message: `'${phase}' is not a valid value for phase because it is not a known phase`,
      },
    ]);
  }
  return phase;
}

function requireId(id: string | undefined, what: string): string {
  if (!id || !/^[0-9a-f]{32}$/.test(id)) {
    throw new ApiFault(400, [
      { code: 7003, message: `Could not route to /${what}s/${id}, perhaps your object identifier is invalid?` },
    ]);
  }
  return id;
}

function requireAccount(req: RouteRequest): void {
  const id = req.params.account_id;
  if (id !== req.state.account_id) {
    throw new ApiFault(403, [{ code: 9109, message: `Unauthorized to access requested resource: account ${id}` }]);
  }
}

function throwIfAny(errors: ReturnType<typeof checkRuleSet>): void {
  if (errors.length > 0) throw invalid(errors);
}

function asInput(r: RuleInput & Record<string, unknown>): RuleInput {
  return { action: r.action, expression: r.expression, ref: r.ref, action_parameters: r.action_parameters };
}
