// Page Shield CSP policies. Identity is the description: one list call reads them all; a desired
// policy missing live is created, a different one updated in place, live duplicates of a description
// beyond the first are deleted, and unlisted live policies are deleted unless `prune: false`.
import { AnswerShapeError } from "../../errors.js";
import type { DesiredPolicy, DesiredZone } from "../../model/desired.js";
import type { Change } from "../../model/plan.js";
import { createdFields, diffFields, toBool, zonePath } from "../shared/fields.js";
import { deleteItemChange, duplicateNote, matchByIdentity } from "../shared/identity-list.js";
import type { ResourceKind } from "../types.js";

export interface LivePolicy extends DesiredPolicy {
  id: string;
}

const FIELD_SPECS = { expression: { text: true }, value: { text: true } };
const RESOURCE = "page_shield_policy";

/**
 * A policy as the API answered it, checked: an id, a string description (the identity), an action
 * zoneform knows, string expression and value. Anything else fails the zone rather than being coerced
 * into a policy that plan would delete and re-create.
 */
export function normalisePolicy(input: unknown): LivePolicy {
  const fail = (field: string, value: unknown, expected: string) =>
    new AnswerShapeError(`the API answered a Page Shield policy with ${field} ${JSON.stringify(value)?.slice(0, 60) ?? "missing"}, expected ${expected}`);
  if (input === null || typeof input !== "object" || Array.isArray(input)) throw fail("the value", input, "an object");
  const raw = input as Record<string, unknown>;
  if (typeof raw.id !== "string" || raw.id === "") throw fail("id", raw.id, "a policy id");
  for (const field of ["description", "expression", "value"] as const) {
    if (typeof raw[field] !== "string") throw fail(field, raw[field], "a string");
  }
  if (raw.action !== "log" && raw.action !== "allow") throw fail("action", raw.action, "log or allow");
  // Cloudflare's own example creates a policy with "enabled": "true"; a boolean is what reads show.
  const enabled = raw.enabled === undefined ? true : toBool(raw.enabled);
  if (enabled === undefined) throw fail("enabled", raw.enabled, "true or false");
  return {
    id: raw.id,
    description: raw.description as string,
    action: raw.action,
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
  return deleteItemChange({ resource: RESOURCE, zoneId, identity: live.description, liveId: live.id, before: withoutId(live), path, note });
}

/** An exact match if there is one, so a duplicate that already matches the file is the one kept. */
function closest(want: DesiredPolicy, candidates: LivePolicy[]): LivePolicy {
  return candidates.find((m) => diffFields({ ...policyBody(want) }, { ...m }).length === 0) ?? candidates[0]!;
}

export const pageShieldPolicies: ResourceKind<LivePolicy[]> = {
  name: RESOURCE,
  order: 20,
  independentChanges: true,
  owns: (zone) => zone.page_shield?.policies !== undefined,

  async read(ctx, zone) {
    // The list is not paged: the real answer has no result_info, and the API documents no page parameters.
    const path = zonePath(zone.zone_id, "page_shield", "policies");
    const raw = await ctx.client.request<unknown>("GET", path);
    if (!Array.isArray(raw)) throw new AnswerShapeError(`the API answered GET ${path} with ${JSON.stringify(raw)?.slice(0, 60)}, expected a list of policies`);
    const live = raw.map(normalisePolicy).sort((a, b) => a.id.localeCompare(b.id));
    return { live, resources: Object.fromEntries(live.map((p) => [p.id, withoutId(p)])) };
  },

  diff(zone: DesiredZone, live) {
    const zoneId = zone.zone_id;
    const { matches, unlisted } = matchByIdentity(
      zone.page_shield?.policies ?? [],
      live,
      { ofDesired: (p) => p.description, ofLive: (p) => p.description },
      closest,
    );
    const changes: Change[] = [];
    const warnings: string[] = [];
    for (const { want, keep, duplicates } of matches) {
      const body = policyBody(want);
      if (!keep) {
        changes.push({
          kind: "create",
          resource: RESOURCE,
          zone_id: zoneId,
          identity: want.description,
          after: body,
          fields: createdFields({ ...body }),
          operations: [
            { method: "POST", path: zonePath(zoneId, "page_shield", "policies"), body, finds: { path: zonePath(zoneId, "page_shield", "policies"), match: { description: want.description } } },
          ],
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
          operations: [{ method: "PUT", path: zonePath(zoneId, "page_shield", "policies", keep.id), body }],
        });
      }
      for (const dup of duplicates) {
        const note = duplicateNote("policies", duplicates.length + 1, `described "${want.description}"`, keep.id);
        warnings.push(note);
        changes.push(deleteChange(zoneId, dup, note));
      }
    }
    if (zone.page_shield?.prune ?? true) for (const p of unlisted) changes.push(deleteChange(zoneId, p));
    return { changes, warnings };
  },
};
