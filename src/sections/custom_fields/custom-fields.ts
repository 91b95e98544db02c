// Custom log fields: one `log_custom_field` rule.
// Spec: docs/configuration.md, `logs.custom_fields`.
import type { DesiredCustomFields, ResponseFieldList } from "./types.js";
import type { ZoneWithCustomFields } from "./types.js";
import type { Change, FieldDiff } from "../../model/index.js";
import {
  addRuleOp,
  createEntrypointOp,
  deleteRuleOp,
  foreignRulesFingerprint,
  patchRuleOp,
  readEntrypoint,
  ruleIdError,
  writableRule,
  type Entrypoint,
  type LiveRule,
} from "../shared/entrypoint.js";
import type { DiffResult, ResourceKind } from "../types.js";

export const LOG_FIELDS_PHASE = "http_log_custom_fields";
const RESOURCE = "custom_fields_rule";
const IDENTITY = "custom_fields";

export interface LiveCustomFields {
  entrypoint: Entrypoint | null;
}

/** The file's name lists, in the order plans show them. */
export type FieldList =
  | "request_headers"
  | "transformed_request_headers"
  | "response_headers"
  | "raw_response_headers"
  | "cookies";
export type CustomFieldLists = Record<FieldList, string[]> & Pick<DesiredCustomFields, "preserve_duplicates">;
/** File list → the rule's action_parameters key (cloudflare-go LogCustomFieldRuleActionParameters). */
const PARAM_OF: Record<FieldList, string> = {
  request_headers: "request_fields",
  transformed_request_headers: "transformed_request_fields",
  response_headers: "response_fields",
  raw_response_headers: "raw_response_fields",
  cookies: "cookie_fields",
};
export const LISTS = Object.keys(PARAM_OF) as FieldList[];
/** The lists whose items carry `preserve_duplicates` (response headers, transformed and raw). */
export const RESPONSE_LISTS: readonly ResponseFieldList[] = ["response_headers", "raw_response_headers"];
const CLASSIC: readonly FieldList[] = ["request_headers", "response_headers", "cookies"];

/** In their order, without duplicates; header names lower case (matched case-insensitively), cookies as written. */
export function normalizeCustomFields(fields: Partial<DesiredCustomFields>): CustomFieldLists {
  const clean = (names: readonly string[] | undefined, lower: boolean) => [
    ...new Set((names ?? []).map((n) => (lower ? n.toLowerCase() : n))),
  ];
  const out = Object.fromEntries(
    LISTS.map((l) => [l, clean(fields[l], l !== "cookies")]),
  ) as unknown as CustomFieldLists;
  const preserve: NonNullable<DesiredCustomFields["preserve_duplicates"]> = {};
  for (const list of RESPONSE_LISTS) {
    const stated = fields.preserve_duplicates?.[list];
    if (stated && Object.keys(stated).length > 0)
      preserve[list] = Object.fromEntries(Object.entries(stated).map(([n, v]) => [n.toLowerCase(), v]));
  }
  if (Object.keys(preserve).length > 0) out.preserve_duplicates = preserve;
  return out;
}

/** A live list's items (objects; anything else in the list is dropped, as fieldsOfRule does). */
function liveItems(rule: LiveRule, list: FieldList): Array<Record<string, unknown> & { name: string }> {
  const v = rule.action_parameters?.[PARAM_OF[list]];
  return (Array.isArray(v) ? v : []).filter(
    (f): f is Record<string, unknown> & { name: string } =>
      f !== null && typeof f === "object" && typeof (f as { name?: unknown }).name === "string",
  );
}

/** The key a name is matched by: header names case-insensitively, cookies exactly. */
const keyOf = (list: FieldList, name: string) => (list === "cookies" ? name : name.toLowerCase());

export function fieldsOfRule(rule: LiveRule): CustomFieldLists {
  const lists = Object.fromEntries(
    LISTS.map((l) => [l, liveItems(rule, l).map((f) => f.name)]),
  ) as Partial<DesiredCustomFields>;
  const preserve: NonNullable<DesiredCustomFields["preserve_duplicates"]> = {};
  for (const list of RESPONSE_LISTS) {
    const on = liveItems(rule, list).filter((f) => f.preserve_duplicates === true);
    if (on.length > 0) preserve[list] = Object.fromEntries(on.map((f) => [f.name.toLowerCase(), true]));
  }
  return normalizeCustomFields({
    ...lists,
    ...(Object.keys(preserve).length > 0 ? { preserve_duplicates: preserve } : {}),
  });
}

