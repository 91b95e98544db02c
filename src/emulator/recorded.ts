// Recorded real answers as emulator state (spec/recorded/*.json: `{id, provenance, source,
// recorded_request?, status, body}`). `stateFromRecorded` puts an answer's items where its request's
// path says they live, so that a GET of that path afterwards answers the same items: same ids, same
// fields, stored as recorded (the execute rule without an id in cft_managed_entrypoint stays without
// one). Pure: the given state is not changed.
//
// The emulator's choices: a list answer is the whole collection, so it replaces the zone's (or
// account's) collection, except the zones list, which adds or updates zones and keeps the others; a
// single-object answer adds or replaces that object by id. A zone the answer names but the state lacks
// is created, named `recorded-<first 8 hex of its id>.example`, on the enterprise plan, until a zones
// answer names it. A zone answer whose plan is none of the four legacy plans is kept on the free plan
// internally (its recorded plan object is still what GET answers).
import { createEmptyZone } from "./seed.js";
import type { AccountState, EmulatorState, LogpushJob, Ruleset, ZoneState } from "./types.js";
import { planNameOf } from "./zone-plans.js";

export interface RecordedAnswer {
  id?: string;
  provenance?: string;
  source?: string;
  recorded_request?: { method?: string; url: string };
  status: number;
  body: { result?: unknown; success?: boolean; [extra: string]: unknown };
}

export interface RecordedOptions {
  /**
   * The zone to load into instead of the one the recorded URL names; required for a recording without
   * a request (cfgo_logpush_list), which is then read as a zone's Logpush jobs list.
   */
  zoneId?: string;
}

/** A recorded answer the emulator cannot place (not a success, unknown path, wrong shape). */
export class RecordedAnswerError extends Error {}

type Item = Record<string, unknown> & { id: string };
type Loader = (state: EmulatorState, ids: string[], result: unknown) => void;

const API_PREFIX = "/client/v4/";

/** Path patterns (`:x` a parameter) and how their answer is stored. */
const LOADERS: Array<[string, Loader]> = [
  ["zones", (s, _ids, r) => arrayOf(r, "zones").forEach((z) => upsertZone(s, z))],
  ["zones/:zone", (s, _ids, r) => upsertZone(s, objectOf(r, "zone"))],
  ["zones/:zone/custom_hostnames", (s, [z], r) => (zoneFor(s, z!).custom_hostnames = arrayOf(r, "custom hostnames"))],
  ["zones/:zone/custom_hostnames/:id", (s, [z], r) => upsert(zoneFor(s, z!).custom_hostnames, objectOf(r, "custom hostname"))],
  ["zones/:zone/rulesets", (s, [z], r) => replaceRulesets(zoneFor(s, z!), arrayOf(r, "rulesets"))],
  ["zones/:zone/rulesets/:id", (s, [z], r) => upsert(zoneFor(s, z!).rulesets, asRuleset(objectOf(r, "ruleset")))],
  ["zones/:zone/rulesets/phases/:phase/entrypoint", (s, [z], r) => upsert(zoneFor(s, z!).rulesets, asRuleset(objectOf(r, "ruleset")))],
  ["zones/:zone/logpush/jobs", (s, [z], r) => (zoneFor(s, z!).logpush_jobs = jobsOf(s, r))],
  ["zones/:zone/logpush/jobs/:id", (s, [z], r) => upsert(zoneFor(s, z!).logpush_jobs, jobsOf(s, [objectOf(r, "logpush job")])[0]!)],
  ["zones/:zone/page_shield/policies", (s, [z], r) => (zoneFor(s, z!).policies = arrayOf(r, "policies"))],
  ["zones/:zone/page_shield/policies/:id", (s, [z], r) => upsert(zoneFor(s, z!).policies, objectOf(r, "policy"))],
  ["accounts/:account/logpush/jobs", (s, [a], r) => (accountFor(s, a!).logpush_jobs = jobsOf(s, r))],
];

/** The API path (after /client/v4/) a recorded answer is loaded under. */
export function recordedPath(recorded: RecordedAnswer, opts: RecordedOptions = {}): string {
  const url = recorded.recorded_request?.url;
  if (url === undefined) {
    if (!opts.zoneId) throw new RecordedAnswerError("the recorded answer has no recorded_request: name the zone to load it into (zone_id)");
    if (!Array.isArray(recorded.body?.result) || !recorded.body.result.every((j) => isObject(j) && "dataset" in j)) {
      throw new RecordedAnswerError("a recorded answer without a request is only understood as a Logpush jobs list");
    }
    return `zones/${opts.zoneId}/logpush/jobs`;
  }
  const pathname = new URL(url, "https://api.cloudflare.com").pathname;
  const path = (pathname.startsWith(API_PREFIX) ? pathname.slice(API_PREFIX.length) : pathname.replace(/^\/+/, "")).replace(/\/+$/, "");
  if (!opts.zoneId) return path;
  return path.replace(/^zones\/[^/]+/, `zones/${opts.zoneId}`);
}

