// The digest of a plan, as Atlantis shows one: a sha256 over what decides the writes (the desired
// state it was made from and every zone's operations), in the form a plan file holds them (secrets as
// `${env:NAME}`, with the salted hashes of their values when there are any). `plan` prints it, `apply`
// prints the one it applies, and `apply --expect-digest` refuses any other, so a plan edited after
// review cannot pass unnoticed.
import { createHash } from "node:crypto";
import type { Plan } from "../model/plan.js";
import { canonicalJson } from "./fingerprint.js";

/** What the digest covers: the desired state and the calls, nothing that only describes them. */
export function digestMaterial(plan: Plan): unknown {
  return {
    format_version: plan.format_version,
    account_id: plan.account_id ?? null,
    safety: plan.safety ?? null,
    // Only when there is one, so that a plan without references keeps the digest it always had.
    ...(plan.inputs !== undefined ? { inputs: plan.inputs } : {}),
    zones: plan.zones.map((z) => ({
      zone_id: z.zone_id,
      desired: z.desired ?? null,
      changes: z.changes.map((c) => ({
        kind: c.kind,
        resource: c.resource,
        identity: c.identity,
        live_id: c.live_id ?? null,
        operations: c.operations,
      })),
    })),
  };
}

/** `sha256:<64 hex>` of a plan in its file form. */
export function planDigest(filePlan: Plan): string {
  return `sha256:${createHash("sha256")
    .update(canonicalJson(digestMaterial(filePlan)))
    .digest("hex")}`;
}
