// The managed WAF rulesets a zone deploys in its `http_request_firewall_managed` entry point.
// Spec: docs/configuration.md, `waf`.
import type { DesiredCloudflareManaged, DesiredOwasp } from "./types.js";
import type { ZoneWithWaf } from "./types.js";
import type { Change, FieldDiff } from "../../model/index.js";
import {
  addRuleOp,
  createEntrypointOp,
  foreignRulesFingerprint,
  patchRuleOp,
  readEntrypoint,
  ruleIdError,
  writableRule,
  type Entrypoint,
  type LiveRule,
} from "../shared/entrypoint.js";
import {
  CLOUDFLARE_MANAGED_RULESET_ID,
  CLOUDFLARE_MANAGED_RULESET_NAME,
  missingParanoiaLevels,
  OWASP_RULESET_ID,
  readManagedRuleset,
  readOwaspRuleset,
  type OwaspRuleset,
} from "./managed-ruleset.js";
import {
  describeCreate,
  describeUpdate,
  intentFieldChanges,
  intentFrom,
  sameParanoia,
  tunedParameters,
  type ExecuteParameters,
  type OwaspIntent,
} from "./owasp-intent.js";
import type { DiffResult, ResourceKind } from "../types.js";

export const WAF_PHASE = "http_request_firewall_managed";
const RESOURCE = "waf_managed_rules";
const OWASP_REF = "zoneform-owasp";
const CFM_REF = "zoneform-cloudflare-managed";

export interface LiveWaf {
  entrypoint: Entrypoint | null;
  /** The OWASP ruleset's well-known id. */
  owaspId: string;
  cloudflareManagedId: string;
  /** Read only when the file enables OWASP: its last rule and defaults drive the tuning. */
  owaspRuleset: OwaspRuleset | null;
}

/** The execute rules of the entry point that deploy `rulesetId`, in entry point order. */
export function executeRulesFor(ep: Entrypoint | null, rulesetId: string): LiveRule[] {
  return (ep?.rules ?? []).filter(
    (r) => r.action === "execute" && (r.action_parameters as { id?: unknown } | undefined)?.id === rulesetId,
  );
}

function ruleFingerprint(rule: LiveRule | undefined): unknown {
  return rule ? { id: rule.id, version: rule.version ?? null, ...writableRule(rule) } : null;
}

interface Gathered {
  errors: string[];
  warnings: string[];
  planned: Planned[];
}

interface Planned {
  change: Change;
  newRule?: Record<string, unknown> & { ref: string };
}

function owaspRuleBody(params: ExecuteParameters, expression: string): Record<string, unknown> & { ref: string } {
  return {
    action: "execute",
    expression,
    description: "zoneform: OWASP Core Ruleset",
    enabled: true,
    ref: OWASP_REF,
    action_parameters: params,
  };
}

/** The expression field, when the file's differs from the live rule's (shown as a word diff). */
function expressionField(rule: LiveRule, want: string): FieldDiff[] {
  return rule.expression === want ? [] : [{ field: "expression", before: rule.expression, after: want, text: true }];
}

/** The execute rule that deploys `rulesetId` (the first) and what every change to it shares. */
function deployedRule(
  zone: ZoneWithWaf,
  live: LiveWaf,
  rulesetId: string,
  name: string,
  identity: string,
  out: Gathered,
) {
  const found = executeRulesFor(live.entrypoint, rulesetId);
  const othersOn = found.slice(1).filter((r) => r.enabled !== false);
  if (othersOn.length > 0) {
    const ids = (rules: LiveRule[]) => rules.map((r) => r.id ?? "without an id").join(", ");
    out.errors.push(
      `${found.length} execute rules deploy the ${name} (${ids(found)}); zoneform manages one, and the other ` +
        `enabled one(s) (${ids(othersOn)}) ` +
        `keep it running with their own settings, so the file's could not be met. Delete or disable the ` +
        `others in the dashboard or API (or merge them into one), then plan again; nothing in this zone is changed`,
    );
  } else if (found.length > 1) {
    out.warnings.push(
      `${found.length} execute rules deploy the ${name}; managing the first (${found[0]!.id}), leaving the ` +
        `others (disabled) as they are`,
    );
  }
  return { rule: found[0], base: { resource: RESOURCE, zone_id: zone.zone_id, identity } };
}

