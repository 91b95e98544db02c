// The admin API under /__emulator/: lets tests and scripts read and replace the state, add zones,
// inventories and recorded real answers, inject faults, set latency and the rate limit, read the
// request log and compute the Logpush ownership token. No auth; plain JSON in and out (no envelope); never in the request log.
import type { IncomingMessage, ServerResponse } from "node:http";
import { generateInventory } from "./inventory.js";
import { zoneIdFor } from "./ids.js";
import { ownershipToken } from "./ownership.js";
import { createEmptyZone } from "./seed.js";
import { parseBody, readBody, sendJson } from "./http-util.js";
import type { EmulatorRuntime } from "./server.js";
import { normalizeState, StateDocumentError } from "./state-file.js";
import { recordedPath, RecordedAnswerError, stateFromRecorded, type RecordedAnswer } from "./recorded.js";
import type { FaultSpec } from "./faults.js";
import { ApiFault } from "./types.js";
import { requireFields } from "./validate.js";
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
  "GET faults": (rt) => rt.faults.list(),
  "POST faults": addFault,
  "DELETE faults": (rt) => {
    rt.faults.clear();
    return { ok: true };
  },
  "PUT latency": (rt, body) => {
    const b = checked(body, { ms: { type: "integer", required: true } });
    if ((b.ms as number) < 0) throw new AdminError(400, "ms must be 0 or more");
    rt.latencyMs = b.ms as number;
    return { ms: rt.latencyMs };
  },
  "PUT rate-limit": (rt, body) => {
    const b = checked(body, { requests: { type: "integer", required: true }, seconds: { type: "integer", required: true } });
    if ((b.requests as number) < 1 || (b.seconds as number) < 1) throw new AdminError(400, "requests and seconds must be at least 1");
    rt.state.rate_limit = { requests: b.requests as number, seconds: b.seconds as number };
    rt.limiter.clear();
    return rt.state.rate_limit;
  },
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
    if (err instanceof StateDocumentError) return sendJson(res, 400, {}, { error: err.message, problems: err.problems });
    if (err instanceof ApiFault || err instanceof RecordedAnswerError) return sendJson(res, 400, {}, { error: err.message });
    throw err;
  }
}

function checked(body: unknown, fields: Parameters<typeof requireFields>[1]): Record<string, unknown> {
  return requireFields(body, fields);
}

function addZone(rt: EmulatorRuntime, body: unknown): unknown {
  const b = checked(body, {
    name: { type: "string", required: true },
    plan: { type: "string", required: true },
    waf_migration: { type: "string", enum: ["previous", "new"] },
  });
  // The caller names the plan by its legacy name (or its plan id); the zone answers it as an object.
  const plan = planNameOf(b.plan);
  if (!plan) throw new AdminError(400, `plan must be one of ${PLAN_NAMES.join(", ")} (or its plan id), got ${JSON.stringify(b.plan)}`);
  const name = (b.name as string).toLowerCase();
  if (!/^[a-z0-9-]+(\.[a-z0-9-]+)+$/.test(name)) throw new AdminError(400, `${name} is not a domain name`);
  const id = zoneIdFor(name);
  if (rt.state.zones.some((z) => z.id === id)) throw new AdminError(409, `zone ${name} already exists (id ${id})`);
  const wafMode = (b.waf_migration as "previous" | "new" | undefined) ?? "new";
  rt.state.zones.push(createEmptyZone(name, plan, { wafMode, now: new Date().toISOString() }));
  return { id };
}

function replaceInventory(rt: EmulatorRuntime, body: unknown): unknown {
  const count = { type: "integer", required: true } as const;
  const b = checked(body, {
    zone_id: { type: "string", required: true },
    scripts: count,
    connections: count,
    cookies: count,
    malicious_ratio: { type: "number", required: true },
    seed: { type: "integer" },
  });
  const zone = rt.state.zones.find((z) => z.id === b.zone_id);
  if (!zone) throw new AdminError(404, `no zone ${String(b.zone_id)}`);
  const ratio = b.malicious_ratio as number;
  if (ratio < 0 || ratio > 1) throw new AdminError(400, "malicious_ratio must be between 0 and 1");
  for (const k of ["scripts", "connections", "cookies"] as const) {
    const n = b[k] as number;
    if (n < 0 || n > 1_000_000) throw new AdminError(400, `${k} must be between 0 and 1000000`);
  }
  const inv = generateInventory({
    zoneId: zone.id,
    zoneName: zone.name,
    scripts: b.scripts as number,
    connections: b.connections as number,
    cookies: b.cookies as number,
    maliciousRatio: ratio,
    seed: b.seed as number | undefined,
  });
  Object.assign(zone, inv);
  return { scripts: inv.scripts.length, connections: inv.connections.length, cookies: inv.cookies.length };
}

function addFault(rt: EmulatorRuntime, body: unknown): unknown {
  const b = checked(body, {
    method: { type: "string", enum: ["GET", "POST", "PUT", "PATCH", "DELETE", "get", "post", "put", "patch", "delete"] },
    path: { type: "string" },
    status: { type: "integer" },
    code: { type: "integer" },
    message: { type: "string" },
    retry_after: { type: "integer" },
    delay_ms: { type: "integer" },
    reset: { type: "boolean" },
    count: { type: "integer" },
    probability: { type: "number" },
    seed: { type: "integer" },
    after: { type: "boolean" },
  }) as FaultSpec;
  if (b.status !== undefined && (b.status < 400 || b.status > 599)) throw new AdminError(400, "status must be 400–599");
  if (b.probability !== undefined && (b.probability < 0 || b.probability > 1)) throw new AdminError(400, "probability must be 0–1");
  if (b.status === undefined && !b.reset && !b.delay_ms) {
    throw new AdminError(400, "a fault needs status, reset or delay_ms");
  }
  try {
    return { id: rt.faults.add(b).id };
  } catch (err) {
    throw new AdminError(400, `path is not a valid regular expression: ${(err as Error).message}`);
  }
}
