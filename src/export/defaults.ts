// `export --defaults`: what every exported zone holds alike, written once in the file's `defaults:`.
// Spec: docs/configuration.md.
import equal from "fast-deep-equal";
import { setOwn } from "../data-record.js";
import { SECTIONS } from "../sections/index.js";
import { PIN_KEY, ZONE_IDENTITY_KEYS } from "../zone-keys.js";

type Rec = Record<string, unknown>;

function isRecord(v: unknown): v is Rec {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Whether `value` holds an `id:` pin anywhere in a list. */
function holdsPin(value: unknown, inList = false): boolean {
  if (Array.isArray(value)) return value.some((v) => holdsPin(v, true));
  if (!isRecord(value)) return false;
  return Object.entries(value).some(([k, v]) => (inList && k === PIN_KEY) || holdsPin(v, inList));
}

/** The part every one of `values` (mappings at `path` of each zone) holds alike. */
function common(values: readonly Rec[], path: string, refused: ReadonlySet<string>): Rec {
  const out: Rec = {};
  for (const key of Object.keys(values[0]!)) {
    const at = path ? `${path}.${key}` : key;
    if (path === "" && (ZONE_IDENTITY_KEYS as readonly string[]).includes(key)) continue;
    if (refused.has(at) || !values.every((v) => Object.hasOwn(v, key))) continue;
    const each = values.map((v) => v[key]);
    if (each.every((v) => equal(v, each[0])) && !holdsPin(each[0])) setOwn(out, key, structuredClone(each[0]));
    else if (each.every(isRecord)) {
      const shared = common(each, at, refused);
      if (Object.keys(shared).length > 0) setOwn<unknown>(out, key, shared);
    }
  }
  return out;
}

/** `zone` without what `shared` holds (a mapping left empty goes too). */
function without(zone: Rec, shared: Rec): Rec {
  const out: Rec = {};
  for (const [key, value] of Object.entries(zone)) {
    if (!Object.hasOwn(shared, key)) setOwn(out, key, value);
    else if (equal(value, shared[key])) continue;
    else if (isRecord(value) && isRecord(shared[key])) {
      const rest = without(value, shared[key]);
      if (Object.keys(rest).length > 0) setOwn<unknown>(out, key, rest);
    } else setOwn(out, key, value);
  }
  return out;
}

/** The zones' shared part as defaults and each zone without it. */
export function shareDefaults(zones: readonly Rec[]): { defaults?: Rec; zones: Rec[] } {
  if (zones.length < 2) return { zones: [...zones] };
  const refused = new Set(SECTIONS.filter((s) => s.zoneOnly !== undefined).map((s) => s.path));
  const defaults = common(zones, "", refused);
  if (Object.keys(defaults).length === 0) return { zones: [...zones] };
  return { defaults, zones: zones.map((z) => without(z, defaults)) };
}