/** An update of the live rule by one PATCH of `set`. */
function updateRule(
  out: Gathered,
  live: LiveWaf,
  rule: LiveRule,
  what: string,
  change: Omit<Change, "kind" | "live_id" | "operations">,
  set: Record<string, unknown>,
): void {
  const err = ruleIdError(rule, `${what} execute`);
  if (err) return void out.errors.push(err);
  const { resource, zone_id, identity, notes, ...shown } = change;
  const operations = [patchRuleOp(zone_id, live.entrypoint!.id, rule, set)];
  out.planned.push({
    change: {
      resource,
      zone_id,
      identity,
      kind: "update",
      live_id: rule.id,
      ...shown,
      operations,
      ...(notes ? { notes } : {}),
    },
  });
}

function planOwasp(zone: ZoneWithWaf, want: DesiredOwasp, live: LiveWaf, out: Gathered): void {
  const { rule, base } = deployedRule(zone, live, live.owaspId, "OWASP Core Ruleset", "owasp", out);
  if (!want.enabled) {
    // Disabling keeps the rule and its tuning, so enabling it again restores both.
    if (!rule || rule.enabled === false) return;
    const change = {
      ...base,
      summary: "disable OWASP (tuning kept)",
      before: { enabled: true },
      after: { enabled: false },
      fields: [{ field: "enabled", before: true, after: false }],
    };
    updateRule(out, live, rule, "OWASP Core Ruleset", change, { enabled: false });
    return;
  }
  const managed = live.owaspRuleset;
  if (!managed) {
    out.errors.push(
      `the OWASP Core Ruleset (${OWASP_RULESET_ID}) was not read; cannot find its last rule to set the ` +
        `threshold and action`,
    );
    return;
  }
  const intent: OwaspIntent = {
    enabled: true,
    paranoia_level: want.paranoia_level,
    score_threshold: want.score_threshold,
    action: want.action,
  };
  const paranoiaRewritten = !rule || !sameParanoia(rule, intent.paranoia_level);
  const missing = missingParanoiaLevels(intent.paranoia_level, managed);
  if (paranoiaRewritten && missing.length > 0) {
    // Writing category overrides for categories the answer does not show would be a guess.
    out.errors.push(
      `the OWASP Core Ruleset as the API answered it shows no rule in category ` +
        `${missing.map((l) => `paranoia-level-${l}`).join(", ")}, ` +
        `which paranoia_level ${intent.paranoia_level} disables; zoneform will not write paranoia overrides ` +
        `it cannot confirm, and nothing was changed ` +
        "(set account_id so that the ruleset is read where its rules' categories are documented)",
    );
    return;
  }
  if (!rule) {
    const body = owaspRuleBody(tunedParameters(undefined, intent, managed), want.expression);
    const fields: FieldDiff[] = (["paranoia_level", "score_threshold", "action", "enabled"] as const).map((f) => ({
      field: f,
      after: intent[f],
    }));
    if (want.expression !== "true") fields.push({ field: "expression", after: want.expression });
    out.planned.push({
      change: {
        ...base,
        kind: "create",
        summary: describeCreate(intent),
        after: { ...intent, expression: want.expression },
        fields,
        operations: [],
      },
      newRule: body,
    });
    return;
  }
  const before = intentFrom(rule, managed);
  const changed = intentFieldChanges(before, intent);
  const expression = expressionField(rule, want.expression);
  if (changed.length === 0 && !paranoiaRewritten && expression.length === 0) return;
  const fields: FieldDiff[] = changed.map((f) => ({ field: f, before: before[f], after: intent[f] }));
  if (paranoiaRewritten && !changed.includes("paranoia_level")) {
    fields.unshift({ field: "paranoia_level", before: before.paranoia_level, after: intent.paranoia_level });
  }
  fields.push(...expression);
  const summary = [describeUpdate(before, intent, paranoiaRewritten), expression.length > 0 ? "expression changed" : ""]
    .filter((x) => x !== "")
    .join(", ");
  const change = {
    ...base,
    summary,
    before: { ...before, expression: rule.expression },
    after: { ...intent, expression: want.expression },
    fields,
  };
  updateRule(out, live, rule, "OWASP Core Ruleset", change, {
    action_parameters: tunedParameters(rule.action_parameters, intent, managed),
    enabled: true,
    expression: want.expression,
  });
}

