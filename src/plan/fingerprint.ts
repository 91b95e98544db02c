// Fingerprints of live resources: a saved plan records one per resource it read, and apply refuses
// the plan when any of them changed, appeared or disappeared since.
import { hash } from "node:crypto";

/** JSON with object keys sorted, so equal values always hash the same (undefined members left out). */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) {
    let out = "[";
    for (let i = 0; i < value.length; i++) out += (i ? "," : "") + canonicalJson(value[i]);
    return `${out}]`;
  }
  const record = value as Record<string, unknown>;
  let out = "{";
  for (const key of Object.keys(record).sort()) {
    const v = record[key];
    if (v === undefined) continue;
    out += `${out.length > 1 ? "," : ""}${JSON.stringify(key)}:${canonicalJson(v)}`;
  }
  return `${out}}`;
}

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
