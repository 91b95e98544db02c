// The fast first reading of a configuration file: js-yaml, about eight times faster than the yaml
// package (a 500-zone file: 45 ms against 390 ms), builds the plain value without the node tree the
// yaml package keeps for positions. It answers only when it is certain to give what the yaml package
// would (YAML 1.2, core schema, unique keys, merge keys, at most MAX_ALIAS_COUNT aliases); whenever
// the file uses anything where the two could differ it gives up, and parse.ts reads the file with the
// yaml package, which stays the authority on syntax, problems and positions:
//   - plain scalars resolve by the yaml package's own core-schema patterns (js-yaml's accept more:
//     `0b1`, `1_000`); the types carry private tags, so an explicit `!!int`, `!!null` … is unknown here;
//   - anchors (so aliases and alias bombs), `<<` merge keys, null keys and collections as keys (each
//     parser makes a different string of them);
//   - tagged empty nodes (`a: !`), block scalars with an indentation indicator or `+` (their blank
//     lines), directives (`%YAML 1.1` changes the schema);
//   - warnings, nesting deeper than MAX_DEPTH, and every error: a file js-yaml refuses is reported by
//     the yaml package, with its positions.
// test/unit/config/fast-yaml.test.ts compares the two on every YAML file of the repository and on
// 20 000 generated ones.
// Where each zone starts is recorded on the way (every zone carries its line), from the offset at
// which js-yaml begins the zone's mapping: the same as the yaml package's node range.
import jsyaml from "js-yaml";

const MAX_DEPTH = 64;

const scalar = (name: string, test: RegExp, construct: (s: string) => unknown) =>
  new jsyaml.Type(`tag:zoneform.local,2026:${name}`, {
    kind: "scalar",
    resolve: (s: string | null) => s === null || test.test(s),
    construct: (s: string | null) => construct(s ?? ""),
  });

// yaml/dist/schema/core and common/null: the same tests, in the same order, with the same results.
const CORE_TYPES = [
  scalar("null", /^(?:~|[Nn]ull|NULL)?$/, () => null),
  scalar("bool", /^(?:[Tt]rue|TRUE|[Ff]alse|FALSE)$/, (s) => s[0] === "t" || s[0] === "T"),
  scalar("int-oct", /^0o[0-7]+$/, (s) => parseInt(s.slice(2), 8)),
  scalar("int", /^[-+]?[0-9]+$/, (s) => parseInt(s, 10)),
  scalar("int-hex", /^0x[0-9a-fA-F]+$/, (s) => parseInt(s.slice(2), 16)),
  scalar("float-nan", /^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/, (s) =>
    s.slice(-3).toLowerCase() === "nan" ? NaN : s[0] === "-" ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY,
  ),
  scalar("float-exp", /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+$/, (s) => parseFloat(s)),
  scalar("float", /^[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)$/, (s) => parseFloat(s)),
];

const SCHEMA = jsyaml.FAILSAFE_SCHEMA.extend({ implicit: CORE_TYPES });

export interface FastYaml {
  value: unknown;
  /** Offset at which each item of the top-level `zones` list starts, where it is a mapping. */
  zoneStarts: Array<number | undefined>;
}

/** The file as plain data, or undefined when only the yaml package can say (see above). */
export function fastParse(text: string): FastYaml | undefined {
  // A directive starts a line (the first one after a byte order mark); an explicit key (`? …`) may be
  // a collection. Text that only looks like one costs the fast reading, never a wrong value.
  if (/^\uFEFF?%/m.test(text) || /(?:^|[\s[{,])\?(?:[ \t]|$)/m.test(text)) return undefined;
  // A block scalar with an indentation indicator (`|2`) or that keeps its final line breaks (`|+`):
  // the two read its blank lines differently.
  if (/(?:^|\s)[|>](?:[1-9][+-]?|[+-][1-9]|\+)[ \t]*(?:#.*)?$/m.test(text)) return undefined;
  let state: { anchorMap?: Record<string, unknown> } | undefined;
  let unsure = false;
  // Collections composed: one that is not in the value was a key, which each parser turns into a
  // different string (`{[a, b]: 1}`, `{{a}}`).
  const collections = new Set<unknown>();
  // Where each mapping of depth 3 (an item of a top-level list) began.
  const opens: number[] = [];
  const mapStarts = new Map<unknown, number>();
  let value: unknown;
  try {
    value = jsyaml.load(text, {
      schema: SCHEMA,
      maxDepth: MAX_DEPTH,
      onWarning: () => (unsure = true),
      listener(event, s) {
        state ??= s as unknown as typeof state;
        const depth = (s as unknown as { depth: number }).depth;
        if (event === "open") {
          opens[depth] = s.position;
          return;
        }
        if (s.kind === "mapping" || s.kind === "sequence") collections.add(s.result);
        if (depth === 3 && s.kind === "mapping") mapStarts.set(s.result, opens[depth]!);
        // A tagged empty node (`a: !`): js-yaml and the yaml package disagree on what it is.
        else if (s.kind === null && (s as unknown as { tag: string | null }).tag !== null) unsure = true;
      },
    } as jsyaml.LoadOptions);
  } catch {
    return undefined;
  }
  if (unsure || (state?.anchorMap && Object.keys(state.anchorMap).length > 0)) return undefined;
  const walked = { collections: 0 };
  if (hasUnsureKey(value, 0, walked) || walked.collections !== collections.size) return undefined;
  const zones = value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>).zones : undefined;
  const zoneStarts = Array.isArray(zones) ? zones.map((z) => mapStarts.get(z)) : [];
  return { value, zoneStarts };
}

/**
 * Whether a key appears that the two parsers may read differently: `<<` (a merge, which js-yaml reads
 * here as a plain key) and `null` (what js-yaml makes of a null key, `null:` or `~:`, which the yaml
 * package makes "").
 */
function hasUnsureKey(value: unknown, depth: number, walked: { collections: number }): boolean {
  if (value === null || typeof value !== "object" || depth > MAX_DEPTH) return false;
  walked.collections++;
  if (Array.isArray(value)) return value.some((v) => hasUnsureKey(v, depth + 1, walked));
  for (const key in value) {
    if (key === "<<" || key === "null" || hasUnsureKey((value as Record<string, unknown>)[key], depth + 1, walked)) return true;
  }
  return false;
}
