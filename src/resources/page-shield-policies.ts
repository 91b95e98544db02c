// Page Shield CSP policies. Identity is the description: one list call reads them all; a desired
// policy missing live is created, a different one updated in place, live duplicates of a description
// beyond the first are deleted, and unlisted live policies are deleted unless `prune: false`.
import type { DesiredPolicy, DesiredZone } from "../model/desired.js";
import type { Change } from "../model/plan.js";
import { createdFields, diffFields, toBool, zonePath } from "./fields.js";
import { deleteItemChange, duplicateNote, matchByIdentity } from "./identity-list.js";
import type { ResourceKind } from "./types.js";

export interface LivePolicy extends DesiredPolicy {
  id: string;
}

const FIELD_SPECS = { expression: { text: true }, value: { text: true } };
const RESOURCE = "page_shield_policy";

function normalisePolicy(raw: Record<string, unknown>): LivePolicy {
  return {
    id: String(raw.id),
    description: String(raw.description ?? ""),
    action: raw.action as LivePolicy["action"],
    expression: String(raw.expression ?? ""),
    value: String(raw.value ?? ""),
    enabled: toBool(raw.enabled) ?? true,
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
  owns: (zone) => zone.page_shield?.policies !== undefined,

  async read(ctx, zone) {
    const raw = await ctx.client.listAll<Record<string, unknown>>(zonePath(zone.zone_id, "page_shield", "policies"));
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
          operations: [{ method: "POST", path: zonePath(zoneId, "page_shield", "policies"), body }],
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
