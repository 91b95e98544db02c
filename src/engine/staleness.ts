// A saved plan is applied only if the zones are still as they were when it was made: every live
// resource is read again and its fingerprint compared with the one the plan recorded.
import pLimit from "p-limit";
import type { CloudflareClient } from "../cloudflare/types.js";
import { StalePlanError } from "../errors.js";
import type { DesiredState, DesiredZone } from "../model/desired.js";
import type { Plan } from "../model/plan.js";
import { compareFingerprints } from "../plan/fingerprint.js";
import { RESOURCE_KINDS } from "../resources/index.js";
import { createReadContext, readZone } from "./reconcile.js";

/** Rebuilds the desired state a saved plan was made from (its secrets already put back). */
export function desiredFromPlan(plan: Plan, secrets: DesiredState["secrets"]): DesiredState {
  return {
    version: 1,
    ...(plan.account_id ? { account_id: plan.account_id } : {}),
    safety: plan.safety ?? { max_deletes: 5 },
    zones: plan.zones.map((z) => (z.desired ?? { zone_id: z.zone_id }) as DesiredZone),
    secrets,
    files: [],
  };
}

export async function assertPlanFresh(plan: Plan, desired: DesiredState, client: CloudflareClient, parallelism = 8): Promise<void> {
  const ctx = createReadContext(client, desired);
  const limit = pLimit(parallelism);
  const stale: string[] = [];
  await Promise.all(
    plan.zones.map((zp, i) =>
      limit(async () => {
        const zone = desired.zones[i]!;
        const reading = await readZone(ctx, zone, RESOURCE_KINDS);
        if (reading.errors.length > 0) {
          stale.push(...reading.errors.map((e) => `${zp.name ?? zp.zone_id}: ${e}`));
          return;
        }
        for (const d of compareFingerprints(zp.fingerprints, reading.fingerprints)) {
          stale.push(`${zp.name ?? zp.zone_id}: ${d.key} ${d.how} since the plan was made`);
        }
      }),
    ),
  );
  if (stale.length > 0) {
    throw new StalePlanError(
      `the saved plan is stale; nothing was written:\n${stale.map((s) => `  ${s}`).join("\n")}\nMake a new plan and review it.`,
      stale,
    );
  }
}
