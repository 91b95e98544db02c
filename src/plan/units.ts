// The units of a plan: each zone of the desired state, then each entry of `accounts:` (an account's own
// objects, planned as a zone is: its own reads, changes, errors and fingerprints). A unit is a
// `ZonePlan`; an account's carries `scope: "account"` and the account's id as its `zone_id`, and its
// calls address `accounts/{id}/…`, as a zone's address `zones/{id}/…`. Pure.
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

/** A unit to plan: a zone or an account, with the kinds that may own part of it. */
export interface PlanUnit {
  unit: DesiredZone | (AccountUnit & DesiredAccount);
  kinds: readonly ResourceKind[];
}

/** An entry of `accounts:` as the engine plans it. */
function accountUnit(account: DesiredAccount): AccountUnit & DesiredAccount {
  return { ...account, zone_id: account.account_id, scope: "account" };
}

/**
 * Every unit of the desired state, zones first, then accounts (each account is a unit, lists or not: a
 * saved plan carries its token's reference, which the zones of the account are applied with). `zoneKinds`
 * replaces the zones' kinds (a caller planning some kinds only); accounts then take the account kinds of
 * the sections those kinds belong to (a section's account list may have kinds of its own: notification
 * policies beside Page Shield's zone kinds).
 */
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

/** How a unit is keyed where zones and accounts meet (their ids are of one form). */
export function unitKey(u: Pick<ZonePlan, "zone_id" | "scope">): string {
  return u.scope === "account" ? `account:${u.zone_id}` : u.zone_id;
}

/** How messages name a unit: a zone by its name (else its id), an account as `account <id>`. Not escaped. */
export function unitName(u: Pick<ZonePlan, "zone_id" | "name" | "scope">): string {
  return u.scope === "account" ? `account ${u.zone_id}` : (u.name ?? u.zone_id);
}

/** The path every call of a unit starts with: `zones/{id}/` or `accounts/{id}/`. */
export function unitPathPrefix(u: Pick<ZonePlan, "zone_id" | "scope">): string {
  return u.scope === "account" ? `accounts/${u.zone_id}/` : `zones/${u.zone_id}/`;
}

const counted = (n: number, one: string) => `${n} ${one}${n === 1 ? "" : "s"}`;

/** Zones and accounts apart, counted: each unit is one or the other, never named for the other. */
function split(units: ReadonlyArray<Pick<ZonePlan, "scope">>): { zones: number; accounts: number } {
  const accounts = units.filter((u) => u.scope === "account").length;
  return { zones: units.length - accounts, accounts };
}

/** How many zones and accounts, in words: `3 zones`, `1 zone and 2 accounts`, `1 account`. */
export function unitCount(units: ReadonlyArray<Pick<ZonePlan, "scope">>): string {
  const { zones, accounts } = split(units);
  if (accounts === 0) return counted(zones, "zone");
  return zones === 0 ? counted(accounts, "account") : `${counted(zones, "zone")} and ${counted(accounts, "account")}`;
}

/** `part` of `all`, zones and accounts apart: `1 of 3 zones and 1 of 2 accounts` (accounts when `all` has some). */
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

/** The entry of `accounts:` as a file writes it, for a desired state built in code (no `declared`). */
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
