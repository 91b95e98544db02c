// `defaults:` at the top level of a file.
import { setOwn } from "../data-record.js";
import { asArray, asRecord, childPointer, type Finding, type Rec, SECTIONS } from "../sections/index.js";
import { PIN_KEY, type ZONE_IDENTITY_KEYS } from "../zone-keys.js";

export const DEFAULTS_KEY = "defaults";

/** Why a zone's identity is never a default. */
const IDENTITY: Readonly<Record<(typeof ZONE_IDENTITY_KEYS)[number], string>> = {
  zone_id: "a zone's identity is never a default: each zone names its own zone_id",
  name: "a zone's name is never a default: each zone names its own (or none)",
};

export const IDENTITY_KEYS: Readonly<Record<string, string>> = {
  ...IDENTITY,
  account_id:
    "a zone's account is not a default: write account_id once at the top level of the file (the account of " +
    "every zone that names none)",
};

export const MAX_MERGED_VALUES = 2_000_000;

export function zoneOnlyPaths(): ReadonlyMap<string, string> {
  return new Map(SECTIONS.filter((s) => s.zoneOnly).map((s) => [s.path, s.zoneOnly!]));
}

function defaultableKeys(refused: ReadonlyMap<string, string>): Set<string> {
  return new Set(SECTIONS.map((s) => s.path.split(".")[0]!).filter((k) => !refused.has(k)));
}

export interface Expanded {
  value: unknown;
  origin(pointer: string): string;
  /** Problems of `defaults:` that only merging sees (pins, too many values). */
  findings: Finding[];
}

const ABSENT: unique symbol = Symbol("absent");

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

export function mergeDefaults(defaults: unknown, zone: unknown): unknown {
  const merged = merge(defaults, zone, []);
  return merged === ABSENT ? undefined : merged;
}

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
