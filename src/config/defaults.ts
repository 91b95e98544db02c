// `defaults:` at the top level of a file: a zone-shaped mapping merged into every zone of that file
// before anything is checked, so that interpolation, the schema, the rules and the planner see each
// zone as if it were written out in full. A zone's own value wins; mappings merge key by key, at every
// depth; a list (or any other value) is taken whole, never joined with the default's. `null` in a zone
// where defaults has a value takes that value out (the key is then absent from the zone).
//
// The file keeps its `defaults:` (checked on its own: the schema's `defaults` definition, the same
// interpolation and credential rules), and every value copied into a zone remembers where it was
// written: `origin` maps a pointer of the merged document back to the pointer of the file holding it,
// so that a message about a copied value points at its line in `defaults:`.
import { setOwn } from "../data-record.js";
import { asArray, asRecord, childPointer, type Finding, type Rec, SECTIONS } from "../sections/index.js";
import { PIN_KEY, type ZONE_IDENTITY_KEYS } from "../zone-keys.js";

export const DEFAULTS_KEY = "defaults";

/** Why a zone's identity is never a default. */
const IDENTITY: Readonly<Record<(typeof ZONE_IDENTITY_KEYS)[number], string>> = {
  zone_id: "a zone's identity is never a default: each zone names its own zone_id",
  name: "a zone's name is never a default: each zone names its own (or none)",
};

/** The keys `defaults:` refuses as identity, each with why (account_id: the file's own key says it for all). */
export const IDENTITY_KEYS: Readonly<Record<string, string>> = {
  ...IDENTITY,
  account_id:
    "a zone's account is not a default: write account_id once at the top level of the file (the account of " +
    "every zone that names none)",
};

/**
 * The most values merging may copy into a file's zones (the values of `defaults:` times its zones): a
 * bound on memory, as MAX_ALIAS_COUNT is for aliases. A few thousand zones sharing a few hundred values
 * stay well below it.
 */
export const MAX_MERGED_VALUES = 2_000_000;

/** Paths (segments under a zone) of sections that can only be written in a zone, each with why. */
export function zoneOnlyPaths(): ReadonlyMap<string, string> {
  return new Map(SECTIONS.filter((s) => s.zoneOnly).map((s) => [s.path, s.zoneOnly!]));
}

/** The keys of a zone that `defaults:` may hold: the sections' first keys, but zone-only sections. */
function defaultableKeys(refused: ReadonlyMap<string, string>): Set<string> {
  return new Set(SECTIONS.map((s) => s.path.split(".")[0]!).filter((k) => !refused.has(k)));
}

/** A file's document with its defaults merged into its zones, and where each value was written. */
export interface Expanded {
  value: unknown;
  /** The pointer in the file of the value at `pointer` in `value` (the same pointer but for copies). */
  origin(pointer: string): string;
  /** Problems of `defaults:` that only merging sees (pins, too many values). */
  findings: Finding[];
}

const ABSENT: unique symbol = Symbol("absent");

/**
 * A default and a zone's value → the zone's value with the default merged in (ABSENT: no value).
 * `copied` is told the path (under the zone) of every value taken from the default whole.
 */
function merge(base: unknown, own: unknown, path: Array<string>, copied?: (path: readonly string[]) => void): unknown {
  if (own === undefined) {
    if (base === undefined || base === null) return ABSENT;
    copied?.(path);
    return structuredClone(base);
  }
  // `null` takes the default out; where there is none it stays, for the schema to refuse.
  if (own === null) return base === undefined ? null : ABSENT;
  const b = asRecord(base);
  const o = asRecord(own);
  if (!b || !o) return own;
  const out: Rec = {};
  const put = (key: string, value: unknown) => {
    if (value !== ABSENT) setOwn(out, key, value);
  };
  for (const key of Object.keys(o)) {
    path.push(key);
    put(key, merge(Object.hasOwn(b, key) ? b[key] : undefined, o[key], path, copied));
    path.pop();
  }
  for (const key of Object.keys(b)) {
    if (Object.hasOwn(o, key)) continue;
    path.push(key);
    put(key, merge(b[key], undefined, path, copied));
    path.pop();
  }
  return out;
}

/**
 * The zone as if written out in full: `defaults` merged into `zone` (pure; neither is changed). The
 * zone's own values win, mappings merge key by key, lists and other values are replaced whole, and a
 * `null` in the zone takes the default at that key out. undefined when nothing is left.
 */
