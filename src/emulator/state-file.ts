// Turns a state document into a full EmulatorState.
// Spec: docs/emulator.md, State file format.
import {
  DEFAULT_EMAIL,
  DEFAULT_KEY,
  DEFAULT_RATE_LIMIT,
  DEFAULT_TOKEN,
  SEED_ACCOUNT_ID,
  SEED_TIME,
} from "./defaults.js";
import { parseInstant } from "../instant.js";
import { areaStates, createEmptyAccount, createEmptyZone } from "./seed.js";
import type { AccountState, EmulatorState, TokenDetails, ZoneState } from "./types.js";
import { PLAN_NAMES, planNameOf } from "./zone-plans.js";
import { isObject } from "./validate.js";

export class StateDocumentError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid emulator state: ${problems.join("; ")}`);
  }
}

export function normalizeState(input: unknown): EmulatorState {
  const problems: string[] = [];
  if (!isObject(input)) throw new StateDocumentError(["the state must be a JSON object"]);
  if (!Array.isArray(input.zones)) problems.push("zones must be an array");
  const zones: ZoneState[] = [];
  (Array.isArray(input.zones) ? input.zones : []).forEach((z: unknown, i: number) => {
    const zone = normalizeZone(z, `zones[${i}]`, problems);
    if (zone) zones.push(zone);
  });
  const ids = new Set<string>();
  for (const z of zones) {
    if (ids.has(z.id)) problems.push(`zone id ${z.id} (${z.name}) appears twice`);
    ids.add(z.id);
  }
  const credentials = isObject(input.credentials) ? input.credentials : {};
  const rate = isObject(input.rate_limit) ? input.rate_limit : {};
  if (input.rate_limit !== undefined && !(positive(rate.requests) && positive(rate.seconds))) {
    problems.push("rate_limit must be {requests, seconds} with positive integers");
  }
  const accounts = normalizeAccounts(input.accounts, problems);
  const tokenDetails = normalizeTokenDetails(credentials.token_details, problems);
  if (problems.length > 0) throw new StateDocumentError(problems);
  return {
    account_id: typeof input.account_id === "string" ? input.account_id : SEED_ACCOUNT_ID,
    credentials: {
      tokens: Array.isArray(credentials.tokens) ? (credentials.tokens as string[]) : [DEFAULT_TOKEN],
      keys: Array.isArray(credentials.keys)
        ? (credentials.keys as EmulatorState["credentials"]["keys"])
        : [{ email: DEFAULT_EMAIL, key: DEFAULT_KEY }],
      ...(tokenDetails ? { token_details: tokenDetails } : {}),
    },
    rate_limit:
      input.rate_limit === undefined
        ? { ...DEFAULT_RATE_LIMIT }
        : { requests: Number(rate.requests), seconds: Number(rate.seconds) },
    // Each area's top-level fields (account_rulesets, next_job_id), missing ones filled in.
    ...areaStates({ now: SEED_TIME, input, zones, accounts }),
    ...(accounts.length > 0 ? { accounts } : {}),
    zones,
  } as EmulatorState;
}

function normalizeZone(z: unknown, where: string, problems: string[]): ZoneState | undefined {
  if (!isObject(z)) {
    problems.push(`${where} must be an object`);
    return undefined;
  }
  if (typeof z.name !== "string" || z.name === "") problems.push(`${where}.name must be a non-empty string`);
  // A plan is named by its legacy name (or given as the plan object a zone answer shows).
  const plan = planNameOf(z.plan);
  if (!plan) problems.push(`${where}.plan must be one of ${PLAN_NAMES.join(", ")}`);
  if (z.id !== undefined && (typeof z.id !== "string" || !/^[0-9a-f]{32}$/.test(z.id))) {
    problems.push(`${where}.id must be 32 lower-case hex characters`);
  }
  if (z.account_id !== undefined && (typeof z.account_id !== "string" || !/^[0-9a-f]{32}$/.test(z.account_id))) {
    problems.push(`${where}.account_id must be 32 lower-case hex characters`);
  }
  if (typeof z.name !== "string" || !plan) return undefined;
  const empty = createEmptyZone(z.name, plan) as unknown as Record<string, unknown>;
  const zone: Record<string, unknown> = { ...empty, ...z, plan };
  // An object of settings (page_shield, waf_migration) is filled in field by field.
  for (const [key, value] of Object.entries(empty)) {
    if (isObject(value)) zone[key] = { ...value, ...(isObject(z[key]) ? z[key] : {}) };
  }
  return zone as unknown as ZoneState;
}

function normalizeAccounts(raw: unknown, problems: string[]): AccountState[] {
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) {
    problems.push("accounts must be an array");
    return [];
  }
  return raw.flatMap((a: unknown, i: number) => {
    if (!isObject(a) || typeof a.id !== "string" || !/^[0-9a-f]{32}$/.test(a.id)) {
      problems.push(`accounts[${i}] must be an object with an id of 32 lower-case hex characters`);
      return [];
    }
    // Each list an account holds (its Logpush jobs) is kept when it is a list, else empty.
    const account: Record<string, unknown> = { ...a, id: a.id };
    for (const [key, value] of Object.entries(createEmptyAccount(a.id))) {
      if (Array.isArray(value) && !Array.isArray(a[key])) account[key] = value;
    }
    return [account as unknown as AccountState];
  });
}

const TOKEN_STATUSES = ["active", "disabled", "expired"];

/** `credentials.token_details`: by token, a status, ISO time limits and policies, each optional. */
export function normalizeTokenDetails(raw: unknown, problems: string[]): Record<string, TokenDetails> | undefined {
  if (raw === undefined) return undefined;
  if (!isObject(raw)) {
    problems.push("credentials.token_details must be an object keyed by token");
    return undefined;
  }
  const out: Record<string, TokenDetails> = {};
  for (const [token, d] of Object.entries(raw)) {
    const where = "credentials.token_details[<a token>]";
    const before = problems.length;
    if (!isObject(d)) {
      problems.push(`${where} must be an object`);
      continue;
    }
    if (d.status !== undefined && !TOKEN_STATUSES.includes(d.status as string))
      problems.push(`${where}.status must be one of ${TOKEN_STATUSES.join(", ")}`);
    for (const k of ["not_before", "expires_on"] as const) {
      if (d[k] !== undefined && (typeof d[k] !== "string" || parseInstant(d[k] as string) === undefined))
        problems.push(`${where}.${k} must be an ISO date-time`);
    }
    if (d.policies !== undefined && (!Array.isArray(d.policies) || !d.policies.every(isObject)))
      problems.push(`${where}.policies must be an array of objects`);
    if (d.name !== undefined && (typeof d.name !== "string" || d.name === ""))
      problems.push(`${where}.name must be a non-empty string`);
    if (d.account_id !== undefined && (typeof d.account_id !== "string" || !/^[0-9a-f]{32}$/.test(d.account_id)))
      problems.push(`${where}.account_id must be 32 lower-case hex characters`);
    if (d.read_only !== undefined && typeof d.read_only !== "boolean")
      problems.push(`${where}.read_only must be true or false`);
    if (
      d.rate_limit !== undefined &&
      (!isObject(d.rate_limit) || !positive(d.rate_limit.requests) || !positive(d.rate_limit.seconds))
    )
      problems.push(`${where}.rate_limit must be {requests, seconds}, whole numbers of at least 1`);
    if (problems.length === before) out[token] = d as TokenDetails;
  }
  return out;
}

function positive(v: unknown): boolean {
  return Number.isInteger(v) && (v as number) > 0;
}
