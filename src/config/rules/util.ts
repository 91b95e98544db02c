// Small, defensive accessors for the semantic rules: rules also run on documents that failed the
// schema (so that every problem is reported at once), hence nothing here trusts a shape.
import { childPointer, type Finding } from "../problems.js";

export type Rec = Record<string, unknown>;

export interface RuleContext {
  /** The string as written (before `${env:…}` interpolation), if it held a reference. */
  template(pointer: string): string | undefined;
}

/** A semantic rule: looks at one file's (interpolated) document and reports what the schema cannot. */
export type Rule = (doc: unknown, ctx: RuleContext) => Finding[];

export function asRecord(v: unknown): Rec | undefined {
  return v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Rec) : undefined;
}

export function asArray(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

export function asString(v: unknown): string | undefined {
  return typeof v === "string" ? v : undefined;
}

/** Each zone mapping of the document with its pointer. */
export function* zonesOf(doc: unknown): Generator<{ zone: Rec; pointer: string }> {
  const zones = asArray(asRecord(doc)?.zones);
  for (let i = 0; i < zones.length; i++) {
    const zone = asRecord(zones[i]);
    if (zone) yield { zone, pointer: childPointer("/zones", i) };
  }
}

/** Each mapping of `list` with its pointer. */
export function* itemsOf(list: unknown, pointer: string): Generator<{ item: Rec; pointer: string; index: number }> {
  const items = asArray(list);
  for (let i = 0; i < items.length; i++) {
    const item = asRecord(items[i]);
    if (item) yield { item, pointer: childPointer(pointer, i), index: i };
  }
}

/**
 * Reports the second and later items whose identity repeats an earlier one.
 * `describe` names the identity in the message, e.g. "policy description".
 */
export function duplicates(
  list: unknown,
  pointer: string,
  field: string,
  describe: string,
  normalise: (s: string) => string = (s) => s,
): Finding[] {
  const first = new Map<string, number>();
  const findings: Finding[] = [];
  for (const { item, pointer: itemPointer, index } of itemsOf(list, pointer)) {
    const value = asString(item[field]);
    if (value === undefined) continue;
    const id = normalise(value);
    const earlier = first.get(id);
    if (earlier === undefined) first.set(id, index);
    else {
      findings.push({
        pointer: childPointer(itemPointer, field),
        message: `duplicate ${describe} '${value}' (also item ${earlier} of this list): it is the identity, so it must be unique in the zone`,
      });
    }
  }
  return findings;
}
