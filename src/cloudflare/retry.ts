// Which failures are retried for which method, and after how long (backoff with jitter, or Retry-After).
// A POST is retried only when the server certainly did not act on it: a 429, or no connection made.
// Spec: docs/connecting.md, Retries.
import type { HttpMethod } from "../model/index.js";
import { DEFAULT_MAX_WAIT_MS } from "./rate-limiter.js";

export interface RetryPolicy {
  retries: number;
  baseDelayMs: number;
  maxDelayMs: number;
  jitter: number;
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

const REFUSED_RETRIES = 1;
const REFUSED_DELAY_MS = 250;

export const RESOLVER_RETRIES = 3;

export function isIdempotent(method: string): boolean {
  return method === "GET" || method === "PUT" || method === "PATCH" || method === "DELETE" || method === "HEAD";
}

export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

export const DEADLINE_CODE = "ZONEFORM_ATTEMPT_DEADLINE";

export const BODY_TOO_LARGE_CODE = "ZONEFORM_BODY_TOO_LARGE";
export const ENCODED_BODY_CODE = "ZONEFORM_ENCODED_BODY";

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
      reason: "not-retryable" | "exhausted" | "retry-after-too-long" | "ambiguous";
      retryAfterMs?: number;
    };

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