function customFieldParameters(fields: CustomFieldLists): Record<string, Array<Record<string, unknown>>> {
  const out: Record<string, Array<Record<string, unknown>>> = {};
  for (const list of LISTS) {
    if (fields[list].length === 0) continue;
    out[PARAM_OF[list]] = fields[list].map((name) => {
      const keep = (RESPONSE_LISTS as readonly string[]).includes(list)
        ? fields.preserve_duplicates?.[list as ResponseFieldList]?.[name]
        : undefined;
      return keep === undefined ? { name } : { name, preserve_duplicates: keep };
    });
  }
  return out;
}

/** The action_parameters of a PATCH: the live ones with only the planned changes applied. */
function patchedParameters(rule: LiveRule, after: CustomFieldLists): Record<string, unknown> {
  const out: Record<string, unknown> = { ...(rule.action_parameters ?? {}) };
  for (const list of LISTS) {
    const live = new Map<string, Record<string, unknown>>();
    for (const item of liveItems(rule, list))
      if (!live.has(keyOf(list, item.name))) live.set(keyOf(list, item.name), item);
    const stated = (RESPONSE_LISTS as readonly string[]).includes(list)
      ? after.preserve_duplicates?.[list as ResponseFieldList]
      : undefined;
    const items = after[list].map((name) => {
      const base = live.get(keyOf(list, name)) ?? { name };
      const keep = stated?.[name];
      return keep === undefined || base.preserve_duplicates === keep ? base : { ...base, preserve_duplicates: keep };
    });
    if (items.length > 0) out[PARAM_OF[list]] = items;
    else delete out[PARAM_OF[list]];
  }
  return out;
}

/** The preserve_duplicates the file states that differ from live (absent live = false), as plan fields. */
function preserveChanges(before: CustomFieldLists, want: CustomFieldLists): FieldDiff[] {
  const out: FieldDiff[] = [];
  for (const list of RESPONSE_LISTS) {
    for (const [name, keep] of Object.entries(want.preserve_duplicates?.[list] ?? {})) {
      if (!want[list].includes(name)) continue;
      const was = before[list].includes(name) ? before.preserve_duplicates?.[list]?.[name] === true : undefined;
      if (was !== keep) out.push({ field: `${list}.${name}.preserve_duplicates`, before: was, after: keep });
    }
  }
  return out;
}

function sameNames(a: readonly string[], b: readonly string[]): boolean {
  const set = new Set(a);
  return a.length === b.length && b.every((n) => set.has(n));
}

/** `want`'s names, in the live order for those already logged, then the new ones in the file's order. */
function keepLiveOrder(live: CustomFieldLists, want: CustomFieldLists): CustomFieldLists {
  const order = (list: FieldList) => {
    const wanted = new Set(want[list]);
    const kept = live[list].filter((n) => wanted.has(n));
    const had = new Set(kept);
    return [...kept, ...want[list].filter((n) => !had.has(n))];
  };
  const out = Object.fromEntries(LISTS.map((l) => [l, order(l)])) as unknown as CustomFieldLists;
  if (want.preserve_duplicates) out.preserve_duplicates = want.preserve_duplicates;
  return out;
}

function isEmpty(fields: CustomFieldLists): boolean {
  return LISTS.every((l) => fields[l].length === 0);
}

function fieldsOf(f: CustomFieldLists): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const l of LISTS) if (CLASSIC.includes(l) || f[l].length > 0) out[l] = f[l];
  if (f.preserve_duplicates) out.preserve_duplicates = f.preserve_duplicates;
  return out;
}

function describeLists(before: CustomFieldLists | undefined, after: CustomFieldLists): string {
  const parts: string[] = [];
  for (const list of LISTS) {
    const was = new Set(before?.[list] ?? []);
    const now = new Set(after[list]);
    const added = after[list].filter((n) => !was.has(n)).map((n) => `+${n}`);
    const removed = [...was].filter((n) => !now.has(n)).map((n) => `-${n}`);
    if (added.length + removed.length > 0)
      parts.push(`${list.replaceAll("_", " ")} ${[...added, ...removed].join(" ")}`);
  }
  return parts.join("; ");
}

export function logFieldRules(ep: Entrypoint | null): LiveRule[] {
  return (ep?.rules ?? []).filter((r) => r.action === "log_custom_field");
}

