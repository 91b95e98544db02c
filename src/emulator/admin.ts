// The admin API under /__emulator/: lets tests and scripts read and replace the state, add zones,
// inventories and recorded real answers, inject faults, set latency and the rate limit, read the
// request log and compute the Logpush ownership token. No auth; plain JSON in and out (no envelope); never in the request log.
// Bodies are checked before anything changes (admin-input.ts): nonsense is a 400 naming each wrong field.
import type { IncomingMessage, ServerResponse } from "node:http";
import { addThreatScores, generateInventory } from "./areas/page-shield/inventory.js";
import { md5Hex, tokenIdFor, zoneIdFor } from "./ids.js";
import { ownershipToken } from "./areas/logpush/ownership.js";
import { createEmptyZone } from "./seed.js";
import { parseBody, readBody, sendJson } from "./http-util.js";
import type { EmulatorRuntime } from "./server.js";
import { normalizeState, normalizeTokenDetails, StateDocumentError } from "./state-file.js";
import { recordedPath, RecordedAnswerError, stateFromRecorded, type RecordedAnswer } from "./recorded.js";
import type { FaultSpec } from "./faults.js";
import { addListShape, clearListShapes, listShapes } from "./list-shapes.js";
import { ApiFault } from "./types.js";
import {
  AdminInputError,
  delayMs,
  hostname,
  httpMethod,
  inventoryCount,
  positiveInteger,
  ratio,
  readAdminBody,
  regexSource,
  type FieldRule,
} from "./admin-input.js";
import { PLAN_NAMES, planNameOf } from "./zone-plans.js";

class AdminError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

type AdminHandler = (rt: EmulatorRuntime, body: unknown, url: URL, arg: string | undefined) => unknown;

const HANDLERS: Record<string, AdminHandler> = {
  "GET state": (rt) => rt.state,
  "PUT state": (rt, body) => {
    rt.state = normalizeState(body);
    return { ok: true };
  },
  "POST reset": (rt) => {
    rt.state = rt.initialState();
    rt.faults.clear();
    rt.latencyMs = 0;
    rt.requests.length = 0;
    rt.limiter.clear();
    clearListShapes(rt);
    return { ok: true };
  },
  "POST zones": addZone,
  // A recorded real answer (spec/recorded/*.json) loaded as state; `?zone_id=` names the zone.
  "POST recorded": (rt, body, url) => {
    const opts = { zoneId: url.searchParams.get("zone_id") ?? undefined };
    rt.state = stateFromRecorded(rt.state, body as RecordedAnswer, opts);
    return { ok: true, path: recordedPath(body as RecordedAnswer, opts) };
  },
  "POST inventory": replaceInventory,
  "POST scripts": scriptEvent,
  // A list endpoint answering in one of the real API's possible shapes (list-shapes.ts).
  "GET list-shapes": (rt) => listShapes(rt),
  "POST list-shapes": (rt, body) => addListShape(rt, body),
  "DELETE list-shapes": (rt) => {
    clearListShapes(rt);
    return { ok: true };
  },
  "GET faults": (rt) => rt.faults.list(),
  "POST faults": addFault,
  "DELETE faults": (rt) => {
    rt.faults.clear();
    return { ok: true };
  },
  "PUT latency": (rt, body) => {
    const b = readAdminBody(body, { ms: delayMs({ required: true }) });
    rt.latencyMs = b.ms as number;
    return { ms: rt.latencyMs };
  },
  "PUT rate-limit": (rt, body) => {
    const b = readAdminBody(body, { requests: positiveInteger({ required: true }), seconds: positiveInteger({ required: true }) });
    rt.state.rate_limit = { requests: b.requests as number, seconds: b.seconds as number };
    rt.limiter.clear();
    return rt.state.rate_limit;
  },
  "PUT tokens": putToken,
  "GET requests": (rt) => rt.requests,
  "DELETE requests": (rt) => {
    rt.requests.length = 0;
    return { ok: true };
  },
  "GET ownership": (rt, _body, url, zoneId) => {
    const destination = url.searchParams.get("destination");
    if (!destination) throw new AdminError(400, "the destination query parameter is required");
    if (!zoneId || !rt.state.zones.some((z) => z.id === zoneId)) throw new AdminError(404, `no zone ${zoneId ?? ""}`);
    return { token: ownershipToken(zoneId, destination) };
  },
};

export async function handleAdmin(rt: EmulatorRuntime, req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
  const method = (req.method ?? "GET").toUpperCase();
  const [name, arg] = url.pathname.slice("/__emulator/".length).split("/").filter((s) => s !== "");
  const handler = HANDLERS[`${method} ${name ?? ""}`];
  try {
    if (!handler) throw new AdminError(404, `no admin endpoint ${method} ${url.pathname}`);
    // Any content type: `curl -d` sends form encoding, and the admin API only ever takes JSON.
    const parsed = parseBody(await readBody(req), "application/json");
    if (!parsed.ok) throw new AdminError(400, "the body must be JSON");
    const result = handler(rt, parsed.value, url, arg);
    sendJson(res, 200, {}, result);
  } catch (err) {
    if (err instanceof AdminError) return sendJson(res, err.status, {}, { error: err.message });
    if (err instanceof AdminInputError) return sendJson(res, 400, {}, { error: err.message });
    if (err instanceof StateDocumentError) return sendJson(res, 400, {}, { error: err.message, problems: err.problems });
    if (err instanceof ApiFault || err instanceof RecordedAnswerError) return sendJson(res, 400, {}, { error: err.message });
    throw err;
  }
}

