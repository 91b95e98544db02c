// An HTTP answer unwrapped, or an ApiError a user can act on (a proxy's HTML page, an empty body, a 200
// with success: false); a failed connection as a NetworkError. Spec: docs/connecting.md, API errors.
import { ApiError, NetworkError, type ApiErrorDetail } from "../errors.js";
import {
  BODY_TOO_LARGE_CODE,
  ENCODED_BODY_CODE,
  isIdempotent,
  isNotSentError,
  isRetryableStatus,
  isTimeoutError,
} from "./retry.js";
import { formatMs } from "./rate-limiter.js";
import { clip } from "../redact.js";

export interface ResponseContext {
  method: string;
  path: string;
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  retries: number;
  retryAfterTooLongMs?: number;
  maxRetryAfterMs?: number;
  retryAfterMs?: number;
  auth: "token" | "key";
  redact: (text: string) => string;
  permissionHint?: PermissionHint;
  idShapes?: readonly IdShape[];
}

export type PermissionHint = (method: string, path: string) => string | undefined;

export interface IdShape {
  collection: string;
  id: RegExp;
}

const BASE_ID_SHAPES: readonly IdShape[] = [
  { collection: "zones", id: /^([0-9a-f]{32}|phases)$/ },
  { collection: "accounts", id: /^([0-9a-f]{32}|phases)$/ },
];

export interface Unwrapped {
  result: unknown;
  result_info?: Record<string, unknown>;
}

export function unwrapResponse(ctx: ResponseContext): Unwrapped {
  const ok = ctx.status >= 200 && ctx.status < 300;
  const text = ctx.body.trim();
  // A read always answers an envelope: an empty 200 to a GET is a broken answer, not "nothing".
  if (ok && (ctx.status === 204 || (text === "" && ctx.method !== "GET"))) return { result: null };
  if (text === "") throw apiError(ctx, [], "an empty body");

  let json: unknown;
  let inexact: string[];
  try {
    ({ value: json, inexact } = parseJsonExact(text));
  } catch {
    throw apiError(ctx, [], describeNonJson(ctx));
  }
  if (inexact.length > 0) {
    throw new ApiError(
      `${ctx.method} ${ctx.path}: the answer holds id ${inexact.join(", ")}, beyond the integers this ` +
        `Node.js (${process.version}) reads exactly (2^53); ` +
        (ctx.method === "GET"
          ? "zoneform refuses it rather than act on a rounded id, and changed nothing. "
          : `the ${ctx.method} was answered with success, but zoneform will not act on a rounded id. `) +
        "Run zoneform on Node.js 22 or later, which reads such ids exactly",
      info(ctx, [], false, true),
    );
  }
  if (!isEnvelope(json)) {
    if (ok) {
      throw new ApiError(
        `${ctx.method} ${ctx.path}: the answer (HTTP ${ctx.status}) is JSON but not a Cloudflare API envelope ` +
          `(no boolean "success"); is --api-url / CLOUDFLARE_API_BASE_URL the API base, e.g. ` +
          `https://api.cloudflare.com/client/v4?`,
        info(ctx, [], false, false),
      );
    }
    throw apiError(ctx, [], "JSON that is not a Cloudflare API envelope");
  }
  const errors = readErrors(json.errors, ctx.redact);
  if (ok && json.success && ctx.method === "GET" && (typeof json.result !== "object" || json.result === null)) {
    throw new ApiError(
      `${ctx.method} ${ctx.path}: the API answered HTTP ${ctx.status} without a usable "result" (got ` +
        `${json.result === null || json.result === undefined ? "none" : typeof json.result})`,
      info(ctx, errors, false, true),
    );
  }
  if (ok && json.success) {
    const info = json.result_info;
    return {
      result: json.result === undefined ? null : json.result,
      result_info:
        info && typeof info === "object" && !Array.isArray(info) ? (info as Record<string, unknown>) : undefined,
    };
  }
  if (ok) {
    throw new ApiError(
      `${ctx.method} ${ctx.path}: the API reported a failure with HTTP ${ctx.status}: ` +
        `${describeErrors(errors) || "no error given"}`,
      info(ctx, errors, false, true),
    );
  }
  throw apiError(ctx, errors);
}

