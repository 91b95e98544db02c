import { describe, expect, it } from "vitest";
import {
  DEFAULT_RETRY_POLICY,
  RESOLVER_RETRIES,
  backoffDelay,
  decideRetry,
  parseRetryAfter,
} from "../../../src/cloudflare/retry.js";

const policy = { ...DEFAULT_RETRY_POLICY, random: () => 0 };

describe("retry policy", () => {
  it("retries idempotent methods on 408, 409, 429 and 5xx, not on other 4xx", () => {
    for (const m of ["GET", "PUT", "PATCH", "DELETE"]) {
      for (const s of [408, 409, 429, 500, 502, 503, 504])
        expect(decideRetry(m, { kind: "status", status: s, headers: {} }, 1, policy).retry).toBe(true);
      for (const s of [400, 403, 404, 422])
        expect(decideRetry(m, { kind: "status", status: s, headers: {} }, 1, policy).retry).toBe(false);
    }
  });

  it("re-sends a POST only when the server certainly did not process it", () => {
    expect(decideRetry("POST", { kind: "status", status: 429, headers: {} }, 1, policy).retry).toBe(true);
    expect(decideRetry("POST", { kind: "network", code: "ECONNREFUSED" }, 1, policy).retry).toBe(true);
    expect(decideRetry("POST", { kind: "network", code: "ECONNRESET" }, 1, policy)).toEqual({
      retry: false,
      reason: "ambiguous",
    });
    expect(decideRetry("POST", { kind: "network", code: "UND_ERR_HEADERS_TIMEOUT" }, 1, policy)).toEqual({
      retry: false,
      reason: "ambiguous",
    });
    expect(decideRetry("POST", { kind: "status", status: 503, headers: {} }, 1, policy)).toEqual({
      retry: false,
      reason: "ambiguous",
    });
    expect(decideRetry("POST", { kind: "status", status: 409, headers: {} }, 1, policy).retry).toBe(false);
  });

  it("backs off exponentially from 500 ms to 8 s with at most 25 % jitter", () => {
    expect([1, 2, 3, 4, 5, 6].map((n) => backoffDelay(n, policy))).toEqual([500, 1000, 2000, 4000, 8000, 8000]);
    expect(backoffDelay(1, { ...policy, random: () => 1 })).toBe(375);
  });

  it("honours Retry-After (seconds, HTTP date) and retry-after-ms, and refuses waits over the cap", () => {
    expect(parseRetryAfter({ "retry-after": "3" })).toBe(3000);
    expect(parseRetryAfter({ "retry-after-ms": "250", "retry-after": "3" })).toBe(250);
    expect(parseRetryAfter({ "retry-after": new Date(Date.now() + 5000).toUTCString() })).toBeGreaterThan(3000);
    expect(parseRetryAfter({ "retry-after": "soon" })).toBeUndefined();
    expect(decideRetry("GET", { kind: "status", status: 429, headers: { "retry-after": "2" } }, 1, policy)).toEqual({
      retry: true,
      delayMs: 2000,
      retryAfterMs: 2000,
    });
    // The cap is 5 minutes (Cloudflare's longest block): 300 s is waited, 301 s is not.
    expect(policy.maxRetryAfterMs).toBe(300_000);
    expect(
      decideRetry("GET", { kind: "status", status: 429, headers: { "retry-after": "300" } }, 1, policy),
    ).toMatchObject({ retry: true, delayMs: 300_000 });
    expect(decideRetry("GET", { kind: "status", status: 429, headers: { "retry-after": "301" } }, 1, policy)).toEqual({
      retry: false,
      reason: "retry-after-too-long",
      retryAfterMs: 301_000,
    });
  });

  it("never retries a host name that does not resolve (ENOTFOUND), whatever the method", () => {
    for (const m of ["GET", "PUT", "POST", "DELETE"])
      expect(decideRetry(m, { kind: "network", code: "ENOTFOUND" }, 1, policy)).toEqual({
        retry: false,
        reason: "not-retryable",
      });
  });

  it("retries a resolver's temporary failure (EAI_AGAIN) 3 times, after 0.5, 1 and 2 s, a POST too", () => {
    expect(RESOLVER_RETRIES).toBe(3);
    for (const m of ["GET", "POST"]) {
      const f = { kind: "network", code: "EAI_AGAIN" } as const;
      expect([1, 2, 3].map((n) => decideRetry(m, f, n, policy))).toEqual(
        [500, 1000, 2000].map((delayMs) => ({ retry: true, delayMs })),
      );
      expect(decideRetry(m, f, 4, policy)).toEqual({ retry: false, reason: "exhausted" });
    }
    // --retries lower than that is the bound.
    const one = { ...policy, retries: 1 };
    expect(decideRetry("GET", { kind: "network", code: "EAI_AGAIN" }, 2, one)).toEqual({
      retry: false,
      reason: "exhausted",
    });
  });

  it("gives up after the configured retries", () => {
    const f = { kind: "network", code: "ECONNRESET" } as const;
    expect(decideRetry("GET", f, 6, policy).retry).toBe(true);
    expect(decideRetry("GET", f, 7, policy)).toEqual({ retry: false, reason: "exhausted" });
  });
});
