// Lists of objects the file names one by one (Page Shield policies, Logpush jobs). One identity rule:
// a live object IS its id; a name or a description only hints at it and may repeat (the API allows
// both). A file entry is matched, in this order:
//   1. by the id it pins (`id:`); a pinned id that is not live is an error;
//   2. by its hints (a policy's description; a job's name and dataset) among the live objects no pin
//      claimed: none is a create, one is the match, more than one is an error listing the candidates;
// Errors stop the zone; the candidates of an ambiguous entry are held (neither matched nor deleted).
// Live objects nothing matched are `unmatched`: deleted only when the section prunes. A list that
// names one id twice is read once.
import type { Change } from "../../model/index.js";

export interface IdentityRule<D, L> {
  /** What one object is called in messages: "Page Shield policy", "Logpush job". */
  what: string;
  /** And several: "Page Shield policies". */
  whats: string;
  idOf: (l: L) => string;
  pinOf: (d: D) => string | undefined;
  /** The hints an unpinned entry is matched by, as one comparable key. */
  hint: { ofDesired: (d: D) => string; ofLive: (l: L) => string };
  /** A file entry in a message: `policy described "A"`. */
  describeDesired: (d: D) => string;
  /** A live object in a message, its id first: `id 12 (name "x", dataset http_requests)`. */
  describeLive: (l: L) => string;
}

interface IdentityMatch<D, L> {
  want: D;
  /** The live object this entry is (undefined: create). */
  live?: L;
}

export interface IdentityResult<D, L> {
  /** One per file entry that could be matched (entries in error are left out). */
  matches: Array<IdentityMatch<D, L>>;
  /** Live objects no entry matched or held: deleted only when the section prunes. */
  unmatched: L[];
  /** The live list, one object per id. */
  live: L[];
  errors: string[];
  warnings: string[];
}

const PIN_HOWTO = "pin the one the file means with `id: <id>` under the entry";

/** The live list with each id once: identical repeats folded with a warning, differing ones an error. */
function distinctById<L>(
  live: readonly L[],
  rule: IdentityRule<unknown, L>,
  errors: string[],
  warnings: string[],
): L[] {
  const byId = new Map<string, L>();
  const conflicting = new Set<string>();
  for (const item of live) {
    const id = rule.idOf(item);
    const seen = byId.get(id);
    if (seen === undefined) byId.set(id, item);
    else if (JSON.stringify(seen) === JSON.stringify(item))
      warnings.push(`the list of ${rule.whats} named id ${id} twice; it was read once`);
    else conflicting.add(id);
  }
  for (const id of conflicting) {
    errors.push(
      `the list of ${rule.whats} named id ${id} twice with different contents; zoneform cannot tell which ` +
        `is current, and nothing in this zone is changed. Run plan again.`,
    );
  }
  return [...byId.values()];
}

export function matchIdentities<D, L>(
  desired: readonly D[],
  liveList: readonly L[],
  rule: IdentityRule<D, L>,
): IdentityResult<D, L> {
  const errors: string[] = [];
  const warnings: string[] = [];
  const live = distinctById(liveList, rule as IdentityRule<unknown, L>, errors, warnings);
  const byId = new Map(live.map((l) => [rule.idOf(l), l]));
  const taken = new Set<string>();
  const found = new Map<D, IdentityMatch<D, L>>();
  const failed = new Set<D>();
  const list = (items: L[]) => (items.length > 0 ? items.map(rule.describeLive).join("; ") : "none");
  // Live objects an entry in error may mean: neither matched nor deleted.
  const held = new Set<string>();

  // 1. Pins.
  for (const want of desired) {
    const pin = rule.pinOf(want);
    if (pin === undefined) continue;
    failed.add(want);
    const hit = byId.get(pin);
    if (!hit) {
      const like = live.filter((l) => rule.hint.ofLive(l) === rule.hint.ofDesired(want));
      for (const l of like) held.add(rule.idOf(l));
      errors.push(
        `${rule.describeDesired(want)} pins id ${pin}, which is not live (live ${rule.whats} with the same ` +
          `hints: ${list(like)}). ` +
          "Correct the `id:` or remove it (the entry is then matched by its hints, or created); nothing in " +
          "this zone is changed.",
      );
    } else if (taken.has(pin)) {
      errors.push(
        `${rule.describeDesired(want)} pins id ${pin}, which another entry pins too; each live ${rule.what} ` +
          `may be named once. Nothing in this zone is changed.`,
      );
    } else {
      taken.add(pin);
      failed.delete(want);
      found.set(want, { want, live: hit });
    }
  }

  // 2. Hints, among the live objects no pin claimed (nor held). Candidates of an ambiguous entry are held.
  for (const want of desired) {
    if (rule.pinOf(want) !== undefined) continue;
    const candidates = live.filter(
      (l) => !taken.has(rule.idOf(l)) && !held.has(rule.idOf(l)) && rule.hint.ofLive(l) === rule.hint.ofDesired(want),
    );
    if (candidates.length === 1) {
      taken.add(rule.idOf(candidates[0]!));
      found.set(want, { want, live: candidates[0]! });
    } else if (candidates.length > 1) {
      failed.add(want);
      for (const c of candidates) held.add(rule.idOf(c));
      errors.push(
        `${rule.describeDesired(want)} matches ${candidates.length} live ${rule.whats}: ${list(candidates)}. ` +
          `zoneform does not guess which one the file means: ${PIN_HOWTO} (e.g. \`id: ` +
          `${rule.idOf(candidates[0]!)}\`), and declare or delete the others; nothing in this zone ` +
          `is changed.`,
      );
    }
  }

  const matches = desired.filter((d) => !failed.has(d)).map((want) => found.get(want) ?? { want });
  const unmatched = live.filter((l) => !taken.has(rule.idOf(l)) && !held.has(rule.idOf(l)));
  return { matches, unmatched, live, errors, warnings };
}

/** A `-` change that deletes one live item with one DELETE. */
export function deleteItemChange(args: {
  resource: string;
  zoneId: string;
  identity: string;
  liveId: string;
  before: unknown;
  path: string;
  note?: string;
}): Change {
  return {
    kind: "delete",
    resource: args.resource,
    zone_id: args.zoneId,
    identity: args.identity,
    live_id: args.liveId,
    before: args.before,
    fields: [],
    operations: [{ method: "DELETE", path: args.path }],
    ...(args.note ? { notes: [args.note] } : {}),
  };
}
