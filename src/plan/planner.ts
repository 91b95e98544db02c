// The planner: a pure function from the desired state and what was read of the live zones to the ordered plan.
import { PLAN_FORMAT_VERSION, type AuditChecks, type Change, type Plan, type ZonePlan } from "../model/index.js";
import { type ResourceKind, type DesiredState, type DesiredZone, RESOURCE_KINDS, SECTIONS } from "../sections/index.js";
import { orderChanges } from "./order.js";
import { summariseZones } from "./summary.js";
import { accountDocument, planUnits, unitKey } from "./units.js";

export interface ZoneLive {
  zone_id: string;
  /** An account's unit (`zone_id` is then the account's id). */
  scope?: "account";
  /** Kind name → what its `read` returned (`live`). */
  kinds: Record<string, unknown>;
  /** `kind/identity` → fingerprint of each live resource read. */
  fingerprints: Record<string, string>;
  /** Reads that failed, in words: the zone cannot be planned. */
  errors: string[];
}

/** What was read of every zone of a desired state, and when. */
export interface LiveState {
  read_at: string;
  zones: ZoneLive[];
}

export function unexpectedAnswer(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return `the API's answer is not in the shape zoneform expects (${message}); nothing was changed`;
}

export function declaredZone(zone: DesiredZone): unknown {
  if (zone.declared) return zone.declared;
  if (zone.scope === "account") {
    const { zone_id: _id, scope: _scope, ...account } = zone as DesiredZone & { account_id: string; prune: boolean };
    return accountDocument(account);
  }
  const { source: _source, declared: _declared, ...rest } = zone;
  return rest;
}

function auditChecksOf(zone: DesiredZone, base?: DesiredState): AuditChecks | undefined {
  const linesOf = (z: DesiredZone | undefined) =>
    z ? SECTIONS.flatMap((s) => (s.owns(z) ? (s.auditChecks?.(z) ?? []) : [])) : [];
  const lines = linesOf(zone);
  const was = base && linesOf(base.zones.find((z) => z.zone_id === zone.zone_id));
  if (lines.length === 0 && (was === undefined || was.length === 0)) return undefined;
  return { lines, ...(was !== undefined ? { base: was } : {}) };
}

/** Plans one zone from what was read of it. */
export function planZone(
  desired: DesiredState,
  zone: DesiredZone,
  live: ZoneLive,
  kinds: readonly ResourceKind[] = RESOURCE_KINDS,
  base?: DesiredState,
): ZonePlan {
  const changes: Change[] = [];
  const errors = [...live.errors];
  const warnings: string[] = [];
  for (const kind of kinds.filter((k) => k.owns(zone))) {
    if (!(kind.name in live.kinds)) continue;
    let result: ReturnType<typeof kind.diff>;
    try {
      // Compared in template syntax: the diff sees references on both sides, never a value.
      result = kind.diff(zone, desired.secrets.templatize(live.kinds[kind.name], zone));
    } catch (err) {
      errors.push(`comparing ${kind.name}: ${unexpectedAnswer(err)}`);
      continue;
    }
    changes.push(...result.changes);
    errors.push(...(result.errors ?? []));
    warnings.push(...(result.warnings ?? []));
  }
  const order = new Map(kinds.map((k) => [k.name, k.order]));
  const audit = zone.scope === "account" ? undefined : auditChecksOf(zone, base);
  return {
    zone_id: zone.zone_id,
    ...(zone.name ? { name: zone.name } : {}),
    ...(zone.scope === "account" ? { scope: "account" as const } : {}),
    changes: orderChanges(changes, (r) => order.get(r) ?? 0),
    fingerprints: live.fingerprints,
    errors,
    warnings,
    desired: declaredZone(zone),
    ...(audit ? { audit } : {}),
  };
}

/** The plan as a whole, from zone plans (in the desired state's order). */
export function assemblePlan(desired: DesiredState, zones: ZonePlan[], createdAt: string): Plan {
  return {
    format_version: PLAN_FORMAT_VERSION,
    created_at: createdAt,
    ...(desired.account_id ? { account_id: desired.account_id } : {}),
    safety: { max_deletes: desired.safety.max_deletes },
    zones,
    summary: summariseZones(zones),
  };
}

export function plan(
  desired: DesiredState,
  live: LiveState,
  kinds: readonly ResourceKind[] = RESOURCE_KINDS,
  base?: DesiredState,
): Plan {
  const byUnit = new Map(live.zones.map((z) => [unitKey(z), z]));
  const zones = planUnits(desired, kinds).map(({ unit, kinds: unitKinds }) =>
    planZone(
      desired,
      unit as DesiredZone,
      byUnit.get(unitKey(unit)) ?? {
        zone_id: unit.zone_id,
        ...(unit.scope ? { scope: unit.scope } : {}),
        kinds: {},
        fingerprints: {},
        errors: [`the ${unit.scope ?? "zone"} was not read`],
      },
      unitKinds,
      base,
    ),
  );
  return assemblePlan(desired, zones, live.read_at);
}
