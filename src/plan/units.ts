// The units of a plan: each zone of the desired state, then each entry of `accounts:`, planned as a zone is. Pure.
import type { AccountBase, ZonePlan } from "../model/index.js";
import {
  type ResourceKind,
  ACCOUNT_KINDS,
  RESOURCE_KINDS,
  SECTIONS,
  type AccountUnit,
  type DesiredAccount,
  type DesiredState,
  type DesiredZone,
} from "../sections/index.js";

export interface PlanUnit {
  unit: DesiredZone | (AccountUnit & DesiredAccount);
  kinds: readonly ResourceKind[];
}

/** An entry of `accounts:` as the engine plans it. */
function accountUnit(account: DesiredAccount): AccountUnit & DesiredAccount {
  return { ...account, zone_id: account.account_id, scope: "account" };
}

export function planUnits(desired: DesiredState, zoneKinds: readonly ResourceKind[] = RESOURCE_KINDS): PlanUnit[] {
  const names = new Set(zoneKinds.map((k) => k.name));
  const sections = SECTIONS.filter((s) => s.kinds.some((k) => names.has(k.name)));
  const selected = new Set(sections.flatMap((s) => s.account?.kinds.map((k) => k.name) ?? []));
  const accountKinds = ACCOUNT_KINDS.filter((k) => names.has(k.name) || selected.has(k.name));
  return [
    ...desired.zones.map((unit) => ({ unit, kinds: zoneKinds })),
    ...(desired.accounts ?? []).map((a) => ({ unit: accountUnit(a), kinds: accountKinds })),
  ];
}

export function unitKey(u: Pick<ZonePlan, "zone_id" | "scope">): string {
  return u.scope === "account" ? `account:${u.zone_id}` : u.zone_id;
}

export function unitName(u: Pick<ZonePlan, "zone_id" | "name" | "scope">): string {
  return u.scope === "account" ? `account ${u.zone_id}` : (u.name ?? u.zone_id);
}

/** The path every call of a unit starts with: `zones/{id}/` or `accounts/{id}/`. */
export function unitPathPrefix(u: Pick<ZonePlan, "zone_id" | "scope">): string {
  return u.scope === "account" ? `accounts/${u.zone_id}/` : `zones/${u.zone_id}/`;
}

const counted = (n: number, one: string) => `${n} ${one}${n === 1 ? "" : "s"}`;

function split(units: ReadonlyArray<Pick<ZonePlan, "scope">>): { zones: number; accounts: number } {
  const accounts = units.filter((u) => u.scope === "account").length;
  return { zones: units.length - accounts, accounts };
}

export function unitCount(units: ReadonlyArray<Pick<ZonePlan, "scope">>): string {
  const { zones, accounts } = split(units);
  if (accounts === 0) return counted(zones, "zone");
  return zones === 0 ? counted(accounts, "account") : `${counted(zones, "zone")} and ${counted(accounts, "account")}`;
}

export function unitsOf(
  part: ReadonlyArray<Pick<ZonePlan, "scope">>,
  all: ReadonlyArray<Pick<ZonePlan, "scope">>,
): string {
  const p = split(part);
  const a = split(all);
  const zones = `${p.zones} of ${counted(a.zones, "zone")}`;
  const accounts = `${p.accounts} of ${counted(a.accounts, "account")}`;
  if (a.accounts === 0) return zones;
  return a.zones === 0 ? accounts : `${zones} and ${accounts}`;
}

/** The verb of a count: `1 zone matches`, `3 zones match`. */
export function agrees(units: ReadonlyArray<unknown>, one: string, many: string): string {
  return units.length === 1 ? one : many;
}

export function accountDocument(account: AccountBase & Record<string, unknown>): Record<string, unknown> {
  const { source: _s, declared: _d, api_token, prune, ...rest } = account;
  const { account_id, ...lists } = rest;
  return {
    account_id,
    ...(account.api_token ? { api_token: `\${env:${account.api_token.env}}` } : {}),
    ...(prune === false ? { prune: false } : {}),
    ...lists,
  };
}