export const JSON_SOURCE_TEXT: boolean = (() => {
  let seen = false;
  JSON.parse("1", (_key: string, value: unknown, context?: { source?: unknown }) => {
    seen = typeof context?.source === "string";
    return value;
  });
  return seen;
})();

const ID_KEY = /^(id|.*_id)$/;
const LONG_DIGITS = /\d{16}/;

export function parseJsonExact(text: string): { value: unknown; inexact: string[] } {
  if (!LONG_DIGITS.test(text)) return { value: JSON.parse(text), inexact: [] };
  let unsafe = false;
  const value = JSON.parse(text, (key: string, v: unknown, context?: { source?: string }) => {
    if (typeof v !== "number" || Number.isSafeInteger(v) || !ID_KEY.test(key)) return v;
    const source = context?.source;
    if (typeof source === "string") return /^-?\d+$/.test(source) ? source : v;
    unsafe = true;
    return v;
  }) as unknown;
  if (!unsafe) return { value, inexact: [] };
  const inexact = [...text.matchAll(/"((?:[^"\\]*_)?id)"\s*:\s*(-?\d{16,})(?![\d.eE])/g)]
    .map((m) => m[2]!)
    .filter((d) => !Number.isSafeInteger(Number(d)));
  return { value, inexact: inexact.length > 0 ? [...new Set(inexact)] : ["(an id beyond 2^53)"] };
}

interface EnvelopeJson {
  success: boolean;
  result?: unknown;
  result_info?: unknown;
  errors?: unknown;
}

function isEnvelope(v: unknown): v is EnvelopeJson {
  return (
    typeof v === "object" &&
    v !== null &&
    !Array.isArray(v) &&
    typeof (v as { success?: unknown }).success === "boolean"
  );
}

function readErrors(raw: unknown, redact: (s: string) => string = (s) => s): ApiErrorDetail[] {
  if (!Array.isArray(raw)) return [];
  const out: ApiErrorDetail[] = [];
  for (const e of raw) {
    if (typeof e === "string") {
      out.push({ message: redact(e) });
      continue;
    }
    if (!e || typeof e !== "object") continue;
    const o = e as Record<string, unknown>;
    const detail: ApiErrorDetail = { message: redact(typeof o.message === "string" ? o.message : JSON.stringify(o)) };
    const code =
      typeof o.code === "number"
        ? o.code
        : typeof o.code === "string" && /^\d+$/.test(o.code)
          ? Number(o.code)
          : undefined;
    if (code !== undefined) detail.code = code;
    const source = o.source as { pointer?: unknown } | undefined;
    if (source && typeof source.pointer === "string") detail.pointer = source.pointer;
    const doc = documentationUrl(o.documentation_url, redact);
    if (doc !== undefined) detail.documentation_url = doc;
    out.push(detail);
    // Header errors carry their reason in error_chain (6003 → 6111 "invalid format for Authorization").
    if (Array.isArray(o.error_chain)) {
      for (const c of o.error_chain as Array<Record<string, unknown>>) {
        if (c && typeof c.message === "string")
          out.push({ message: redact(c.message), ...(typeof c.code === "number" ? { code: c.code } : {}) });
      }
    }
  }
  return out;
}

const MAX_DOCUMENTATION_URL = 300;

function documentationUrl(raw: unknown, redact: (s: string) => string = (s) => s): string | undefined {
  if (typeof raw !== "string" || raw.length > MAX_DOCUMENTATION_URL || !/^https:\/\/[\x21-\x7e]+$/.test(raw))
    return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return undefined;
  }
  if (url.protocol !== "https:" || url.username !== "" || url.password !== "" || url.hostname === "") return undefined;
  // A URL redaction would change holds something secret-shaped: not shown at all.
  return redact(raw) === raw ? raw : undefined;
}

export function describeErrors(errors: ApiErrorDetail[]): string {
  const text = errors
    .map((e) => `${e.message}${e.code !== undefined ? ` [${e.code}]` : ""}${e.pointer ? ` at ${e.pointer}` : ""}`)
    .join("; ");
  const pages = [...new Set(errors.map((e) => e.documentation_url).filter((u): u is string => u !== undefined))];
  return pages.length > 0 ? `${text}; see ${pages.join(", ")}` : text;
}

