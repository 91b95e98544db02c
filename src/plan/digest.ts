// The digest of a plan, as Atlantis shows one: a sha256 over everything the plan file holds (the
// desired state, every zone's operations, and all that `show`, `plan` and renderPlan display: names,
// changes, fields, summaries, notes, before and after, errors and warnings, the counts, the live
// fingerprints, the bound `${env:…}` values), in the form a plan file holds it (secrets as
// `${env:NAME}`). Left out: `created_at` (when it was made, so that the same file, zones and values give
// the same digest on every run) and the digest itself. `plan` prints it, `apply` prints the one it
// applies, and `apply --expect-digest` refuses any other, so a plan edited after review cannot pass.
import { createHash } from "node:crypto";
import type { Plan } from "../model/index.js";
import { canonicalJson } from "../canonical-json.js";

/** What the digest covers: the whole plan but when it was made and the digest itself. */
function digestMaterial(plan: Plan): unknown {
  const { digest: _digest, created_at: _created, ...covered } = plan;
  return covered;
}

/** `sha256:<64 hex>` of a plan in its file form. */
export function planDigest(filePlan: Plan): string {
  return `sha256:${createHash("sha256")
    .update(canonicalJson(digestMaterial(filePlan)))
    .digest("hex")}`;
}

/**
 * The salt of a plan's bound values (inputs.ts), derived from what the plan covers that is no secret:
 * its file form without the bound values (references, never values; zone ids, operations, fingerprints).
 * The same plan always gets the same salt, two different plans never share one, and a saved plan's
 * salt is checked against its content.
 */
export function derivedSalt(filePlan: Plan): string {
  const { inputs: _inputs, ...rest } = digestMaterial(filePlan) as Plan;
  return createHash("sha256")
    .update(`zoneform plan salt ${filePlan.format_version}\u0000`)
    .update(canonicalJson(rest))
    .digest("hex")
    .slice(0, 32);
}
