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
import { toDocument } from "./document.js";

/** What the digest covers: the whole plan as its file holds it, but when it was made and the digest itself. */
function digestMaterial(plan: Plan): unknown {
  const { digest: _digest, created_at: _created, ...covered } = toDocument(plan);
  return covered;
}

/** `sha256:<64 hex>` of a plan in its file form. */
export function planDigest(filePlan: Plan): string {
  return `sha256:${createHash("sha256")
    .update(canonicalJson(digestMaterial(filePlan)))
    .digest("hex")}`;
}

/** What a plan's salt is derived from: the desired state it carries (what the plan was made from). */
export interface SaltMaterial {
  format_version: number;
  account_id?: string;
  safety?: { max_deletes: number };
  units: { scope?: "account"; desired: unknown }[];
}

/** A saved plan's salt material: its desired state, unit by unit, as the file holds it. */
export function saltMaterial(filePlan: Plan): SaltMaterial {
  return {
    format_version: filePlan.format_version,
    ...(filePlan.account_id !== undefined ? { account_id: filePlan.account_id } : {}),
    ...(filePlan.safety !== undefined ? { safety: filePlan.safety } : {}),
    units: filePlan.zones.map((z) => ({ ...(z.scope === "account" ? { scope: z.scope } : {}), desired: z.desired })),
  };
}

/**
 * The salt of a plan's bound values (inputs.ts), derived from the desired state the plan carries
 * (references, never values), which is known before any read: the binding is derived while the plan's
 * reads are in flight (secrets.ts, startBinding). The same file always gets the same salt, two
 * different desired states never share one, and a saved plan's salt is checked against its content.
 */
export function derivedSalt(material: SaltMaterial): string {
  return createHash("sha256")
    .update(`zoneform plan salt ${material.format_version}\u0000`)
    .update(canonicalJson(material))
    .digest("hex")
    .slice(0, 32);
}
