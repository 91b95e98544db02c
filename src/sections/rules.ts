// The semantic rules' contract.
// Spec: docs/architecture.md, Sections.

import { childPointer } from "../json-pointer.js";
import { hasEnvReference } from "../template.js";

/** A problem a rule found, at a JSON pointer of the document. */
export interface Finding {
  pointer: string;
  message: string;
  severity?: "error" | "warning";
  /** Locate the key of the pointer's property (unknown keys) rather than its value. */
  at?: "key" | "value";
}

/** JSON pointer of a child: `/zones` + 0 → `/zones/0` (RFC 6901 escaping). */
export { childPointer };

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

/** Values that name what zoneform reads or addresses before any review. */
export function literalOnly(pick: (doc: unknown) => Iterable<{ pointer: string; what: string }>): Rule {
  return (doc, ctx) => {
    const findings: Finding[] = [];
    for (const { pointer, what } of pick(doc)) {
      const written = ctx.template(pointer);
      if (written === undefined || !hasEnvReference(written)) continue;
      findings.push({
        pointer,
        message:
          `${what} takes no \${env:…}: zoneform reads or addresses it before any review, so write it as it ` +
          "is (an environment value goes only into the writes it is written for, at apply)",
      });
    }
    return findings;
  };
}

export function* zonesOf(doc: unknown): Generator<{ zone: Rec; pointer: string }> {
  const zones = asArray(asRecord(doc)?.zones);
  for (let i = 0; i < zones.length; i++) {
    const zone = asRecord(zones[i]);
    if (zone) yield { zone, pointer: childPointer("/zones", i) };
  }
}

export function* accountsOf(doc: unknown): Generator<{ account: Rec; pointer: string }> {
  const accounts = asArray(asRecord(doc)?.accounts);
  for (let i = 0; i < accounts.length; i++) {
    const account = asRecord(accounts[i]);
    if (account) yield { account, pointer: childPointer("/accounts", i) };
  }
}

export function* itemsOf(list: unknown, pointer: string): Generator<{ item: Rec; pointer: string; index: number }> {
  const items = asArray(list);
  for (let i = 0; i < items.length; i++) {
    const item = asRecord(items[i]);
    if (item) yield { item, pointer: childPointer(pointer, i), index: i };
  }
}

/** Reports the second and later items whose identity repeats an earlier one. */
export function duplicates(
  list: unknown,
  pointer: string,
  field: string,
  describe: string,
  normalize: (s: string) => string = (s) => s,
): Finding[] {
  const first = new Map<string, number>();
  const findings: Finding[] = [];
  for (const { item, pointer: itemPointer, index } of itemsOf(list, pointer)) {
    const value = asString(item[field]);
    if (value === undefined) continue;
    const id = normalize(value);
    const earlier = first.get(id);
    if (earlier === undefined) first.set(id, index);
    else {
      findings.push({
        pointer: childPointer(itemPointer, field),
        message:
          `duplicate ${describe} '${value}' (also item ${earlier} of this list): it is the identity, ` +
          `so it must be unique in the zone`,
      });
    }
  }
  return findings;
}

export function duplicateEntries(
  list: unknown,
  pointer: string,
  field: string,
  hintOf: (item: Rec) => { key: string; shown: string } | undefined,
  what: { one: string; many: string },
): Finding[] {
  const pins = new Map<string, number>();
  const hints = new Map<string, number>();
  const findings: Finding[] = [];
  for (const { item, pointer: itemPointer, index } of itemsOf(list, pointer)) {
    const pin = typeof item.id === "string" || typeof item.id === "number" ? String(item.id) : undefined;
    if (pin !== undefined) {
      const earlier = pins.get(pin);
      if (earlier === undefined) pins.set(pin, index);
      else
        findings.push({
          pointer: childPointer(itemPointer, "id"),
          message:
            `id ${pin} is pinned twice (also item ${earlier} of this list): each live ${what.one} ` +
            `may be named once`,
        });
      continue;
    }
    const hint = hintOf(item);
    if (!hint) continue;
    const earlier = hints.get(hint.key);
    if (earlier === undefined) hints.set(hint.key, index);
    else {
      findings.push({
        pointer: childPointer(itemPointer, field),
        message:
          `${what.one} ${hint.shown} is declared twice (also item ${earlier} of this list) with no ` +
          `id: to declare two live ${what.many} that share it, give each its own \`id:\``,
      });
    }
  }
  return findings;
}

export function pruneNeedsList(container: string, list: string, what: string): Rule {
  return (doc) => {
    const findings: Finding[] = [];
    for (const { zone, pointer } of zonesOf(doc)) {
      const holder = asRecord(zone[container]);
      if (holder && "prune" in holder && !(list in holder)) {
        findings.push({
          pointer: `${pointer}/${container}/prune`,
          severity: "warning",
          message: `prune has no effect without '${list}': ${what} are not managed in this zone`,
        });
      }
    }
    return findings;
  };
}
