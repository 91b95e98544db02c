// The digest of a plan, as Atlantis shows one: a sha256 over the plan file but `created_at`, so that a plan edited
// after review cannot pass `apply --expect-digest`.
import { createHash } from "node:crypto";
import type { Plan } from "../model/index.js";
import { canonicalJson } from "../canonical-json.js";
import { toDocument } from "./document.js";

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

export interface SaltMaterial {
  format_version: number;
  account_id?: string;
  safety?: { max_deletes: number };
  units: { scope?: "account"; desired: unknown }[];
}

export function saltMaterial(filePlan: Plan): SaltMaterial {
  return {
    format_version: filePlan.format_version,
    ...(filePlan.account_id !== undefined ? { account_id: filePlan.account_id } : {}),
    ...(filePlan.safety !== undefined ? { safety: filePlan.safety } : {}),
    units: filePlan.zones.map((z) => ({ ...(z.scope === "account" ? { scope: z.scope } : {}), desired: z.desired })),
  };
}

export function derivedSalt(material: SaltMaterial): string {
  return createHash("sha256")
    .update(`zoneform plan salt ${material.format_version}\u0000`)
    .update(canonicalJson(material))
    .digest("hex")
    .slice(0, 32);
}
