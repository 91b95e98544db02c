// Lists the file names one by one (CSP, Logpush, notification policies): a live object is its id. An entry
// matches the id it pins, else its hints among what no pin took: none is a create, more than one an error.
// Spec: docs/architecture.md, Identity and safety.
import type { Change } from "../../model/index.js";

export interface IdentityRule<D, L> {
  /** What one object is called in messages: "Page Shield policy", "Logpush job". */
  what: string;
  whats: string;
  idOf: (l: L) => string;
  pinOf: (d: D) => string | undefined;
  /** The hints an unpinned entry is matched by, as one comparable key. */
  hint: { ofDesired: (d: D) => string; ofLive: (l: L) => string };
  describeDesired: (d: D) => string;
  /** A live object in a message, its id first: `id 12 (name "x", dataset http_requests)`. */
  describeLive: (l: L) => string;
  /** Whether an unpinned entry may take the one live object its hints found. */
  claim?: (want: D, candidate: L) => string | undefined;
  /** What an error stops, in messages: "zone" (absent) or "account". */
  unit?: string;
  /** The advice after the pin when several live objects match (absent: declare or delete the others). */
  otherwise?: string;
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
  live: L[];
  errors: string[];
  warnings: string[];
}

const PIN_HOWTO = "pin the one the file means with `id: <id>` under the entry";

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

interface Matching<D, L> {
  rule: IdentityRule<D, L>;
  live: L[];
  taken: Set<string>;
  /** Live objects an entry in error may mean: neither matched nor deleted. */
  held: Set<string>;
  found: Map<D, IdentityMatch<D, L>>;
  failed: Set<D>;
  errors: string[];
}

const listed = <L>(describe: (l: L) => string, items: L[]) =>
  items.length > 0 ? items.map(describe).join("; ") : "none";

/** Step 1: each entry's pin, which must name a live object no other entry pins. */
function matchPin<D, L>(m: Matching<D, L>, byId: Map<string, L>, want: D, pin: string): void {
  const { rule } = m;
  const where = rule.unit ?? "zone";
  m.failed.add(want);
  const hit = byId.get(pin);
  if (!hit) {
    const like = m.live.filter((l) => rule.hint.ofLive(l) === rule.hint.ofDesired(want));
    for (const l of like) m.held.add(rule.idOf(l));
    m.errors.push(
      `${rule.describeDesired(want)} pins id ${pin}, which is not live (live ${rule.whats} with the same ` +
        `hints: ${listed(rule.describeLive, like)}). ` +
        "Correct the `id:` or remove it (the entry is then matched by its hints, or created); nothing in " +
        `this ${where} is changed.`,
    );
  } else if (m.taken.has(pin)) {
    m.errors.push(
      `${rule.describeDesired(want)} pins id ${pin}, which another entry pins too; each live ${rule.what} ` +
        `may be named once. Nothing in this ${where} is changed.`,
    );
  } else {
    m.taken.add(pin);
    m.failed.delete(want);
    m.found.set(want, { want, live: hit });
  }
}

/** The error of an entry the rule's `claim` refuses its one candidate to, or undefined when it may take it. */
function refusedClaim<D, L>(rule: IdentityRule<D, L>, want: D, candidate: L): string | undefined {
  const why = rule.claim?.(want, candidate);
  if (why === undefined) return undefined;
  const id = rule.idOf(candidate);
  return (
    `${rule.describeDesired(want)} matches ${rule.describeLive(candidate)} by its hints only, and ${why}: ` +
    `zoneform does not take it over on its hints. To take it over, pin it: write \`id: ${id}\` under the ` +
    `entry; to create a new one instead, rename the entry. Nothing in this ${rule.unit ?? "zone"} is changed.`
  );
}

/** Step 2: an unpinned entry's hints, among the live objects no pin took (nor held). */
function matchHints<D, L>(m: Matching<D, L>, want: D): void {
  const { rule } = m;
  const candidates = m.live.filter(
    (l) => !m.taken.has(rule.idOf(l)) && !m.held.has(rule.idOf(l)) && rule.hint.ofLive(l) === rule.hint.ofDesired(want),
  );
  if (candidates.length === 0) return;
  const refused = candidates.length === 1 ? refusedClaim(rule, want, candidates[0]!) : undefined;
  if (candidates.length === 1 && refused === undefined) {
    m.taken.add(rule.idOf(candidates[0]!));
    m.found.set(want, { want, live: candidates[0]! });
    return;
  }
  m.failed.add(want);
  for (const c of candidates) m.held.add(rule.idOf(c));
  m.errors.push(
    refused ??
      `${rule.describeDesired(want)} matches ${candidates.length} live ${rule.whats}: ` +
        `${listed(rule.describeLive, candidates)}. zoneform does not guess which one the file ` +
        `means: ${PIN_HOWTO} (e.g. \`id: ${rule.idOf(candidates[0]!)}\`)` +
        `${rule.otherwise ?? ", and declare or delete the others"}; nothing in this ${rule.unit ?? "zone"} ` +
        "is changed.",
  );
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
  const m: Matching<D, L> = {
    rule,
    live,
    taken: new Set(),
    held: new Set(),
    found: new Map(),
    failed: new Set(),
    errors,
  };
  for (const want of desired) {
    const pin = rule.pinOf(want);
    if (pin !== undefined) matchPin(m, byId, want, pin);
  }
  for (const want of desired) if (rule.pinOf(want) === undefined) matchHints(m, want);

  const matches = desired.filter((d) => !m.failed.has(d)).map((want) => m.found.get(want) ?? { want });
  const unmatched = live.filter((l) => !m.taken.has(rule.idOf(l)) && !m.held.has(rule.idOf(l)));
  return { matches, unmatched, live, errors, warnings };
}

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
