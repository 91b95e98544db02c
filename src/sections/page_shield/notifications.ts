// An account's notification policies (`notifications:` of `accounts:` entries), planned in its unit.
// Spec: docs/configuration.md, `notifications`.
import type { Change, FieldDiff, Operation } from "../../model/index.js";
import { deleteItemChange, matchIdentities, type IdentityRule } from "../shared/identity-list.js";
import type { ResourceKind } from "../types.js";
import {
  foreignScope,
  isPageShieldAlert,
  policiesPath,
  readNotificationPolicies,
  type LiveNotification,
} from "./alerting.js";
import type { AccountWithNotifications, DesiredNotification } from "./types.js";

const RESOURCE = "page_shield_notification_policy";

export interface NotificationsLive {
  policies: LiveNotification[];
  zones: string[];
}

/** The alert types whose live policies prune may delete. */
export function ownedAlertTypes(desired: readonly DesiredNotification[]): (alertType: string) => boolean {
  const declared = new Set(desired.map((d) => d.alert_type));
  return (alertType) => isPageShieldAlert(alertType) || declared.has(alertType);
}

function mechanismsOf(email: readonly string[], webhooks: readonly string[]): Record<string, unknown> {
  return {
    ...(email.length > 0 ? { email: email.map((id) => ({ id })) } : {}),
    ...(webhooks.length > 0 ? { webhooks: webhooks.map((id) => ({ id })) } : {}),
  };
}

export function createBody(want: DesiredNotification): Record<string, unknown> {
  return {
    name: want.name,
    alert_type: want.alert_type,
    enabled: want.enabled,
    mechanisms: mechanismsOf(want.email, want.webhooks),
    ...(want.zones !== undefined ? { filters: { zones: [...want.zones] } } : {}),
  };
}

function record(v: unknown): Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

export function updateBody(want: DesiredNotification, live: LiveNotification): Record<string, unknown> {
  const { email: _e, webhooks: _w, ...otherMechanisms } = record(live.writable.mechanisms);
  const { zones: _z, ...otherFilters } = record(live.writable.filters);
  const filters = { ...otherFilters, ...(want.zones !== undefined ? { zones: [...want.zones] } : {}) };
  return {
    ...live.writable,
    name: want.name,
    alert_type: want.alert_type,
    enabled: want.enabled,
    mechanisms: { ...otherMechanisms, ...mechanismsOf(want.email, want.webhooks) },
    filters,
  };
}

const sameSet = (a: readonly string[] | undefined, b: readonly string[] | undefined) =>
  a === undefined || b === undefined ? a === b : new Set(a).size === new Set(b).size && a.every((x) => b.includes(x));

/** What differs between an entry and the live policy it is, field by field. */
function policyFieldDiffs(want: DesiredNotification, live: LiveNotification): FieldDiff[] {
  const out: FieldDiff[] = [];
  // Only a pinned entry can differ in name or alert type.
  if (want.name !== live.name) out.push({ field: "name", before: live.name, after: want.name });
  if (want.alert_type !== live.alert_type)
    out.push({ field: "alert_type", before: live.alert_type, after: want.alert_type });
  if (want.enabled !== live.enabled) out.push({ field: "enabled", before: live.enabled, after: want.enabled });
  if (!sameSet(want.email, live.email)) out.push({ field: "email", before: live.email, after: want.email });
  if (!sameSet(want.webhooks, live.webhooks))
    out.push({ field: "webhooks", before: live.webhooks, after: want.webhooks });
  if (!sameSet(want.zones, live.zones))
    out.push({ field: "zones", before: live.zones ?? "(every zone)", after: want.zones ?? "(every zone)" });
  return out;
}

/** What a live policy is in the plan's `before` and fingerprints: its fields, no id. */
function shown(live: LiveNotification): Record<string, unknown> {
  const { id: _id, ...rest } = live;
  return rest;
}

/** The POST of a new policy, and how apply tells it apart after a lost answer. */
function createPolicyOp(accountId: string, want: DesiredNotification, known: string[]): Operation {
  return {
    method: "POST",
    path: policiesPath(accountId),
    body: createBody(want),
    // No `equals`: every field sent must read back the same (the API adds id, created, modified).
    finds: { path: policiesPath(accountId), match: { name: want.name, alert_type: want.alert_type }, known },
  };
}

const identity = (p: { name: string; alert_type: string }) => `${p.name} (${p.alert_type})`;

