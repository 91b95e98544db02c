// Fingerprints of live resources: a saved plan records one per resource it read, and apply refuses
// the plan when any of them changed, appeared or disappeared since.
import { createHash } from "node:crypto";

/** JSON with object keys sorted, so equal values always hash the same. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

export function fingerprint(value: unknown): string {
  return createHash("sha256").update(canonicalJson(value)).digest("hex").slice(0, 16);
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