function info(ctx: ResponseContext, errors: ApiErrorDetail[], retryable: boolean, envelope: boolean): ApiError["info"] {
  return {
    status: ctx.status,
    method: ctx.method,
    path: ctx.path,
    errors,
    retryable,
    envelope,
    ...(ctx.retries > 0 ? { retries: ctx.retries } : {}),
    ...(ctx.retryAfterMs !== undefined ? { retryAfterMs: ctx.retryAfterMs } : {}),
  };
}

const ZONE_ID_PATH = /^zones\/([^/]+)(\/|$)/;
const ROUTING_CODES = new Set([7000, 7003, 1001, 1003, 1049]);
const AUTH_CODES = new Set([9106, 9103, 9107, 6003, 6111, 6100, 6101, 6102, 6103, 10001]);

function apiError(ctx: ResponseContext, errors: ApiErrorDetail[], oddBody?: string): ApiError {
  const { method, path, status } = ctx;
  const codes = new Set(errors.map((e) => e.code).filter((c): c is number => c !== undefined));
  const cf =
    errors.length > 0 ? ` (Cloudflare: ${describeErrors(errors)})` : oddBody ? ` (the answer was ${oddBody})` : "";
  const after = ctx.retries > 0 ? ` after ${ctx.retries} ${ctx.retries === 1 ? "retry" : "retries"}` : "";
  const write = !isIdempotent(method);
  const retryable = isRetryableStatus(status) && (!write || status === 429);
  const zoneMatch = ZONE_ID_PATH.exec(path);
  let message: string;

  if (status === 401 || (status === 400 && [...codes].some((c) => AUTH_CODES.has(c)))) {
    message =
      `authentication failed for ${method} ${path}${cf}: check ` +
      (ctx.auth === "token" ? "CLOUDFLARE_API_TOKEN" : "CLOUDFLARE_EMAIL and CLOUDFLARE_API_KEY") +
      " (an API token goes in CLOUDFLARE_API_TOKEN; a global API key needs CLOUDFLARE_EMAIL as well)";
  } else if (status === 403) {
    const who = ctx.auth === "token" ? "the API token" : "the account of CLOUDFLARE_EMAIL / CLOUDFLARE_API_KEY";
    message = refusalMessage({
      method,
      path,
      status,
      errors,
      needs: ctx.permissionHint?.(method, path),
      state: `${who} lacks it${ctx.auth === "token" ? " (or the token is expired or disabled)" : ""}`,
    });
  } else if (
    status === 404 &&
    zoneMatch &&
    !oddBody &&
    (codes.size === 0 || [...codes].some((c) => ROUTING_CODES.has(c)) || zoneMatch[2] === "")
  ) {
    const who = ctx.auth === "token" ? "this token" : "these credentials";
    message =
      `zone ${zoneMatch[1]} not found or not accessible with ${who}: no such zone, or ${who} cannot see it ` +
      `(check the zone id, ` +
      (ctx.auth === "token"
        ? "and that the token's zone resources include the zone"
        : "and the account the zone is in") +
      "; " +
      `${method} ${path}${errors.length > 0 ? `; Cloudflare: ${describeErrors(errors)}` : ""})`;
  } else if ((status === 400 || status === 404) && (codes.has(7003) || codes.has(7000))) {
    const bad = malformedSegment(path, [...BASE_ID_SHAPES, ...(ctx.idShapes ?? [])]);
    message =
      `malformed id${bad ? ` "${bad}"` : ""} in ${method} ${path}${cf}: Cloudflare ids are 32 ` +
      `lower-case hex characters`;
  } else if (status === 429) {
    if (ctx.retryAfterTooLongMs !== undefined) {
      message =
        `Cloudflare rate limit hit on ${method} ${path}: the API asks to wait ` +
        `${formatMs(ctx.retryAfterTooLongMs)} before retrying, ` +
        `longer than the ${formatMs(ctx.maxRetryAfterMs ?? 60_000)} zoneform waits; try again later ` +
        `(the budget is shared with the dashboard and other tools using this token)`;
    } else {
      message =
        `Cloudflare rate limit hit (HTTP 429) on ${method} ${path}${after}${cf}; ` +
        `lower --rate-limit or --parallelism, or run again later`;
    }
  } else if (status >= 500) {
    message = `Cloudflare answered HTTP ${status} for ${method} ${path}${after}${cf}`;
    if (write)
      message +=
        `; the ${method} may or may not have been carried out: run \`zoneform plan\` again to see ` +
        `the live state before retrying`;
    else message += "; the API may be having trouble, try again later";
    if (oddBody) message += " (if this persists, check --api-url / CLOUDFLARE_API_BASE_URL)";
  } else if (status === 404) {
    message = `not found: ${method} ${path}${cf}${oddBody ? "; is --api-url / CLOUDFLARE_API_BASE_URL right?" : ""}`;
  } else {
    message = `${method} ${path} was rejected with HTTP ${status}${after}${cf}`;
    if (oddBody) message += "; is --api-url / CLOUDFLARE_API_BASE_URL right?";
  }
  return new ApiError(message, info(ctx, errors, retryable, oddBody === undefined));
}