function identityRule(ours: ReadonlySet<string>): IdentityRule<DesiredNotification, LiveNotification> {
  return {
    what: "notification policy",
    whats: "notification policies",
    idOf: (l) => l.id,
    pinOf: (d) => d.id,
    hint: {
      ofDesired: (d) => JSON.stringify([d.name, d.alert_type]),
      ofLive: (l) => JSON.stringify([l.name, l.alert_type]),
    },
    describeDesired: (d) => `notification policy ${JSON.stringify(d.name)} (${d.alert_type})`,
    describeLive: (l) => `id ${l.id} (name ${JSON.stringify(l.name)}, alert_type ${l.alert_type})`,
    claim: (want, candidate) =>
      policyFieldDiffs(want, candidate).length === 0 ? undefined : foreignScope(candidate, ours),
    unit: "account",
    otherwise: " to take it over, or rename the entry to create a new one",
  };
}

function createChange(accountId: string, want: DesiredNotification, known: string[]): Change {
  return {
    kind: "create",
    resource: RESOURCE,
    zone_id: accountId,
    identity: identity(want),
    after: createBody(want),
    fields: [
      { field: "name", after: want.name },
      { field: "alert_type", after: want.alert_type },
      { field: "enabled", after: want.enabled },
      { field: "email", after: want.email },
      { field: "webhooks", after: want.webhooks },
      { field: "zones", after: want.zones ?? "(every zone)" },
    ],
    operations: [createPolicyOp(accountId, want, known)],
  };
}

function updateChange(accountId: string, want: DesiredNotification, have: LiveNotification): Change | undefined {
  const fields = policyFieldDiffs(want, have);
  if (fields.length === 0) return undefined;
  return {
    kind: "update",
    resource: RESOURCE,
    zone_id: accountId,
    identity: identity(want),
    live_id: have.id,
    before: shown(have),
    after: createBody(want),
    fields,
    operations: [{ method: "PUT", path: policiesPath(accountId, have.id), body: updateBody(want, have) }],
  };
}

function pruned(
  accountId: string,
  unmatched: readonly LiveNotification[],
  owned: (alertType: string) => boolean,
  ours: ReadonlySet<string>,
): { changes: Change[]; warnings: string[] } {
  const changes: Change[] = [];
  const warnings: string[] = [];
  for (const p of unmatched.filter((l) => owned(l.alert_type))) {
    const why = foreignScope(p, ours);
    if (why !== undefined) {
      warnings.push(
        `notification policy id ${p.id} (name ${JSON.stringify(p.name)}, alert_type ${p.alert_type}) is kept, ` +
          `not pruned: ${why}, so it may be another team's. To manage it here, pin it: write \`id: ${p.id}\` ` +
          "under an entry of notifications:.",
      );
      continue;
    }
    const path = policiesPath(accountId, p.id);
    changes.push(
      deleteItemChange({
        resource: RESOURCE,
        zoneId: accountId,
        identity: identity(p),
        liveId: p.id,
        before: shown(p),
        path,
      }),
    );
  }
  return { changes, warnings };
}

export const notificationPolicies: ResourceKind<NotificationsLive, AccountWithNotifications> = {
  name: RESOURCE,
  // After every zone's kinds.
  order: 60,
  independentChanges: true,
  bodyFields: ["name", "alert_type", "enabled"],
  owns: (unit) => unit.scope === "account" && unit.notifications !== undefined,

  async read(ctx, unit) {
    const policies = await readNotificationPolicies(ctx.client, unit.zone_id);
    // Fingerprinted: the policies zoneform may touch (owned types, pinned ids); others may change freely.
    const owned = ownedAlertTypes(unit.notifications ?? []);
    const pins = new Set((unit.notifications ?? []).flatMap((d) => (d.id ? [d.id] : [])));
    const resources = Object.fromEntries(
      policies.filter((p) => owned(p.alert_type) || pins.has(p.id)).map((p) => [p.id, shown(p)]),
    );
    return { live: { policies, zones: ctx.desired.zones.map((z) => z.zone_id) }, resources };
  },

  diff(unit, live) {
    const desired = unit.notifications ?? [];
    const accountId = unit.zone_id;
    const ours = new Set(live.zones);
    const {
      matches,
      unmatched,
      live: distinct,
      errors,
      warnings,
    } = matchIdentities(desired, live.policies, identityRule(ours));
    const known = distinct.map((p) => p.id);
    const changes: Change[] = [];
    for (const { want, live: have } of matches) {
      const change = have ? updateChange(accountId, want, have) : createChange(accountId, want, known);
      if (change) changes.push(change);
    }
    // prune: false never deletes.
    if (unit.prune) {
      const prune = pruned(accountId, unmatched, ownedAlertTypes(desired), ours);
      changes.push(...prune.changes);
      warnings.push(...prune.warnings);
    }
    return { changes, errors, warnings };
  },
};
