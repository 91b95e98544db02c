// The retry policy of the API client: which failures are retried for which method, how long to wait
// (exponential backoff with jitter, or what the API asks for in Retry-After), and when to give up.
// The rule for writes that create (POST): never re-send one that the server might have processed.
// A POST is retried only when the server certainly did not act on it: a 429 (Cloudflare's rate
// limiter rejects before the request reaches the API) or a connection that was never established.
import type { HttpMethod } from "../model/index.js";
import { DEFAULT_MAX_WAIT_MS } from "./rate-limiter.js";

export interface RetryPolicy {
  /** Retries after the first attempt (default 6). */
  retries: number;
  /** First backoff (default 500 ms), doubled each retry up to maxDelayMs (default 8 s). */
  baseDelayMs: number;
  maxDelayMs: number;
  /** Fraction of the backoff taken off at random (default 0.25), so parallel callers spread out. */
  jitter: number;
  /** Longest Retry-After honoured (default 5 minutes, --max-wait); an API asking for longer stops the run. */
  maxRetryAfterMs: number;
  random: () => number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  retries: 6,
  baseDelayMs: 500,
  maxDelayMs: 8_000,
  jitter: 0.25,
  maxRetryAfterMs: DEFAULT_MAX_WAIT_MS,
  random: Math.random,
};

/** A refused connection is tried again once, after at most REFUSED_DELAY_MS. */
const REFUSED_RETRIES = 1;
const REFUSED_DELAY_MS = 250;

/** A resolver's temporary failure (EAI_AGAIN) is tried again this many times, after 0.5, 1 and 2 s. */
export const RESOLVER_RETRIES = 3;

/** Methods that can be re-sent without changing the outcome. */
export function isIdempotent(method: string): boolean {
  return method === "GET" || method === "PUT" || method === "PATCH" || method === "DELETE" || method === "HEAD";
}

/** Statuses worth retrying for an idempotent request (as the official SDK does). */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/** An attempt that did not complete (headers and whole body) within its deadline, however slowly data dripped. */
export const DEADLINE_CODE = "ZONEFORM_ATTEMPT_DEADLINE";

/** An answer whose body went past the client's maxBodyBytes, cut off there: never retried. */
export const BODY_TOO_LARGE_CODE = "ZONEFORM_BODY_TOO_LARGE";
/** An answer with a Content-Encoding (compressed) although none was asked for: never retried, never decompressed. */
export const ENCODED_BODY_CODE = "ZONEFORM_ENCODED_BODY";

/** Error codes that mean the connection was never made: the request was certainly not sent. */
const NOT_SENT_CODES = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ENETUNREACH",
  "ENETDOWN",
  "EHOSTUNREACH",
  "EHOSTDOWN",
  "UND_ERR_CONNECT_TIMEOUT",
]);

/** Error codes of a connection that failed while or after the request was sent: outcome unknown. */
const TRANSIENT_CODES = new Set([
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "UND_ERR_SOCKET",
  "UND_ERR_CLOSED",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
  "UND_ERR_REQ_CONTENT_LENGTH_MISMATCH",
  "UND_ERR_RES_CONTENT_LENGTH_MISMATCH",
  DEADLINE_CODE,
]);

export function isNotSentError(code: string | undefined): boolean {
  return code !== undefined && NOT_SENT_CODES.has(code);
}

function isConnectionError(code: string | undefined): boolean {
  return code !== undefined && (NOT_SENT_CODES.has(code) || TRANSIENT_CODES.has(code));
}

export function isTimeoutError(code: string | undefined): boolean {
  return (
    code === "UND_ERR_HEADERS_TIMEOUT" ||
    code === "UND_ERR_BODY_TIMEOUT" ||
    code === "ETIMEDOUT" ||
    code === DEADLINE_CODE
  );
}

export type Headers = Record<string, string | string[] | undefined>;

