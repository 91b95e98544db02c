// Page Shield CSP policies.
// Spec: docs/configuration.md, `page_shield`.
import { AnswerShapeError } from "../../errors.js";
import type { DesiredPolicy, PolicyAction } from "./types.js";
import type { ZoneWithPageShield } from "./types.js";
import type { Change, Operation } from "../../model/index.js";
import { createdFields, diffFields, toBool, zonePath } from "../shared/fields.js";
import { deleteItemChange, matchIdentities, type IdentityRule } from "../shared/identity-list.js";
import type { ResourceKind } from "../types.js";
import { clipJson } from "../../redact.js";

export interface LivePolicy extends DesiredPolicy {
  id: string;
}

/** The actions a content security rule takes (API reference "Create a Page Shield policy", 2026). */
export const POLICY_ACTIONS: readonly PolicyAction[] = ["log", "allow", "add_reporting_directives"];

const FIELD_SPECS = { expression: { text: true }, value: { text: true } };
const RESOURCE = "page_shield_policy";

export function normalizePolicy(input: unknown): LivePolicy {
  const fail = (field: string, value: unknown, expected: string) =>
    new AnswerShapeError(
      `the API answered a Page Shield policy with ${field} ${clipJson(value, 60) ?? "missing"}, expected ${expected}`,
    );
  if (input === null || typeof input !== "object" || Array.isArray(input)) throw fail("the value", input, "an object");
  const raw = input as Record<string, unknown>;
  if (typeof raw.id !== "string" || raw.id === "") throw fail("id", raw.id, "a policy id");
  for (const field of ["description", "expression", "value"] as const) {
    if (typeof raw[field] !== "string") throw fail(field, raw[field], "a string");
  }
  if (!(POLICY_ACTIONS as readonly unknown[]).includes(raw.action))
    throw fail("action", raw.action, POLICY_ACTIONS.join(", "));
  // Cloudflare's own example creates a policy with "enabled": "true"; a boolean is what reads show.
  const enabled = raw.enabled === undefined ? true : toBool(raw.enabled);
  if (enabled === undefined) throw fail("enabled", raw.enabled, "true or false");
  return {
    id: raw.id,
    description: raw.description as string,
    action: raw.action as PolicyAction,
    expression: raw.expression as string,
    value: raw.value as string,
    enabled,
  };
}

function policyBody(p: DesiredPolicy): DesiredPolicy {
  return { description: p.description, action: p.action, expression: p.expression, value: p.value, enabled: p.enabled };
}

function withoutId(p: LivePolicy): DesiredPolicy {
  const { id: _id, ...rest } = p;
  return rest;
}

function deleteChange(zoneId: string, live: LivePolicy, note?: string): Change {
  const path = zonePath(zoneId, "page_shield", "policies", live.id);
  return deleteItemChange({
    resource: RESOURCE,
    zoneId,
    identity: live.description,
    liveId: live.id,
    before: withoutId(live),
    path,
    note,
  });
}

const IDENTITY: IdentityRule<DesiredPolicy, LivePolicy> = {
  what: "Page Shield policy",
  whats: "Page Shield policies",
  idOf: (p) => p.id,
  pinOf: (p) => p.id,
  hint: { ofDesired: (p) => p.description, ofLive: (p) => p.description },
  describeDesired: (p) => `Page Shield policy ${JSON.stringify(p.description)}`,
  describeLive: (p) =>
    `id ${p.id} (description ${JSON.stringify(p.description)}, action ${p.action}${p.enabled ? "" : ", disabled"})`,
};

/** The POST of a new policy, and how apply tells it apart after a lost answer. */
function createPolicyOp(zoneId: string, body: DesiredPolicy, known: string[]): Operation {
  const path = zonePath(zoneId, "page_shield", "policies");
  return {
    method: "POST",
    path,
    body,
    finds: { path, match: { description: body.description }, known, equals: { ...body }, compare: { enabled: "bool" } },
  };
}

export const pageShieldPolicies: ResourceKind<LivePolicy[], ZoneWithPageShield> = {
  name: RESOURCE,
  order: 20,
  independentChanges: true,
  bodyFields: ["description", "action", "expression", "value", "enabled"],
  owns: (zone) => zone.page_shield?.policies !== undefined,

  async read(ctx, zone) {
    // The real answer has no result_info and the API documents no page parameters.
    const path = zonePath(zone.zone_id, "page_shield", "policies");
    const raw: unknown = await ctx.client.listAll<unknown>(path);
    if (!Array.isArray(raw))
      throw new AnswerShapeError(`the API answered GET ${path} with ${clipJson(raw, 60)}, expected a list of policies`);
    // By id, code unit by code unit.
    const live = raw.map(normalizePolicy).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    return { live, resources: Object.fromEntries(live.map((p) => [p.id, withoutId(p)])) };
  },

  diff(zone: ZoneWithPageShield, live) {
    const zoneId = zone.zone_id;
    const {
      matches,
      unmatched,
      live: distinct,
      errors,
      warnings,
    } = matchIdentities(zone.page_shield?.policies ?? [], live, IDENTITY);
    const known = distinct.map((p) => p.id);
    const changes: Change[] = [];
    for (const { want, live: keep } of matches) {
      const body = policyBody(want);
      if (!keep) {
        changes.push({
          kind: "create",
          resource: RESOURCE,
          zone_id: zoneId,
          identity: want.description,
          after: body,
          fields: createdFields({ ...body }),
          operations: [createPolicyOp(zoneId, body, known)],
        });
        continue;
      }
      const fields = diffFields({ ...body }, { ...keep }, FIELD_SPECS);
      if (fields.length > 0) {
        changes.push({
          kind: "update",
          resource: RESOURCE,
          zone_id: zoneId,
          identity: want.description,
          live_id: keep.id,
          before: withoutId(keep),
          after: body,
          fields,
          operations: [
            { method: "PUT", path: zonePath(zoneId, "page_shield", "policies", keep.id), body: { ...body } },
          ],
        });
      }
    }
    // prune: false never deletes what the file did not match, whatever the live list looks like.
    if (zone.page_shield?.prune ?? true) for (const p of unmatched) changes.push(deleteChange(zoneId, p));
    return { changes, errors, warnings };
  },
};