export function refusalMessage(r: {
  method: string;
  path: string;
  status: number;
  errors: ApiErrorDetail[];
  needs?: string;
  state: string;
}): string {
  const cf = r.errors.length > 0 ? `; Cloudflare: ${describeErrors(r.errors)}` : "";
  const needs = r.needs ? `${r.method} ${r.path} needs ${r.needs}` : `${r.method} ${r.path} needs a permission`;
  return `${needs}, and was refused (HTTP ${r.status}${cf}): ${r.state}`;
}

function malformedSegment(path: string, shapes: readonly IdShape[]): string | undefined {
  const segs = path.split("/");
  for (let i = 1; i < segs.length; i++) {
    const shape = shapes.find((s) => s.collection === segs[i - 1]);
    if (shape && !shape.id.test(segs[i]!)) return segs[i];
  }
  return undefined;
}

function describeNonJson(ctx: ResponseContext): string {
  const ct = headerValue(ctx.headers, "content-type") ?? "no content-type";
  const body = ctx.body;
  const title = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(body)?.[1];
  // Redacted whole, then cut: a secret the body echoes is hidden before any piece of it could be kept.
  const snippet = clip(ctx.redact((title ?? body.replace(/<[^>]+>/g, " ")).replace(/\s+/g, " ").trim()), 120);
  return `not JSON (${ct.split(";")[0]}${snippet ? `: "${snippet}"` : ""})`;
}

function headerValue(headers: ResponseContext["headers"], name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

export interface FailureContext {
  method: string;
  path: string;
  origin: string;
  code: string | undefined;
  cause: string;
  retries: number;
  timeoutMs: number;
  maxBodyBytes?: number;
}

export function networkError(ctx: FailureContext): NetworkError {
  const { method, path, code, retries } = ctx;
  const after = retries > 0 ? ` after ${retries} ${retries === 1 ? "retry" : "retries"}` : "";
  const notSent = isNotSentError(code);
  const ambiguous = !notSent && method !== "GET";
  let what: string;
  if (notSent)
    what =
      `cannot connect to ${ctx.origin} (${code})${after}; check --api-url / CLOUDFLARE_API_BASE_URL ` +
      `and the network`;
  else if (isTimeoutError(code)) what = `no answer within ${ctx.timeoutMs} ms (${code})${after}`;
  else if (code === BODY_TOO_LARGE_CODE) {
    what =
      `${ctx.cause}, more than the ${ctx.maxBodyBytes ?? "maximum"} bytes zoneform reads of one answer ` +
      `(--max-body-size, ZONEFORM_MAX_BODY_SIZE); it stopped reading it`;
  } else if (code === ENCODED_BODY_CODE)
    what =
      `${ctx.cause}; it was not read (is --api-url / CLOUDFLARE_API_BASE_URL the API, without a proxy ` +
      `that compresses?)`;
  else what = `the connection failed (${code ?? ctx.cause})${after}`;
  let message = `${method} ${path}: ${what}`;
  if (ambiguous) {
    message +=
      method === "POST"
        ? `; the request was sent, so the write may or may not have happened and zoneform did not re-send ` +
          `it. Run \`zoneform plan\` again to see the live state before retrying`
        : `; the change may or may not have been made. Run \`zoneform plan\` again to see the live state`;
  } else if (isTimeoutError(code)) {
    message += "; raise --timeout or try again later";
  }
  return new NetworkError(message, {
    method,
    path,
    ambiguous,
    cause: code ?? ctx.cause,
    ...(retries > 0 ? { retries } : {}),
  });
}