function header(headers: Headers, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/**
 * How long the API asks us to wait, in ms: `retry-after-ms`, else `Retry-After` as seconds or as an
 * HTTP date. Undefined when absent or unreadable.
 */
export function parseRetryAfter(headers: Headers, now: number = Date.now()): number | undefined {
  const ms = header(headers, "retry-after-ms");
  if (ms !== undefined && /^\s*\d+(\.\d+)?\s*$/.test(ms)) return Math.ceil(Number(ms));
  const ra = header(headers, "retry-after");
  if (ra === undefined || ra.trim() === "") return undefined;
  if (/^\s*\d+(\.\d+)?\s*$/.test(ra)) return Math.ceil(Number(ra) * 1000);
  const date = Date.parse(ra);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

/** Exponential backoff for retry number `retry` (1-based), with jitter taken off the top. */
export function backoffDelay(retry: number, policy: RetryPolicy): number {
  const raw = Math.min(policy.baseDelayMs * 2 ** (retry - 1), policy.maxDelayMs);
  return Math.round(raw * (1 - policy.jitter * policy.random()));
}

export type Failure =
  | { kind: "status"; status: number; headers: Headers }
  | { kind: "network"; code: string | undefined };

export type RetryDecision =
  | { retry: true; delayMs: number; retryAfterMs?: number }
  | {
      retry: false;
      /**
       * not-retryable: this failure is final for this method; exhausted: no retries left;
       * retry-after-too-long: the API asked to wait longer than the cap; ambiguous: a write that may
       * have been processed (never re-sent).
       */
      reason: "not-retryable" | "exhausted" | "retry-after-too-long" | "ambiguous";
      retryAfterMs?: number;
    };

/**
 * The decision for a connection that could not be opened because of where it goes, or undefined for the usual
 * backoff: a name that does not resolve never will in this run, and a closed port or a resolver's blip passes
 * within moments or not at all, so more tries would only delay the message.
 */
function connectionRetry(code: string | undefined, attempt: number, policy: RetryPolicy): RetryDecision | undefined {
  if (code === "ENOTFOUND") return { retry: false, reason: "not-retryable" };
  if (code === "ECONNREFUSED") {
    return attempt > Math.min(REFUSED_RETRIES, policy.retries)
      ? { retry: false, reason: "exhausted" }
      : { retry: true, delayMs: Math.min(REFUSED_DELAY_MS, backoffDelay(attempt, policy)) };
  }
  if (code === "EAI_AGAIN") {
    return attempt > Math.min(RESOLVER_RETRIES, policy.retries)
      ? { retry: false, reason: "exhausted" }
      : { retry: true, delayMs: backoffDelay(attempt, policy) };
  }
  return undefined;
}

/**
 * Decides whether the failed attempt `attempt` (1 = the first request) of `method` is tried again
 * and after how long.
 */
export function decideRetry(
  method: HttpMethod | string,
  failure: Failure,
  attempt: number,
  policy: RetryPolicy,
): RetryDecision {
  const idempotent = isIdempotent(method);
  let retryAfterMs: number | undefined;

  if (failure.kind === "status") {
    const { status } = failure;
    if (!isRetryableStatus(status)) return { retry: false, reason: "not-retryable" };
    retryAfterMs = parseRetryAfter(failure.headers);
    // A POST answered with anything but 429 may have been acted on: never re-send it.
    if (!idempotent && status !== 429) return { retry: false, reason: status >= 500 ? "ambiguous" : "not-retryable" };
  } else {
    if (!isConnectionError(failure.code)) return { retry: false, reason: "not-retryable" };
    if (!idempotent && !isNotSentError(failure.code)) return { retry: false, reason: "ambiguous" };
    const early = connectionRetry(failure.code, attempt, policy);
    if (early) return early;
  }

  if (retryAfterMs !== undefined && retryAfterMs > policy.maxRetryAfterMs) {
    return { retry: false, reason: "retry-after-too-long", retryAfterMs };
  }
  if (attempt > policy.retries) return { retry: false, reason: "exhausted", retryAfterMs };
  if (retryAfterMs !== undefined) return { retry: true, delayMs: retryAfterMs, retryAfterMs };
  return { retry: true, delayMs: backoffDelay(attempt, policy) };
}
