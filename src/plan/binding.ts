// The binding of a plan's `${env:…}` values (inputs.ts), started as soon as the desired state is known:
// its salt is derived from the desired state the plan will carry (digest.ts), so the one slow KDF runs on
// libuv's threads while the plan's reads are in flight, and the plan finds it done when it is written.
import type { DesiredState } from "../sections/index.js";
import { derivedSalt, saltMaterial } from "./digest.js";
import { prepareInputs } from "../secrets/index.js";
import { assemblePlan, declaredZone } from "./planner.js";
import { planUnits } from "./units.js";

/** The salt a plan of `desired` will have: from its units' declared desired state, as a plan file holds it. */
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

/**
 * Starts deriving the binding of `desired`'s values, without waiting: `preparePlanFile` then finds it
 * done (or in flight). A failure is not reported here: the plan derives the binding again and reports it.
 */
export function startBinding(desired: DesiredState): void {
  if (desired.secrets.names.length === 0) return;
  prepareInputs(desired.secrets, desiredSalt(desired)).catch(() => undefined);
}
