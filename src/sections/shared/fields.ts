// Small helpers shared by resource kinds: field-level comparison and path building.
// Spec: docs/architecture.md.
import equal from "fast-deep-equal";
import type { FieldDiff } from "../../model/index.js";

export interface FieldSpec {
  /** Long text shown as a word diff (CSP values, expressions). */
  text?: boolean;
  sensitive?: boolean;
}

export function diffFields(
  desired: Record<string, unknown>,
  live: Record<string, unknown>,
  specs: Record<string, FieldSpec> = {},
): FieldDiff[] {
  const out: FieldDiff[] = [];
  for (const [field, after] of Object.entries(desired)) {
    if (after === undefined) continue;
    const before = live[field];
    if (equal(before, after)) continue;
    const spec = specs[field] ?? {};
    out.push({
      field,
      before,
      after,
      ...(spec.text ? { text: true } : {}),
      ...(spec.sensitive ? { sensitive: true } : {}),
    });
  }
  return out;
}

export function createdFields(after: Record<string, unknown>, specs: Record<string, FieldSpec> = {}): FieldDiff[] {
  return Object.entries(after)
    .filter(([, v]) => v !== undefined)
    .map(([field, v]) => ({ field, after: v, ...(specs[field]?.sensitive ? { sensitive: true } : {}) }));
}

export function pick<T extends object, K extends keyof T>(obj: T, keys: readonly K[]): Partial<Pick<T, K>> {
  const out: Partial<Pick<T, K>> = {};
  for (const k of keys) if (obj[k] !== undefined) out[k] = obj[k];
  return out;
}

/** `true`/`false` as text (seen in some Page Shield answers) or a boolean → boolean. */
export function toBool(v: unknown): boolean | undefined {
  if (typeof v === "boolean") return v;
  if (v === "true") return true;
  if (v === "false") return false;
  return undefined;
}

export function zonePath(zoneId: string, ...rest: Array<string | number>): string {
  return ["zones", zoneId, ...rest.map(String)].join("/");
}