function cfmAction(rule: LiveRule): string | undefined {
  const a = (rule.action_parameters as ExecuteParameters | undefined)?.overrides?.action;
  return typeof a === "string" ? a : undefined;
}

/** The live parameters with only the ruleset-wide action set or removed; every other override kept. */
function cfmParameters(live: unknown, id: string, action: string | undefined): ExecuteParameters {
  const params: ExecuteParameters =
    live && typeof live === "object" ? structuredClone(live as ExecuteParameters) : { id };
  params.id = id;
  const overrides = { ...(params.overrides ?? {}) };
  if (action === undefined) delete overrides.action;
  else overrides.action = action;
  if (Object.keys(overrides).length > 0) params.overrides = overrides;
  else delete params.overrides;
  return params;
}

function describeAction(a: string | undefined): string {
  return a ?? "each rule's own";
}

function planCloudflareManaged(zone: ZoneWithWaf, want: DesiredCloudflareManaged, live: LiveWaf, out: Gathered): void {
  const { rule, base } = deployedRule(
    zone,
    live,
    live.cloudflareManagedId,
    "Cloudflare Managed Ruleset",
    "cloudflare_managed",
    out,
  );
  if (!rule) {
    if (!want.enabled) return;
    const body = {
      action: "execute",
      expression: want.expression,
      description: "zoneform: Cloudflare Managed Ruleset",
      enabled: true,
      ref: CFM_REF,
      action_parameters: cfmParameters(undefined, live.cloudflareManagedId, want.action),
    };
    const after = {
      enabled: true,
      ...(want.action !== undefined ? { action: want.action } : {}),
      ...(want.expression !== "true" ? { expression: want.expression } : {}),
    };
    out.planned.push({
      change: {
        ...base,
        kind: "create",
        summary: `deploy Cloudflare Managed Ruleset${want.action !== undefined ? `, action ${want.action}` : ""}`,
        after,
        fields: Object.entries(after).map(([field, v]) => ({ field, after: v })),
        operations: [],
      },
      newRule: body,
    });
    return;
  }
  const before = { enabled: rule.enabled !== false, action: cfmAction(rule), expression: rule.expression };
  // Disabled, only `enabled` is managed.
  const after = want.enabled
    ? { enabled: true, action: want.action, expression: want.expression }
    : { enabled: false, action: before.action, expression: before.expression };
  const fields: FieldDiff[] = [];
  if (before.enabled !== after.enabled) fields.push({ field: "enabled", before: before.enabled, after: after.enabled });
  if (before.action !== after.action) fields.push({ field: "action", before: before.action, after: after.action });
  if (want.enabled) fields.push(...expressionField(rule, want.expression));
  if (fields.length === 0) return;
  const parts: string[] = [];
  if (before.enabled !== after.enabled)
    parts.push(after.enabled ? "enable Cloudflare Managed Ruleset" : "disable Cloudflare Managed Ruleset (rule kept)");
  if (before.action !== after.action)
    parts.push(`action ${describeAction(before.action)} → ${describeAction(after.action)}`);
  if (before.expression !== after.expression)
    parts.push(`expression ${JSON.stringify(before.expression)} → ${JSON.stringify(after.expression)}`);
  const others = ((rule.action_parameters as ExecuteParameters | undefined)?.overrides?.rules ?? []).length;
  const notes =
    others > 0 ? { notes: [`the rule's ${others} rule override(s), made outside zoneform, are kept as they are`] } : {};
  updateRule(
    out,
    live,
    rule,
    CLOUDFLARE_MANAGED_RULESET_NAME,
    { ...base, summary: parts.join(", "), before, after, fields, ...notes },
    {
      action_parameters: cfmParameters(rule.action_parameters, live.cloudflareManagedId, after.action),
      enabled: after.enabled,
      expression: after.expression,
    },
  );
}

