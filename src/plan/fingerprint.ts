// Fingerprints of live resources.
import { hash } from "node:crypto";
import { canonicalJson } from "../canonical-json.js";

export function fingerprint(value: unknown): string {
  return hash("sha256", canonicalJson(value), "hex").slice(0, 16);
}

/** Keys (`kind/identity`) whose fingerprint differs between two readings, with how. */
export function compareFingerprints(
  saved: Record<string, string>,
  current: Record<string, string>,
): Array<{ key: string; how: "changed" | "added" | "removed" }> {
  const out: Array<{ key: string; how: "changed" | "added" | "removed" }> = [];
  for (const [key, hash] of Object.entries(saved)) {
    if (!(key in current)) out.push({ key, how: "removed" });
    else if (current[key] !== hash) out.push({ key, how: "changed" });
  }
  for (const key of Object.keys(current)) if (!(key in saved)) out.push({ key, how: "added" });
  return out;
}