export function mergeDefaults(defaults: unknown, zone: unknown): unknown {
  const merged = merge(defaults, zone, []);
  return merged === ABSENT ? undefined : merged;
}

/** `defaults` without what a zone never takes from it: identity keys, zone-only sections, unknown keys. */
function usableDefaults(defaults: Rec): Rec {
  const refused = zoneOnlyPaths();
  const keys = defaultableKeys(refused);
  const prune = (value: unknown, path: string): unknown => {
    const rec = asRecord(value);
    if (!rec) return value;
    const out: Rec = {};
    for (const [k, v] of Object.entries(rec)) {
      const p = path ? `${path}.${k}` : k;
      if ((path === "" && !keys.has(k)) || refused.has(p)) continue;
      setOwn(out, k, [...refused.keys()].some((r) => r.startsWith(`${p}.`)) ? prune(v, p) : v);
    }
    return out;
  };
  return prune(defaults, "") as Rec;
}

/** How many values (scalars, lists, mappings) `value` holds, itself included. */
function countValues(value: unknown): number {
  if (Array.isArray(value)) return value.reduce((n: number, v) => n + countValues(v), 1);
  const rec = asRecord(value);
  return rec ? Object.values(rec).reduce((n: number, v) => n + countValues(v), 1) : 1;
}

/** Every `id:` pin under a list of `value`: an id names a live object of one zone. */
function pinsIn(value: unknown, pointer: string, inList: boolean, out: Finding[]): void {
  if (Array.isArray(value)) {
    value.forEach((v, i) => {
      pinsIn(v, childPointer(pointer, i), true, out);
    });
    return;
  }
  const rec = asRecord(value);
  if (!rec) return;
  for (const [k, v] of Object.entries(rec)) {
    const child = childPointer(pointer, k);
    if (inList && k === PIN_KEY) {
      out.push({
        pointer: child,
        at: "key",
        message:
          "an id pins a live object of one zone, and defaults are copied into every zone: pin it in the " +
          "zone's own entry (write this list in that zone), or leave the id out",
      });
    } else pinsIn(v, child, inList, out);
  }
}

/** The document with `defaults:` merged into each zone (the document itself when it has none). */
export function applyDefaults(doc: unknown): Expanded {
  const root = asRecord(doc);
  const defaults = asRecord(root?.[DEFAULTS_KEY]);
  const zones = root?.zones;
  const none: Expanded = { value: doc, origin: (p) => p, findings: [] };
  if (!root || !Object.hasOwn(root, DEFAULTS_KEY) || !defaults) return none;
  const defaultsPointer = childPointer("", DEFAULTS_KEY);
  const findings: Finding[] = [];
  pinsIn(defaults, defaultsPointer, false, findings);
  if (!Array.isArray(zones)) return { ...none, findings };
  const usable = usableDefaults(defaults);
  const copies = countValues(usable) * zones.length;
  if (copies > MAX_MERGED_VALUES) {
    findings.push({
      pointer: defaultsPointer,
      message:
        `defaults would copy ${copies} values into ${zones.length} zones (more than ${MAX_MERGED_VALUES}): ` +
        "keep fewer values in defaults, or split the zones over several files (-c DIR)",
    });
    return { ...none, findings };
  }

  // Merged pointer of a value copied whole → the pointer it was written at in defaults.
  const origins = new Map<string, string>();
  const merged = asArray(zones).map((zone, i) => {
    if (!asRecord(zone)) return zone;
    const zonePointer = childPointer("/zones", i);
    return merge(usable, zone, [], (path) => {
      let to = zonePointer;
      let from = defaultsPointer;
      for (const key of path) {
        to = childPointer(to, key);
        from = childPointer(from, key);
      }
      origins.set(to, from);
    });
  });
  const value: Rec = {};
  for (const [k, v] of Object.entries(root)) setOwn(value, k, k === "zones" ? merged : v);
  const origin = (pointer: string): string => {
    if (origins.size === 0) return pointer;
    for (let p = pointer; p.length > 0; p = p.slice(0, p.lastIndexOf("/"))) {
      const from = origins.get(p);
      if (from !== undefined) return from + pointer.slice(p.length);
    }
    return pointer;
  };
  return { value, origin, findings };
}
