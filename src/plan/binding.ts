// The binding of a plan's `${env:…}` values, started as soon as the desired state is known, so that the one slow
// KDF runs on libuv's threads while the plan's reads are in flight.
import type { DesiredState } from "../sections/index.js";
import { derivedSalt, saltMaterial } from "./digest.js";
import { prepareInputs } from "../secrets/index.js";
import { assemblePlan, declaredZone } from "./planner.js";
import { planUnits } from "./units.js";

export function desiredSalt(desired: DesiredState): string {
  const units = planUnits(desired).map(({ unit }) => ({
    zone_id: unit.zone_id,
    ...(unit.scope === "account" ? { scope: "account" as const } : {}),
    changes: [],
    fingerprints: {},
    errors: [],
    warnings: [],
    desired: declaredZone(unit),
  }));
  return derivedSalt(saltMaterial(assemblePlan(desired, units, "")));
}

export function startBinding(desired: DesiredState): void {
  if (desired.secrets.names.length === 0) return;
  prepareInputs(desired.secrets, desiredSalt(desired)).catch(() => undefined);
}