/** Pure: the changes that make the entry point's managed execute rules match the file. */
export function diffWaf(zone: ZoneWithWaf, live: LiveWaf): DiffResult {
  const out: Gathered = { errors: [], warnings: [], planned: [] };
  // Cloudflare Managed first: a new entry point then runs it before OWASP, as the dashboard deploys them.
  if (zone.waf?.cloudflare_managed) planCloudflareManaged(zone, zone.waf.cloudflare_managed, live, out);
  if (zone.waf?.owasp) planOwasp(zone, zone.waf.owasp, live, out);

  const ep = live.entrypoint;
  const creates = out.planned.filter((p) => p.newRule);
  if (!ep && creates.length > 0) {
    const [first, ...rest] = creates;
    first!.change.operations = [
      createEntrypointOp(
        zone.zone_id,
        WAF_PHASE,
        "zoneform: managed WAF rulesets",
        creates.map((p) => p.newRule!),
      ),
    ];
    for (const p of rest) {
      p.change.notes = [
        `added by the call of ${first!.change.identity}: a new entry point is created with all its rules at once`,
      ];
    }
  } else if (ep) {
    for (const p of creates) p.change.operations = [addRuleOp(zone.zone_id, ep.id, p.newRule!, WAF_PHASE)];
  }
  return { changes: out.planned.map((p) => p.change), errors: out.errors, warnings: out.warnings };
}

export const wafManagedRules: ResourceKind<LiveWaf, ZoneWithWaf> = {
  name: RESOURCE,
  order: 30,
  owns: (zone) => zone.waf?.owasp !== undefined || zone.waf?.cloudflare_managed !== undefined,

  async read(ctx, zone) {
    const owaspRead = zone.waf?.owasp?.enabled ? readOwaspRuleset(ctx, zone.zone_id) : Promise.resolve(null);
    owaspRead.catch(() => undefined);
    const entrypoint = await readEntrypoint(ctx, zone.zone_id, WAF_PHASE);
    const cfmWanted = zone.waf?.cloudflare_managed?.enabled === true;
    const [owaspRuleset] = await Promise.all([
      owaspRead,
      cfmWanted && executeRulesFor(entrypoint, CLOUDFLARE_MANAGED_RULESET_ID).length === 0
        ? readManagedRuleset(ctx, zone.zone_id, CLOUDFLARE_MANAGED_RULESET_ID, CLOUDFLARE_MANAGED_RULESET_NAME)
        : Promise.resolve(null),
    ]);
    const live: LiveWaf = {
      entrypoint,
      owaspId: OWASP_RULESET_ID,
      cloudflareManagedId: CLOUDFLARE_MANAGED_RULESET_ID,
      owaspRuleset,
    };
    // Rules of a section the file does not declare are foreign: fingerprinted with the entry point.
    const owasp = zone.waf?.owasp ? executeRulesFor(entrypoint, live.owaspId)[0] : undefined;
    const cfm = zone.waf?.cloudflare_managed ? executeRulesFor(entrypoint, live.cloudflareManagedId)[0] : undefined;
    const owned = new Set([owasp?.id, cfm?.id].filter((id): id is string => id !== undefined));
    const resources: Record<string, unknown> = { entrypoint: foreignRulesFingerprint(entrypoint, owned) };
    if (zone.waf?.owasp) resources.owasp = ruleFingerprint(owasp);
    if (zone.waf?.cloudflare_managed) resources.cloudflare_managed = ruleFingerprint(cfm);
    return { live, resources };
  },

  diff: diffWaf,
};