const PLAN_RULE: FieldRule = {
  type: "string",
  required: true,
  expected: `one of ${PLAN_NAMES.join(", ")} (or its plan id)`,
  check: (v: string) => (planNameOf(v) ? undefined : ""),
};

const WAF_MIGRATION_RULE: FieldRule = {
  type: "string",
  expected: '"previous" or "new"',
  check: (v: string) => (v === "previous" || v === "new" ? undefined : ""),
};

function addZone(rt: EmulatorRuntime, body: unknown): unknown {
  const b = readAdminBody(body, { name: hostname, plan: PLAN_RULE, waf_migration: WAF_MIGRATION_RULE });
  // The caller names the plan by its legacy name (or its plan id); the zone answers it as an object.
  const plan = planNameOf(b.plan)!;
  const name = (b.name as string).toLowerCase();
  const id = zoneIdFor(name);
  if (rt.state.zones.some((z) => z.id === id)) throw new AdminError(409, `zone ${name} already exists (id ${id})`);
  const wafMode = (b.waf_migration as "previous" | "new" | undefined) ?? "new";
  rt.state.zones.push(createEmptyZone(name, plan, { wafMode, now: new Date(rt.clock()).toISOString() }));
  return { id };
}

const TOKEN_FIELDS = ["token", "status", "not_before", "expires_on", "policies"];

/** Accepts `token` (added if new) with what the token check and `GET user/tokens/{id}` should say of it. */
function putToken(rt: EmulatorRuntime, body: unknown): unknown {
  if (body === null || typeof body !== "object" || Array.isArray(body)) throw new AdminInputError(["the body must be a JSON object"]);
  const { token, ...details } = body as Record<string, unknown>;
  const problems: string[] = [];
  if (typeof token !== "string" || !/^[\x21-\x7e]+$/.test(token)) problems.push("token is required: a string of printable characters without spaces");
  for (const name of Object.keys(details)) {
    if (!TOKEN_FIELDS.includes(name)) problems.push(`unknown field ${JSON.stringify(name)}; accepted fields: ${TOKEN_FIELDS.join(", ")}`);
  }
  const parsed = normalizeTokenDetails({ token: details }, problems);
  if (problems.length > 0) throw new AdminInputError(problems.map((p) => p.replace("credentials.token_details[<a token>].", "")));
  const credentials = rt.state.credentials;
  if (!credentials.tokens.includes(token as string)) credentials.tokens.push(token as string);
  credentials.token_details = { ...credentials.token_details, [token as string]: parsed!.token! };
  return { id: tokenIdFor(token as string) };
}

function replaceInventory(rt: EmulatorRuntime, body: unknown): unknown {
  const b = readAdminBody(body, {
    zone_id: { type: "string", required: true, expected: "a zone id" },
    scripts: inventoryCount,
    connections: inventoryCount,
    cookies: inventoryCount,
    malicious_ratio: ratio({ required: true }),
    seed: { type: "integer", expected: "an integer" },
    payment_pages: { type: "boolean", expected: "true or false" },
    now: TIMESTAMP_RULE,
  });
  const zone = rt.state.zones.find((z) => z.id === b.zone_id);
  if (!zone) throw new AdminError(404, `no zone ${String(b.zone_id)}`);
  const inv = generateInventory({
    paymentPages: b.payment_pages === true,
    // Every item is dated back from `now`, by default the emulator's clock, so that an audit's
    // --stale-days window sees them as current.
    now: b.now === undefined ? rt.clock() : Date.parse(b.now as string),
    zoneId: zone.id,
    zoneName: zone.name,
    scripts: b.scripts as number,
    connections: b.connections as number,
    cookies: b.cookies as number,
    maliciousRatio: b.malicious_ratio as number,
    seed: b.seed as number | undefined,
  });
  Object.assign(zone, inv);
  return { scripts: inv.scripts.length, connections: inv.connections.length, cookies: inv.cookies.length };
}

/** What a fault may say; README "Fault injection". */
const FAULT_RULES: Record<keyof FaultSpec, FieldRule> = {
  method: httpMethod,
  path: regexSource,
  // The fault answers the error envelope: an error status, never a success or an informational one.
  status: { type: "integer", min: 400, max: 599, expected: "an HTTP error status from 400 to 599" },
  code: { type: "integer", min: 0, expected: "a whole number (a Cloudflare error code)" },
  message: { type: "string", expected: "a string" },
  retry_after: { type: "integer", min: 0, expected: "a whole number of seconds, 0 or more" },
  delay_ms: delayMs(),
  reset: { type: "boolean", expected: "true or false" },
  count: positiveInteger(),
  probability: ratio(),
  seed: { type: "integer", expected: "an integer" },
  after: { type: "boolean", expected: "true or false" },
};

