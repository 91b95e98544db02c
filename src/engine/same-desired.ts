// `apply PLAN.json -c CONFIG`: a saved plan is applied only when it was made from the configuration given (in CI,
// the one at the merged commit).
import { StalePlanError } from "../errors.js";
import { canonicalJson } from "../canonical-json.js";
import { printable } from "../safe-text.js";
import {
  ACCOUNT_SECTIONS,
  SECTIONS,
  type DesiredAccount,
  type DesiredState,
  type DesiredZone,
} from "../sections/index.js";

const same = (a: unknown, b: unknown) => canonicalJson(a) === canonicalJson(b);

/** The value at a section's path in a zone (`logs.logpush_jobs`), or undefined. */
function at(value: unknown, path: readonly string[]): unknown {
  let here = value;
  for (const key of path) {
    if (here === null || typeof here !== "object" || !Object.hasOwn(here, key)) return undefined;
    here = (here as Record<string, unknown>)[key];
  }
  return here;
}

/** A copy of `value` without what is at `path`. */
function without(value: unknown, path: readonly string[]): unknown {
  if (path.length === 0 || value === null || typeof value !== "object" || Array.isArray(value)) return value;
  const [key, ...rest] = path as [string, ...string[]];
  if (!Object.hasOwn(value, key)) return value;
  const copy = { ...(value as Record<string, unknown>) };
  if (rest.length === 0) delete copy[key];
  else copy[key] = without(copy[key], rest);
  return copy;
}

function differingKeys(a: unknown, b: unknown, prefix = ""): string[] {
  const isRecord = (v: unknown): v is Record<string, unknown> =>
    v !== null && typeof v === "object" && !Array.isArray(v);
  if (!isRecord(a) || !isRecord(b)) return same(a, b) ? [] : [prefix || "(the zone)"];
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
  return keys.flatMap((k) => differingKeys(a[k], b[k], prefix ? `${prefix}.${k}` : k));
}

function planned(zone: DesiredZone): Record<string, unknown> {
  const { source: _source, declared: _declared, ...rest } = zone;
  return rest;
}

function zoneDifferences(a: DesiredZone, b: DesiredZone): string[] {
  const out: string[] = [];
  let restA: unknown = planned(a);
  let restB: unknown = planned(b);
  for (const section of SECTIONS) {
    const path = section.path.split(".");
    if (!same(at(restA, path), at(restB, path))) out.push(section.path);
    restA = without(restA, path);
    restB = without(restB, path);
  }
  return [...out, ...differingKeys(restA, restB)];
}

export function desiredDifferences(plan: DesiredState, config: DesiredState): string[] {
  const out: string[] = [];
  if ((plan.account_id ?? null) !== (config.account_id ?? null)) out.push("account_id differs");
  if (!same(plan.safety, config.safety)) out.push("safety differs");
  const label = (z: DesiredZone) => printable(z.name ? `${z.name} (${z.zone_id})` : z.zone_id);
  const inConfig = new Map(config.zones.map((z) => [z.zone_id, z]));
  const inPlan = new Set(plan.zones.map((z) => z.zone_id));
  for (const z of plan.zones) {
    const other = inConfig.get(z.zone_id);
    if (!other) {
      out.push(`${label(z)}: in the plan, not in the configuration`);
      continue;
    }
    const parts = zoneDifferences(z, other);
    if (parts.length > 0)
      out.push(`${label(z)}: ${parts.map((p) => printable(p)).join(", ")} differ${parts.length === 1 ? "s" : ""}`);
  }
  for (const z of config.zones) {
    if (!inPlan.has(z.zone_id)) out.push(`${label(z)}: in the configuration, not in the plan`);
  }
  out.push(...accountDifferences(plan.accounts ?? [], config.accounts ?? []));
  return out;
}

function plannedAccount(account: DesiredAccount): Record<string, unknown> {
  const { source: _source, declared: _declared, api_token, ...rest } = account;
  // The token's variable is compared, never its value (a saved plan binds that by hash).
  return { ...rest, ...(api_token ? { api_token: api_token.env } : {}) };
}

function accountDifferences(plan: readonly DesiredAccount[], config: readonly DesiredAccount[]): string[] {
  const out: string[] = [];
  const label = (a: DesiredAccount) => `account ${printable(a.account_id)}`;
  const inConfig = new Map(config.map((a) => [a.account_id, a]));
  const inPlan = new Set(plan.map((a) => a.account_id));
  for (const a of plan) {
    const other = inConfig.get(a.account_id);
    if (!other) {
      out.push(`${label(a)}: in the plan, not in the configuration`);
      continue;
    }
    let restA: unknown = plannedAccount(a);
    let restB: unknown = plannedAccount(other);
    const parts: string[] = [];
    for (const section of ACCOUNT_SECTIONS) {
      if (!same(at(restA, [section.key]), at(restB, [section.key]))) parts.push(section.key);
      restA = without(restA, [section.key]);
      restB = without(restB, [section.key]);
    }
    parts.push(...differingKeys(restA, restB));
    if (parts.length > 0)
      out.push(`${label(a)}: ${parts.map((p) => printable(p)).join(", ")} differ${parts.length === 1 ? "s" : ""}`);
  }
  for (const a of config) if (!inPlan.has(a.account_id)) out.push(`${label(a)}: in the configuration, not in the plan`);
  return out;
}

export function assertSameDesired(plan: DesiredState, config: DesiredState, name: string, configName: string): void {
  const found = desiredDifferences(plan, config);
  if (found.length === 0) return;
  throw new StalePlanError(
    `${name} was not made from ${configName}; nothing was read or written:\n` +
      `${found.map((f) => `  ${f}`).join("\n")}\n` +
      "Make the plan again from this configuration and review it.",
    found,
  );
}
