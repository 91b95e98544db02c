// The emulator's HTTP front for /client/v4/ and /__emulator/.
// Spec: docs/emulator.md.
import { createServer, STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { randomBytes } from "node:crypto";
import { handleAdmin } from "./admin.js";
import {
  failureEnvelope,
  internalFault,
  routeFault,
  successEnvelope,
  throttledFault,
  authenticationFault,
  unknownAccountFault,
  unknownZoneFault,
} from "./envelope.js";
import { authenticate, credentialName, limitOf, reaches, readOnlyCredential } from "./auth.js";
import type { Fault } from "./faults.js";
import { rateLimitHeaders, SlidingWindowLimiter, type RateDecision } from "./rate-limit.js";
import type { EmulatorRuntime } from "./runtime.js";
import { ApiFault, type EmulatorState, type RequestLogEntry, type RouteResponse } from "./types.js";
import { BodyError, MAX_API_BODY_BYTES, parseBody, readBody, sendJson, sleep, type ParsedBody } from "./http-util.js";
import { routedPath, shapeAnswer } from "./list-shapes.js";
import { isoOf } from "./clock.js";

const API_PREFIX = "/client/v4/";
const ADMIN_PREFIX = "/__emulator";

export function createEmulatorServer(rt: EmulatorRuntime): Server {
  return createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://emulator.local");
    const respond = url.pathname.startsWith(ADMIN_PREFIX)
      ? handleAdmin(rt, req, res, url)
      : handleApi(rt, req, res, url);
    respond.catch((err: unknown) => {
      if (!res.headersSent) sendJson(res, 500, {}, failureEnvelope(internalFault(err).errors));
      else res.destroy();
    });
  });
}