/** A copy of `state` holding the recorded answer's items where a GET of its path finds them. */
export function stateFromRecorded(state: EmulatorState, recorded: RecordedAnswer, opts: RecordedOptions = {}): EmulatorState {
  if (!isObject(recorded) || !isObject(recorded.body)) throw new RecordedAnswerError("a recorded answer is {status, body, recorded_request?}");
  if (recorded.status < 200 || recorded.status > 299 || recorded.body.success === false) {
    throw new RecordedAnswerError(`only successful answers can be loaded (status ${recorded.status})`);
  }
  if (opts.zoneId !== undefined && !/^[0-9a-f]{32}$/.test(opts.zoneId)) throw new RecordedAnswerError(`zone_id ${opts.zoneId} is not 32 hex characters`);
  const path = recordedPath(recorded, opts);
  const parts = path.split("/");
  for (const [pattern, load] of LOADERS) {
    const ids = match(pattern.split("/"), parts);
    if (!ids) continue;
    const next = structuredClone(state);
    load(next, ids, structuredClone(recorded.body.result));
    return next;
  }
  throw new RecordedAnswerError(`no loader for GET ${path}; known: ${LOADERS.map(([p]) => p).join(", ")}`);
}

function match(pattern: string[], parts: string[]): string[] | undefined {
  if (pattern.length !== parts.length) return undefined;
  const ids: string[] = [];
  for (let i = 0; i < pattern.length; i++) {
    if (pattern[i]!.startsWith(":")) {
      if (!/^[0-9a-z_-]+$/i.test(parts[i]!)) return undefined;
      // Zone and account ids must be what the router accepts.
      if ((pattern[i] === ":zone" || pattern[i] === ":account") && !/^[0-9a-f]{32}$/.test(parts[i]!)) return undefined;
      ids.push(parts[i]!);
    } else if (pattern[i] !== parts[i]) return undefined;
  }
  return ids;
}

function zoneFor(state: EmulatorState, id: string): ZoneState {
  const found = state.zones.find((z) => z.id === id);
  if (found) return found;
  const zone = { ...createEmptyZone(`recorded-${id.slice(0, 8)}.example`, "enterprise"), id };
  state.zones.push(zone);
  return zone;
}

function upsertZone(state: EmulatorState, item: Item): void {
  if (!/^[0-9a-f]{32}$/.test(item.id)) throw new RecordedAnswerError(`zone id ${item.id} is not 32 hex characters`);
  const zone = zoneFor(state, item.id);
  if (typeof item.name === "string") zone.name = item.name;
  zone.plan = planNameOf(item.plan) ?? "free";
  const { id: _id, name: _name, ...details } = item;
  zone.details = details;
}

function accountFor(state: EmulatorState, id: string): AccountState {
  state.accounts ??= [];
  let account = state.accounts.find((a) => a.id === id);
  if (!account) {
    account = { id, logpush_jobs: [] };
    state.accounts.push(account);
  }
  return account;
}

/** A list answer's rulesets carry no rules: those already stored under the same id are kept. */
function replaceRulesets(zone: ZoneState, items: Item[]): void {
  zone.rulesets = items.map((item) => {
    const before = zone.rulesets.find((r) => r.id === item.id);
    return asRuleset(item.rules === undefined && before ? { ...item, rules: before.rules } : item);
  });
}

function asRuleset(item: Item): Ruleset {
  return (Array.isArray(item.rules) ? item : { ...item, rules: [] }) as unknown as Ruleset;
}

/** Jobs as recorded; later jobs created through the API get ids above every loaded one. */
function jobsOf(state: EmulatorState, result: unknown): LogpushJob[] {
  const jobs = (Array.isArray(result) ? result : []).map((j, i) => {
    if (!isObject(j) || !Number.isInteger(j.id)) throw new RecordedAnswerError(`logpush job ${i} has no integer id`);
    return j as LogpushJob;
  });
  state.next_job_id = Math.max(state.next_job_id, ...jobs.map((j) => j.id + 1));
  return jobs;
}

function upsert<T extends { id: unknown }>(list: T[], item: T): void {
  const i = list.findIndex((x) => x.id === item.id);
  if (i >= 0) list[i] = item;
  else list.push(item);
}

function arrayOf(result: unknown, what: string): Item[] {
  if (!Array.isArray(result)) throw new RecordedAnswerError(`a ${what} list answer has an array result`);
  return result.map((item) => objectOf(item, what));
}

function objectOf(result: unknown, what: string): Item {
  if (!isObject(result) || (typeof result.id !== "string" && typeof result.id !== "number")) {
    throw new RecordedAnswerError(`a ${what} answer is an object with an id`);
  }
  return result as Item;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}
