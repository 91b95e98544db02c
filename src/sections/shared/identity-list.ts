// Lists whose items are matched by identity (a policy's description, a job's name), never by
// position: each desired item meets the live items that share its identity, the closest of them is
// kept and the rest are duplicates to delete; live items no desired item names are "unlisted" (deleted
// when the section prunes). Shared by the kinds that own such lists.
import type { Change } from "../../model/plan.js";


export interface IdentityMatch<D, L> {
  want: D;
  /** The live item to update in place (undefined: create). */
  keep?: L;
  /** Other live items with the same identity. */
  duplicates: L[];
}

export function matchByIdentity<D, L>(
  desired: D[],
  live: L[],
  identity: { ofDesired: (d: D) => string; ofLive: (l: L) => string },
  closest: (want: D, candidates: L[]) => L,
): { matches: Array<IdentityMatch<D, L>>; unlisted: L[] } {
  const byIdentity = new Map<string, L[]>();
  for (const item of live) {
    const key = identity.ofLive(item);
    byIdentity.set(key, [...(byIdentity.get(key) ?? []), item]);
  }
  const matches = desired.map((want) => {
    const candidates = byIdentity.get(identity.ofDesired(want)) ?? [];
    byIdentity.delete(identity.ofDesired(want));
    if (candidates.length === 0) return { want, duplicates: [] };
    const keep = closest(want, candidates);
    return { want, keep, duplicates: candidates.filter((c) => c !== keep) };
  });
  return { matches, unlisted: [...byIdentity.values()].flat() };
}

/** The note (and warning) for a live duplicate of an identity. */
export function duplicateNote(what: string, count: number, identity: string, keptId: string): string {
  return `duplicate: ${count} live ${what} are ${identity}; keeping ${keptId}`;
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