interface Outcome {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

async function handleApi(rt: EmulatorRuntime, req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
  const method = (req.method ?? "GET").toUpperCase();
  const path = url.pathname.startsWith(API_PREFIX)
    ? url.pathname.slice(API_PREFIX.length).replace(/\/+$/, "")
    : undefined;
  const entry: RequestLogEntry = {
    method,
    path: url.pathname,
    query: Object.fromEntries(url.searchParams),
    status: 0,
    body: null,
  };
  let raw: string;
  try {
    // Bounded before anything else (auth included): at most MAX_API_BODY_BYTES, within the body timeout.
    raw = await readBody(req, { maxBytes: MAX_API_BODY_BYTES, timeoutMs: rt.bodyTimeoutMs });
  } catch (err) {
    if (!(err instanceof BodyError)) throw err;
    rt.requests.push(entry);
    entry.status = err.status;
    sendJson(res, err.status, { connection: "close" }, failureEnvelope([{ code: 10001, message: err.message }]));
    return;
  }
  const parsed = parseBody(raw, req.headers["content-type"]);
  entry.body = parsed.ok ? (parsed.value ?? null) : null;
  rt.requests.push(entry);
  // The API's Date header, from the emulator's clock (Node would send the system's).
  res.setHeader("date", new Date(rt.clock()).toUTCString());
  if (rt.latencyMs > 0) await sleep(rt.latencyMs);

  const apiPath = path ?? url.pathname.replace(/^\/+/, "");
  let rate = SlidingWindowLimiter.idle(rt.state.rate_limit);
  const before = rt.faults.take(method, apiPath, "before");
  if (before) {
    await applyFaultDelay(before);
    if (before.reset) return destroy(res);
    if (before.status !== undefined) return send(res, entry, withRateHeaders(faultOutcome(before), rate));
  }

  let outcome: Outcome;
  try {
    if (path === undefined) throw routeFault(404, apiPath);
    const credential = authenticate(req.headers, rt.state.credentials, path, rt.clock());
    entry.credential = credentialName(rt.state, credential);
    rate = rt.limiter.take(credential, limitOf(rt.state, credential));
    if (!rate.allowed) throw throttledFault();
    // A list shape asked for on the admin API (list-shapes.ts) cuts the answer anew; none by default.
    const routed = routedPath(rt, path);
    outcome = await runRoute(rt, method, routed, url.searchParams, parsed, credential);
    if (outcome.status < 300 && outcome.body !== undefined) {
      const body = outcome.body as Parameters<typeof shapeAnswer>[4];
      outcome = {
        ...outcome,
        body: await shapeAnswer(
          rt,
          method,
          path,
          url.searchParams,
          body,
          async (q) => (await runRoute(rt, "GET", routed, q, parsed, credential)).body as typeof body,
        ),
      };
    }
  } catch (err) {
    outcome = faultToOutcome(err, rate);
  }
  const after = rt.faults.take(method, apiPath, "after");
  if (after) {
    await applyFaultDelay(after);
    if (after.reset) return destroy(res);
    if (after.status !== undefined) outcome = faultOutcome(after);
  }
  send(res, entry, withRateHeaders(outcome, rate));
}

async function runRoute(
  rt: EmulatorRuntime,
  method: string,
  path: string,
  query: URLSearchParams,
  parsed: ParsedBody,
  credential?: string,
): Promise<Outcome> {
  const { route, params } = rt.router.match(method, path, query);
  if (!parsed.ok) throw parsed.fault;
  const state = rt.state;
  if (params.account_id !== undefined && !knownAccount(state, params.account_id)) throw unknownAccountFault();
  // An account-owned token reaches its own account's objects and zones only.
  if (credential !== undefined && !reaches(state, credential, params)) throw unknownAccountFault();
  // A read-only token (`read_only`) is refused every write, as a token without an Edit permission is.
  if (credential !== undefined && method !== "GET" && readOnlyCredential(state, credential))
    throw authenticationFault();
  let zone;
  if (params.zone_id !== undefined) {
    zone = state.zones.find((z) => z.id === params.zone_id);
    if (!zone) throw unknownZoneFault();
  }
  const answer: RouteResponse = await route.handler({
    method,
    path,
    params,
    query,
    body: parsed.value,
    state,
    zone,
    now: () => isoOf(rt.clock()),
    credential,
  });
  if (answer.empty) return { status: answer.status ?? 204 };
  return { status: answer.status ?? 200, body: successEnvelope(answer.result, answer.result_info) };
}

/** The seed's account, or one a recorded answer brought in (state.accounts). */
function knownAccount(state: EmulatorState, id: string): boolean {
  return id === state.account_id || (state.accounts ?? []).some((a) => a.id === id);
}

function faultToOutcome(err: unknown, rate: RateDecision): Outcome {
  const fault = err instanceof ApiFault ? err : internalFault(err);
  const headers: Record<string, string> = {};
  if (fault.status === 429) headers["retry-after"] = String(rate.resetSeconds);
  return { status: fault.status, body: failureEnvelope(fault.errors), headers };
}

function faultOutcome(f: Fault): Outcome {
  const status = f.status ?? 500;
  const code = f.code ?? (status === 429 ? 971 : 10001);
  const message =
    f.message ??
    (status === 429 ? "Please wait and consider throttling your request speed" : (STATUS_CODES[status] ?? "Error"));
  const headers: Record<string, string> = {};
  const retryAfter = f.retry_after ?? (status === 429 ? 1 : undefined);
  if (retryAfter !== undefined) headers["retry-after"] = String(retryAfter);
  return { status, body: failureEnvelope([{ code, message }]), headers };
}

async function applyFaultDelay(f: Fault): Promise<void> {
  if (f.delay_ms) await sleep(f.delay_ms);
}

function withRateHeaders(outcome: Outcome, rate: RateDecision): Outcome {
  return { ...outcome, headers: { ...rateLimitHeaders(rate), ...outcome.headers } };
}

function destroy(res: ServerResponse): void {
  // No answer at all: the client sees a reset connection (status 0 stays in the log).
  res.socket?.resetAndDestroy?.();
  res.destroy();
}

function send(res: ServerResponse, entry: RequestLogEntry, outcome: Outcome): void {
  entry.status = outcome.status;
  const headers = { "cf-ray": `${randomBytes(8).toString("hex")}-EMU`, ...outcome.headers };
  if (outcome.body === undefined) {
    res.writeHead(outcome.status, headers).end();
    return;
  }
  sendJson(res, outcome.status, headers, outcome.body);
}
