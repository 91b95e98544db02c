// A plan as its file holds it (format 5): the zones in `zones`, the entries of `accounts:` in `accounts`, each
// account named by `account_id` (docs/commands/plan.md).
import type { Change, Plan, ZonePlan } from "../model/index.js";

type AccountDocument = Omit<ZonePlan, "zone_id" | "scope" | "changes" | "audit"> & {
  account_id: string;
  changes: Array<Omit<Change, "zone_id"> & { account_id: string }>;
};

/** A plan as its file holds it. */
export type PlanDocument = Omit<Plan, "zones"> & { zones: ZonePlan[]; accounts?: AccountDocument[] };

function accountDocument(u: ZonePlan): AccountDocument {
  const { zone_id, scope: _scope, changes, ...rest } = u;
  return {
    account_id: zone_id,
    ...rest,
    changes: changes.map(({ zone_id: id, ...c }) => ({ ...c, account_id: id })),
  };
}

function accountUnit(a: AccountDocument): ZonePlan {
  const { account_id, changes, ...rest } = a;
  return {
    zone_id: account_id,
    scope: "account",
    ...rest,
    changes: changes.map(({ account_id: id, ...c }) => ({ ...c, zone_id: id })),
  };
}

/** The plan as its file holds it: zones, then accounts. */
export function toDocument(plan: Plan): PlanDocument {
  const zones = plan.zones.filter((z) => z.scope !== "account");
  const accounts = plan.zones.filter((z) => z.scope === "account").map(accountDocument);
  const { zones: _units, ...rest } = plan;
  return { ...rest, zones, ...(accounts.length > 0 ? { accounts } : {}) };
}

export function isInternalForm(doc: unknown): doc is Plan {
  const zones = (doc as { zones?: unknown })?.zones;
  return Array.isArray(zones) && zones.some((z) => (z as { scope?: unknown })?.scope === "account");
}

/** The plan a file's document stands for, its accounts back among its units. */
export function fromDocument(doc: PlanDocument): Plan {
  const { accounts, ...rest } = doc;
  return { ...rest, zones: [...doc.zones, ...(accounts ?? []).map(accountUnit)] };
}
