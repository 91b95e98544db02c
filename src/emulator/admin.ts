// The admin API under /__emulator/; each area adds its own endpoints.
// Spec: docs/emulator.md, Admin API.
import type { IncomingMessage, ServerResponse } from "node:http";
import { AREAS } from "./areas/index.js";
import { tokenIdFor, zoneIdFor } from "./ids.js";
import { createEmptyAccount, createEmptyZone } from "./seed.js";
import { BodyError, MAX_ADMIN_BODY_BYTES, parseBody, readBody, sendJson } from "./http-util.js";
import { adminRefusal } from "./admin-guard.js";
import type { EmulatorRuntime } from "./runtime.js";
import { normalizeState, normalizeTokenDetails, StateDocumentError } from "./state-file.js";
import { recordedPath, RecordedAnswerError, stateFromRecorded, type RecordedAnswer } from "./recorded.js";
import type { FaultSpec } from "./faults.js";
import { addListShape, clearListShapes, listShapes } from "./list-shapes.js";
import { ApiFault } from "./types.js";
import {
  AdminError,
  AdminInputError,
  delayMs,
  hostname,
  httpMethod,
  positiveInteger,
  ratio,
  readAdminBody,
  pathPatternRule,
  type FieldRule,
} from "./admin-input.js";
import { PLAN_NAMES, planNameOf } from "./zone-plans.js";

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
  "POST accounts": addAccount,
  "POST recorded": (rt, body, url) => {
    const opts = { zoneId: url.searchParams.get("zone_id") ?? undefined };
    rt.state = stateFromRecorded(rt.state, body as RecordedAnswer, opts);
    return { ok: true, path: recordedPath(body as RecordedAnswer, opts) };
  },
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
    const b = readAdminBody(body, {
      requests: positiveInteger({ required: true }),
      seconds: positiveInteger({ required: true }),
    });
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
  ...Object.fromEntries(
    AREAS.flatMap((area) => Object.entries(area.admin ?? {})).map(([name, handler]): [string, AdminHandler] => [
      name,
      (rt, body, url, arg) => handler({ state: rt.state, clock: rt.clock }, body, url, arg),
    ]),
  ),
};

