// Custom log fields: one `log_custom_field` rule (expression `true`) in the zone's
// `http_log_custom_fields` entry point naming the request headers, response headers and cookies that
// Logpush adds to HTTP request records. Names compare as sets (order and duplicates never cause a
// diff), and a write keeps the live order of the names it keeps, new names after them in the file's
// order. An existing rule of that action (made in the dashboard, say) is adopted, not doubled; empty
// lists remove the rule but keep the entry point; a missing entry point is created with the rule in
// one call. Other rules of the entry point are never written.
import type { DesiredCustomFields, DesiredZone } from "../../model/desired.js";
import type { Change, FieldDiff } from "../../model/plan.js";
import {
  addRuleOp, createEntrypointOp, deleteRuleOp, foreignRulesFingerprint, patchRuleOp, readEntrypoint, ruleIdError, writableRule,
  type Entrypoint, type LiveRule,
} from "../shared/entrypoint.js";
import type { DiffResult, ResourceKind } from "../types.js";

export const LOG_FIELDS_PHASE = "http_log_custom_fields";
const RESOURCE = "log_custom_fields";
const IDENTITY = "custom_fields";

export interface LiveCustomFields {
  entrypoint: Entrypoint | null;
}

type FieldList = keyof DesiredCustomFields;
/** File list → the rule's action_parameters key. */
const PARAM_OF: Record<FieldList, "request_fields" | "response_fields" | "cookie_fields"> = {
  request_headers: "request_fields",
  response_headers: "response_fields",
  cookies: "cookie_fields",
};
const LISTS = Object.keys(PARAM_OF) as FieldList[];

/** In their order, without duplicates; header names lower case (matched case-insensitively), cookies as written. */
export function normaliseCustomFields(fields: Partial<DesiredCustomFields>): DesiredCustomFields {
  const clean = (names: readonly string[] | undefined, lower: boolean) => [...new Set((names ?? []).map((n) => (lower ? n.toLowerCase() : n)))];
  return {
    request_headers: clean(fields.request_headers, true),
    response_headers: clean(fields.response_headers, true),
    cookies: clean(fields.cookies, false),
  };
}

/** The field names a live rule logs. */
export function fieldsOfRule(rule: LiveRule): DesiredCustomFields {
  const params = (rule.action_parameters ?? {}) as Record<string, unknown>;
  const names = (key: string) =>
    (Array.isArray(params[key]) ? (params[key] as Array<{ name?: unknown }>) : [])
      .map((f) => f?.name)
      .filter((n): n is string => typeof n === "string");
  return normaliseCustomFields({
    request_headers: names("request_fields"),
    response_headers: names("response_fields"),
    cookies: names("cookie_fields"),
  });
}

/** The rule's action_parameters: only the non-empty lists (the API wants at least one, and no empty one). */
export function customFieldParameters(fields: DesiredCustomFields): Record<string, Array<{ name: string }>> {
  const out: Record<string, Array<{ name: string }>> = {};
  for (const list of LISTS) if (fields[list].length > 0) out[PARAM_OF[list]] = fields[list].map((name) => ({ name }));
  return out;
}

/** Equal as sets. */
function sameNames(a: readonly string[], b: readonly string[]): boolean {
  const set = new Set(a);
  return a.length === b.length && b.every((n) => set.has(n));
}

/** `want`'s names, in the live order for those already logged, then the new ones in the file's order. */
function keepLiveOrder(live: DesiredCustomFields, want: DesiredCustomFields): DesiredCustomFields {
  const order = (list: FieldList) => {
    const wanted = new Set(want[list]);
    const kept = live[list].filter((n) => wanted.has(n));
    const had = new Set(kept);
    return [...kept, ...want[list].filter((n) => !had.has(n))];
  };
  return { request_headers: order("request_headers"), response_headers: order("response_headers"), cookies: order("cookies") };
}

function isEmpty(fields: DesiredCustomFields): boolean {
  return LISTS.every((l) => fields[l].length === 0);
}

function describeLists(before: DesiredCustomFields | undefined, after: DesiredCustomFields): string {
  const parts: string[] = [];
  for (const list of LISTS) {
    const was = new Set(before?.[list] ?? []);
    const now = new Set(after[list]);
    const added = after[list].filter((n) => !was.has(n)).map((n) => `+${n}`);
    const removed = [...was].filter((n) => !now.has(n)).map((n) => `-${n}`);
    if (added.length + removed.length > 0) parts.push(`${list.replace("_", " ")} ${[...added, ...removed].join(" ")}`);
  }
  return parts.join("; ");
}