function addFault(rt: EmulatorRuntime, body: unknown): unknown {
  const b = readAdminBody(body, FAULT_RULES) as FaultSpec;
  if (b.status === undefined && !b.reset && !b.delay_ms) {
    throw new AdminError(400, "a fault needs status, reset: true or delay_ms above 0");
  }
  return { id: rt.faults.add(b).id };
}

const TIMESTAMP_RULE: FieldRule = {
  type: "string",
  expected: "an ISO 8601 timestamp",
  check: (v: string) => (Number.isNaN(Date.parse(v)) ? "" : undefined),
};

const SCRIPT_EVENTS = ["seen", "changed", "unseen"] as const;

function isoSeconds(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19)}Z`;
}

/**
 * What happens to one script of a zone's Page Shield inventory, for tests of `audit` against a script
 * inventory: `seen` (the script appears on `page`, or is seen again: last_seen_at = `at`), `changed` (a
 * new version with another hash, fetched at `at`, later than the previous one) or `unseen` (last seen
 * `days_ago` days before `at`, default 120, and inactive). `at` defaults to the emulator's clock.
 * Hashes of new scripts and versions are derived from the zone, URL and version number.
 */
function scriptEvent(rt: EmulatorRuntime, body: unknown): unknown {
  const b = readAdminBody(body, {
    zone_id: { type: "string", required: true, expected: "a zone id" },
    event: {
      type: "string",
      required: true,
      expected: SCRIPT_EVENTS.join(", "),
      check: (v: string) => ((SCRIPT_EVENTS as readonly string[]).includes(v) ? undefined : ""),
    },
    url: { type: "string", required: true, expected: "an http(s) URL", check: (v: string) => (/^https?:\/\/\S+$/.test(v) ? undefined : "") },
    page: { type: "string", expected: "a page URL such as example.com/checkout" },
    hash: { type: "string", expected: "64 hex characters", check: (v: string) => (/^[0-9a-f]{64}$/.test(v) ? undefined : "") },
    at: TIMESTAMP_RULE,
    days_ago: { type: "integer", min: 0, max: 3650, expected: "a whole number of days from 0 to 3650" },
  });
  const zone = rt.state.zones.find((z) => z.id === b.zone_id);
  if (!zone) throw new AdminError(404, `no zone ${String(b.zone_id)}`);
  const url = b.url as string;
  const atMs = b.at === undefined ? rt.clock() : Date.parse(b.at as string);
  const at = isoSeconds(atMs);
  let script = zone.scripts.find((s) => s.url === url);
  const hashOf = (n: number) => (b.hash as string | undefined) ?? md5Hex(`${zone.id}|${url}|v${n}`) + md5Hex(`${zone.id}|${url}|v${n}|2`);
  if (!script) {
    if (b.event !== "seen") throw new AdminError(404, `no script ${url} in zone ${zone.id}; make it appear first (event seen)`);
    const page = (b.page as string | undefined) ?? `${zone.name}/checkout`;
    const hash = hashOf(1);
    script = {
      id: md5Hex(`${zone.id}|script|${url}`),
      url,
      added_at: `${at.slice(0, 19)}.5Z`,
      first_seen_at: at,
      last_seen_at: at,
      host: page.split("/")[0] ?? zone.name,
      domain_reported_malicious: false,
      url_reported_malicious: false,
      malicious_url_categories: [],
      first_page_url: page,
      status: "active",
      url_contains_cdn_cgi_path: false,
      hash,
      js_integrity_score: 80,
      obfuscation_score: 80,
      dataflow_score: 80,
      fetched_at: at,
      page_urls: [page],
      versions: [{ hash, js_integrity_score: 80, fetched_at: at }],
    };
    addThreatScores(script, false);
    zone.scripts.push(script);
    return script;
  }
  const pages = Array.isArray(script.page_urls) ? (script.page_urls as string[]) : [];
  if (b.page !== undefined && !pages.includes(b.page as string)) script.page_urls = [...pages, b.page as string];
  if (b.event === "seen") {
    script.last_seen_at = at;
    script.status = "active";
  } else if (b.event === "changed") {
    const versions = Array.isArray(script.versions) ? (script.versions as Array<Record<string, unknown>>) : [];
    const previous = Math.max(0, ...versions.map((v) => Date.parse(String(v.fetched_at))).filter((t) => !Number.isNaN(t)));
    const fetched = isoSeconds(Math.max(atMs, previous + 1000));
    const hash = hashOf(versions.length + 1);
    script.versions = [{ hash, js_integrity_score: script.js_integrity_score ?? 80, fetched_at: fetched }, ...versions];
    script.hash = hash;
    script.fetched_at = fetched;
    script.last_seen_at = fetched;
    script.status = "active";
  } else {
    script.last_seen_at = isoSeconds(atMs - ((b.days_ago as number | undefined) ?? 120) * 86_400_000);
    script.status = "inactive";
    if (typeof script.first_seen_at === "string" && script.first_seen_at > (script.last_seen_at as string)) script.first_seen_at = script.last_seen_at;
  }
  return script;
}