export async function handleAdmin(
  rt: EmulatorRuntime,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
): Promise<void> {
  const method = (req.method ?? "GET").toUpperCase();
  const [name, arg] = url.pathname
    .slice("/__emulator/".length)
    .split("/")
    .filter((s) => s !== "");
  // Only from this machine, never from a web page (admin-guard.ts); decided on the headers alone.
  const refused = adminRefusal(req);
  if (refused) return sendJson(res, refused.status, { connection: "close" }, { error: refused.error });
  const handler = HANDLERS[`${method} ${name ?? ""}`];
  try {
    if (!handler) throw new AdminError(404, `no admin endpoint ${method} ${url.pathname}`);
    let raw: string;
    try {
      raw = await readBody(req, { maxBytes: MAX_ADMIN_BODY_BYTES, timeoutMs: rt.bodyTimeoutMs });
    } catch (err) {
      if (!(err instanceof BodyError)) throw err;
      return sendJson(res, err.status, { connection: "close" }, { error: err.message });
    }
    // The guard let a body through only as application/json.
    const parsed = parseBody(raw, "application/json");
    if (!parsed.ok) throw new AdminError(400, "the body must be JSON");
    const result = handler(rt, parsed.value, url, arg);
    sendJson(res, 200, {}, result);
  } catch (err) {
    if (err instanceof AdminError) return sendJson(res, err.status, {}, { error: err.message });
    if (err instanceof AdminInputError) return sendJson(res, 400, {}, { error: err.message });
    if (err instanceof StateDocumentError)
      return sendJson(res, 400, {}, { error: err.message, problems: err.problems });
    if (err instanceof ApiFault || err instanceof RecordedAnswerError)
      return sendJson(res, 400, {}, { error: err.message });
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

const ACCOUNT_ID_RULE: FieldRule = {
  type: "string",
  expected: "an account id (32 lower-case hex characters)",
  check: (v: string) => (/^[0-9a-f]{32}$/.test(v) ? undefined : ""),
};

const MAX_ACCOUNT_ZONES = 10_000;

/**
 * Adds an account (an estate's: tests and the bench) with, optionally, its own account-owned token (named in
 * the request log by `token_name`, held to its own `requests`/`seconds`) and `zones` empty enterprise zones
 * `zone-<n>.<domain>` of the account → `{account_id, zones: [{name, id}]}`.
 */
function addAccount(rt: EmulatorRuntime, body: unknown): unknown {
  const b = readAdminBody(body, {
    account_id: { ...ACCOUNT_ID_RULE, required: true },
    token: {
      type: "string",
      expected: "a token: printable characters without spaces",
      check: (v: string) => (/^[\x21-\x7e]+$/.test(v) ? undefined : ""),
    },
    token_name: { type: "string", expected: "a non-empty name", check: (v: string) => (v ? undefined : "") },
    requests: positiveInteger(),
    seconds: positiveInteger(),
    zones: {
      type: "integer",
      min: 0,
      max: MAX_ACCOUNT_ZONES,
      expected: `a whole number from 0 to ${MAX_ACCOUNT_ZONES}`,
    },
    domain: { ...hostname, required: false },
  });
  const id = b.account_id as string;
  const state = rt.state;
  if ((state.accounts ?? []).some((a) => a.id === id)) throw new AdminError(409, `account ${id} already exists`);
  if ((b.requests === undefined) !== (b.seconds === undefined))
    throw new AdminInputError(["requests and seconds go together (the token's own rate limit)"]);
  if (b.token === undefined && (b.token_name !== undefined || b.requests !== undefined))
    throw new AdminInputError(["token_name, requests and seconds describe the account's token: give token too"]);
  const domain = ((b.domain as string | undefined) ?? `acct-${id.slice(0, 8)}.test`).toLowerCase();
  const names = Array.from({ length: (b.zones as number | undefined) ?? 0 }, (_, i) => `zone-${i + 1}.${domain}`);
  const taken = names.filter((n) => state.zones.some((z) => z.id === zoneIdFor(n)));
  if (taken.length > 0) throw new AdminError(409, `zone ${taken[0]} already exists`);
  (state.accounts ??= []).push(createEmptyAccount(id));
  if (typeof b.token === "string") {
    const token = b.token;
    if (!state.credentials.tokens.includes(token)) state.credentials.tokens.push(token);
    state.credentials.token_details = {
      ...state.credentials.token_details,
      [token]: {
        account_id: id,
        ...(b.token_name !== undefined ? { name: b.token_name as string } : {}),
        ...(b.requests !== undefined
          ? { rate_limit: { requests: b.requests as number, seconds: b.seconds as number } }
          : {}),
      },
    };
  }
  const now = new Date(rt.clock()).toISOString();
  const zones = names.map((name) => {
    const zone = createEmptyZone(name, "enterprise", { now });
    zone.account_id = id;
    state.zones.push(zone);
    return { name, id: zone.id };
  });
  return { account_id: id, zones };
}

function addZone(rt: EmulatorRuntime, body: unknown): unknown {
  const b = readAdminBody(body, {
    name: hostname,
    plan: PLAN_RULE,
    waf_migration: WAF_MIGRATION_RULE,
    account_id: ACCOUNT_ID_RULE,
  });
  // The caller names the plan by its legacy name (or its plan id); the zone answers it as an object.
  const plan = planNameOf(b.plan)!;
  const name = (b.name as string).toLowerCase();
  const id = zoneIdFor(name);
  if (rt.state.zones.some((z) => z.id === id)) throw new AdminError(409, `zone ${name} already exists (id ${id})`);
  const wafMode = (b.waf_migration as "previous" | "new" | undefined) ?? "new";
  const zone = createEmptyZone(name, plan, { wafMode, now: new Date(rt.clock()).toISOString() });
  const account = b.account_id as string | undefined;
  if (account !== undefined && account !== rt.state.account_id) {
    zone.account_id = account;
    if (!(rt.state.accounts ?? []).some((a) => a.id === account))
      (rt.state.accounts ??= []).push(createEmptyAccount(account));
  }
  rt.state.zones.push(zone);
  return { id };
}

const TOKEN_FIELDS = [
  "token",
  "status",
  "not_before",
  "expires_on",
  "policies",
  "name",
  "account_id",
  "read_only",
  "rate_limit",
];

function putToken(rt: EmulatorRuntime, body: unknown): unknown {
  if (body === null || typeof body !== "object" || Array.isArray(body))
    throw new AdminInputError(["the body must be a JSON object"]);
  const { token, ...details } = body as Record<string, unknown>;
  const problems: string[] = [];
  if (typeof token !== "string" || !/^[\x21-\x7e]+$/.test(token))
    problems.push("token is required: a string of printable characters without spaces");
  for (const name of Object.keys(details)) {
    if (!TOKEN_FIELDS.includes(name))
      problems.push(`unknown field ${JSON.stringify(name)}; accepted fields: ${TOKEN_FIELDS.join(", ")}`);
  }
  const parsed = normalizeTokenDetails({ token: details }, problems);
  if (problems.length > 0)
    throw new AdminInputError(problems.map((p) => p.replace("credentials.token_details[<a token>].", "")));
  const credentials = rt.state.credentials;
  if (!credentials.tokens.includes(token as string)) credentials.tokens.push(token as string);
  credentials.token_details = { ...credentials.token_details, [token as string]: parsed!.token! };
  return { id: tokenIdFor(token as string) };
}

const FAULT_RULES: Record<keyof FaultSpec, FieldRule> = {
  method: httpMethod,
  path: pathPatternRule,
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
