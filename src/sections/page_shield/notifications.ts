// Notification policies of an account (`notifications:` of an entry of `accounts:`), planned in the
// account's unit. A live policy is its id; its name and alert type only hint at it (names repeat): an
// entry is matched by the id it pins, else by name and alert type (a policy of another alert type is
// another alert), and an ambiguous entry stops the account with the candidates (shared/identity-list.ts).
// A missing policy is created with what the file says; a different one is updated with a PUT of the whole
// policy: the managed fields as the file says them (name, alert_type, enabled, mechanisms.email and
// .webhooks, filters.zones) and every other writable field as live (description, alert_interval,
// mechanisms.pagerduty, other filters), so that the PUT means the same whether the API merges or replaces.
// Which live policies zoneform owns, so that `prune` deletes those the entry does not list: the Page Shield
// alerts (`scriptmonitor_*`) and the alert types the entry declares; never another (billing, DDoS, …
// alerting set up by others). `prune: false` deletes nothing.
import type { Change, FieldDiff, Operation } from "../../model/index.js";
import { deleteItemChange, matchIdentities, type IdentityRule } from "../shared/identity-list.js";
import type { ResourceKind } from "../types.js";
import { isPageShieldAlert, policiesPath, readNotificationPolicies, type LiveNotification } from "./alerting.js";
import type { AccountWithNotifications, DesiredNotification } from "./types.js";

const RESOURCE = "page_shield_notification_policy";

/** The alert types whose live policies prune may delete: every Page Shield alert and the ones declared. */
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

/** The POST body of a new policy: only what the file says (mechanisms are required, `{}` for none). */
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

/**
 * The PUT body: the whole policy. The writable fields as live, with the managed ones as the file says
 * them: mechanisms with email and webhooks replaced (pagerduty and any other kept), filters with zones
 * replaced or removed (the others kept).
 */
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
  // Only a pinned entry can differ in name or alert type: an unpinned one matches by them.
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

/** The POST of a new policy, and how apply tells it apart after a lost answer (op.finds). */
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

const IDENTITY: IdentityRule<DesiredNotification, LiveNotification> = {
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
};

export const notificationPolicies: ResourceKind<LiveNotification[], AccountWithNotifications> = {
  name: RESOURCE,
  // After every zone's kinds: a zone filter may name a zone only once it exists (zones are not created).
  order: 60,
  independentChanges: true,
  bodyFields: ["name", "alert_type", "enabled"],
  owns: (unit) => unit.scope === "account" && unit.notifications !== undefined,

  async read(ctx, unit) {
    const live = await readNotificationPolicies(ctx.client, unit.zone_id);
    // Fingerprinted: the policies zoneform may touch (owned types, pinned ids); others may change freely.
    const owned = ownedAlertTypes(unit.notifications ?? []);
    const pins = new Set((unit.notifications ?? []).flatMap((d) => (d.id ? [d.id] : [])));
    const resources = Object.fromEntries(
      live.filter((p) => owned(p.alert_type) || pins.has(p.id)).map((p) => [p.id, shown(p)]),
    );
    return { live, resources };
  },

  diff(unit, live) {
    const desired = unit.notifications ?? [];
    const accountId = unit.zone_id;
    const owned = ownedAlertTypes(desired);
    const { matches, unmatched, live: distinct, errors, warnings } = matchIdentities(desired, live, IDENTITY);
    const known = distinct.map((p) => p.id);
    const changes: Change[] = [];
    for (const { want, live: have } of matches) {
      if (!have) {
        const body = createBody(want);
        changes.push({
          kind: "create",
          resource: RESOURCE,
          zone_id: accountId,
          identity: identity(want),
          after: body,
          fields: [
            { field: "name", after: want.name },
            { field: "alert_type", after: want.alert_type },
            { field: "enabled", after: want.enabled },
            { field: "email", after: want.email },
            { field: "webhooks", after: want.webhooks },
            { field: "zones", after: want.zones ?? "(every zone)" },
          ],
          operations: [createPolicyOp(accountId, want, known)],
        });
        continue;
      }
      const fields = policyFieldDiffs(want, have);
      if (fields.length === 0) continue;
      changes.push({
        kind: "update",
        resource: RESOURCE,
        zone_id: accountId,
        identity: identity(want),
        live_id: have.id,
        before: shown(have),
        after: createBody(want),
        fields,
        operations: [{ method: "PUT", path: policiesPath(accountId, have.id), body: updateBody(want, have) }],
      });
    }
    // prune: false never deletes; prune deletes only policies of the alert types zoneform owns here.
    if (unit.prune) {
      for (const p of unmatched.filter((l) => owned(l.alert_type))) {
        changes.push(
          deleteItemChange({
            resource: RESOURCE,
            zoneId: accountId,
            identity: identity(p),
            liveId: p.id,
            before: shown(p),
            path: policiesPath(accountId, p.id),
          }),
        );
      }
    }
    return { changes, errors, warnings };
  },
};