/** The rule (and the entry point, if the zone has none) that starts logging the file's fields. */
function createChange(zoneId: string, ep: Entrypoint | null, want: CustomFieldLists): Change {
  const body = {
    action: "log_custom_field",
    expression: "true",
    description: "zoneform: custom log fields",
    enabled: true,
    ref: "zoneform-custom-fields",
    action_parameters: customFieldParameters(want),
  };
  const operation = ep
    ? addRuleOp(zoneId, ep.id, body, LOG_FIELDS_PHASE)
    : createEntrypointOp(zoneId, LOG_FIELDS_PHASE, "zoneform: custom log fields", [body]);
  return {
    resource: RESOURCE,
    zone_id: zoneId,
    identity: IDENTITY,
    kind: "create",
    summary: `log ${describeLists(undefined, want)}`,
    after: fieldsOf(want),
    fields: [
      ...LISTS.filter((l) => want[l].length > 0).map((l): FieldDiff => ({ field: l, after: want[l] })),
      ...preserveChanges(fieldsOfRule({ id: "", action: "log_custom_field", expression: "true" }), want),
    ],
    operations: [operation],
  };
}

/** Pure: the change (at most one) that makes the zone log exactly the file's fields. */
export function diffCustomFields(zone: ZoneWithCustomFields, live: LiveCustomFields): DiffResult {
  const desired = zone.logs?.custom_fields;
  if (!desired) return { changes: [] };
  const want = normalizeCustomFields(desired);
  const ep = live.entrypoint;
  const rules = logFieldRules(ep);
  const warnings: string[] = [];
  // Another enabled rule logs fields of its own, so the file's exact set could never be met.
  const othersOn = rules.slice(1).filter((r) => r.enabled !== false);
  if (othersOn.length > 0) {
    const ids = (list: LiveRule[]) => list.map((r) => r.id ?? "without an id").join(", ");
    return {
      changes: [],
      errors: [
        `${rules.length} log_custom_field rules in the ${LOG_FIELDS_PHASE} entry point (${ids(rules)}); ` +
          `zoneform manages one, and the other enabled one(s) (${ids(othersOn)}) log fields of their own, so ` +
          `the file's could not be met. Delete or disable the others in the dashboard or API (or merge their ` +
          `fields into the file), then plan again; nothing in this zone is changed`,
      ],
      warnings,
    };
  }
  if (rules.length > 1) {
    warnings.push(
      `${rules.length} log_custom_field rules in the ${LOG_FIELDS_PHASE} entry point; managing the first ` +
        `(${rules[0]!.id}), leaving the others (disabled) as they are`,
    );
  }
  const rule = rules[0];
  const base = { resource: RESOURCE, zone_id: zone.zone_id, identity: IDENTITY };

  if (!rule) {
    if (isEmpty(want)) return { changes: [], warnings };
    return { changes: [createChange(zone.zone_id, ep, want)], warnings };
  }

  const before = fieldsOfRule(rule);
  const preserve = preserveChanges(before, want);
  const changing =
    isEmpty(want) || rule.enabled === false || preserve.length > 0 || LISTS.some((l) => !sameNames(before[l], want[l]));
  const idProblem = changing ? ruleIdError(rule, "log_custom_field") : undefined;
  if (idProblem) return { changes: [], errors: [idProblem], warnings };
  if (isEmpty(want)) {
    return {
      changes: [
        {
          ...base,
          kind: "delete",
          live_id: rule.id,
          summary: "no custom log fields: remove the rule (the entry point stays)",
          before: fieldsOf(before),
          fields: [],
          operations: [deleteRuleOp(zone.zone_id, ep!.id, rule.id)],
        },
      ],
      warnings,
    };
  }
  const after = keepLiveOrder(before, want);
  const fields: FieldDiff[] = LISTS.filter((l) => !sameNames(before[l], want[l])).map((l) => ({
    field: l,
    before: before[l],
    after: after[l],
  }));
  fields.push(...preserve);
  const enabled = rule.enabled !== false;
  if (!enabled) fields.push({ field: "enabled", before: false, after: true });
  if (fields.length === 0) return { changes: [], warnings };
  const listSummary = [
    describeLists(before, want),
    ...preserve.map(
      (f) => `${f.after ? "keep" : "fold"} duplicates of ${f.field.replace(/\.preserve_duplicates$/, "")}`,
    ),
  ]
    .filter((x) => x !== "")
    .join("; ");
  const change: Change = {
    ...base,
    kind: "update",
    live_id: rule.id,
    summary: [enabled ? "" : "enable the rule", listSummary].filter((s) => s !== "").join("; "),
    before: { ...fieldsOf(before), ...(enabled ? {} : { enabled: false }) },
    after: fieldsOf(after),
    fields,
    operations: [
      patchRuleOp(zone.zone_id, ep!.id, rule, { action_parameters: patchedParameters(rule, after), enabled: true }),
    ],
  };
  return { changes: [change], warnings };
}

export const logCustomFields: ResourceKind<LiveCustomFields, ZoneWithCustomFields> = {
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