/** The rules of the entry point that set custom log fields, in order. */
export function logFieldRules(ep: Entrypoint | null): LiveRule[] {
  return (ep?.rules ?? []).filter((r) => r.action === "log_custom_field");
}

/** Pure: the change (at most one) that makes the zone log exactly the file's fields. */
export function diffCustomFields(zone: DesiredZone, live: LiveCustomFields): DiffResult {
  const desired = zone.logs?.custom_fields;
  if (!desired) return { changes: [] };
  const want = normaliseCustomFields(desired);
  const ep = live.entrypoint;
  const rules = logFieldRules(ep);
  const warnings: string[] = [];
  if (rules.length > 1) {
    warnings.push(`${rules.length} log_custom_field rules in the ${LOG_FIELDS_PHASE} entry point; managing the first (${rules[0]!.id}), leaving the others as they are`);
  }
  const rule = rules[0];
  const base = { resource: RESOURCE, zone_id: zone.zone_id, identity: IDENTITY };
  const fieldsOf = (f: DesiredCustomFields) => ({ ...f });

  if (!rule) {
    if (isEmpty(want)) return { changes: [], warnings };
    const body = {
      action: "log_custom_field",
      expression: "true",
      description: "zoneform: custom log fields",
      enabled: true,
      ref: "zoneform-custom-fields",
      action_parameters: customFieldParameters(want),
    };
    const operation = ep
      ? addRuleOp(zone.zone_id, ep.id, body, LOG_FIELDS_PHASE)
      : createEntrypointOp(zone.zone_id, LOG_FIELDS_PHASE, "zoneform: custom log fields", [body]);
    const change: Change = {
      ...base,
      kind: "create",
      summary: `log ${describeLists(undefined, want)}`,
      after: fieldsOf(want),
      fields: LISTS.filter((l) => want[l].length > 0).map((l) => ({ field: l, after: want[l] })),
      operations: [operation],
    };
    return { changes: [change], warnings };
  }

  const before = fieldsOfRule(rule);
  const changing = isEmpty(want) || rule.enabled === false || LISTS.some((l) => !sameNames(before[l], want[l]));
  const idProblem = changing ? ruleIdError(rule, "log_custom_field") : undefined;
  if (idProblem) return { changes: [], errors: [idProblem], warnings };
  if (isEmpty(want)) {
    return {
      changes: [{
        ...base,
        kind: "delete",
        live_id: rule.id,
        summary: "no custom log fields: remove the rule (the entry point stays)",
        before: fieldsOf(before),
        fields: [],
        operations: [deleteRuleOp(zone.zone_id, ep!.id, rule.id)],
      }],
      warnings,
    };
  }
  const after = keepLiveOrder(before, want);
  const fields: FieldDiff[] = LISTS.filter((l) => !sameNames(before[l], want[l])).map((l) => ({
    field: l,
    before: before[l],
    after: after[l],
  }));
  const enabled = rule.enabled !== false;
  if (!enabled) fields.push({ field: "enabled", before: false, after: true });
  if (fields.length === 0) return { changes: [], warnings };
  const listSummary = describeLists(before, want);
  const change: Change = {
    ...base,
    kind: "update",
    live_id: rule.id,
    summary: [enabled ? "" : "enable the rule", listSummary].filter((s) => s !== "").join("; "),
    before: { ...fieldsOf(before), ...(enabled ? {} : { enabled: false }) },
    after: fieldsOf(after),
    fields,
    operations: [patchRuleOp(zone.zone_id, ep!.id, rule, { action_parameters: customFieldParameters(after), enabled: true })],
  };
  return { changes: [change], warnings };
}

export const logCustomFields: ResourceKind<LiveCustomFields> = {
  name: RESOURCE,
  order: 35,
  owns: (zone) => zone.logs?.custom_fields !== undefined,

  async read(ctx, zone) {
    const entrypoint = await readEntrypoint(ctx, zone.zone_id, LOG_FIELDS_PHASE);
    const rule = logFieldRules(entrypoint)[0];
    const owned = new Set(rule ? [rule.id] : []);
    return {
      live: { entrypoint },
      resources: {
        entrypoint: foreignRulesFingerprint(entrypoint, owned),
        [IDENTITY]: rule ? { id: rule.id, version: rule.version ?? null, ...writableRule(rule) } : null,
      },
    };
  },

  diff: diffCustomFields,
};
