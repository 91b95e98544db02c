import { describe, expect, it } from "vitest";
import { resolveCredentials } from "../../../src/cloudflare/credentials.js";
import { parseParallelism, parseRateLimit, parseTimeout } from "../../../src/cli/client-options.js";
import { CredentialsError, UsageError } from "../../../src/errors.js";

describe("credentials", () => {
  it("prefers the token, then email + key, and defaults to the real API", () => {
    expect(resolveCredentials({ CLOUDFLARE_API_TOKEN: " t0ken \n", CLOUDFLARE_API_KEY: "k" })).toEqual({ baseUrl: "https://api.cloudflare.com/client/v4", auth: { token: "t0ken" } });
    expect(resolveCredentials({ CLOUDFLARE_EMAIL: "a@b.c", CLOUDFLARE_API_KEY: "key" }).auth).toEqual({ email: "a@b.c", key: "key" });
  });

  it("takes --api-url over CLOUDFLARE_API_BASE_URL and drops a trailing slash", () => {
    const env = { CLOUDFLARE_API_TOKEN: "t", CLOUDFLARE_API_BASE_URL: "http://127.0.0.1:1/client/v4/" };
    expect(resolveCredentials(env).baseUrl).toBe("http://127.0.0.1:1/client/v4");
    expect(resolveCredentials(env, { apiUrl: "http://localhost:2/x" }).baseUrl).toBe("http://localhost:2/x");
    expect(() => resolveCredentials(env, { apiUrl: "ftp://x" })).toThrow(UsageError);
  });

  it("names the variables when credentials are missing or half set", () => {
    expect(() => resolveCredentials({})).toThrow(/CLOUDFLARE_API_TOKEN.*CLOUDFLARE_EMAIL and CLOUDFLARE_API_KEY/);
    expect(() => resolveCredentials({ CLOUDFLARE_API_KEY: "k" })).toThrow(CredentialsError);
    expect(() => resolveCredentials({ CLOUDFLARE_EMAIL: "a@b.c" })).toThrow(/CLOUDFLARE_API_KEY is not/);
  });
});

describe("client flags", () => {
  it("parses and checks --parallelism, --rate-limit and --timeout", () => {
    expect(parseParallelism("4")).toBe(4);
    expect(() => parseParallelism("0")).toThrow(/--parallelism must be a whole number from 1 to 64/);
    expect(parseRateLimit("1200/300")).toEqual({ requests: 1200, seconds: 300 });
    expect(parseRateLimit("100/5m")).toEqual({ requests: 100, seconds: 300 });
    expect(() => parseRateLimit("fast")).toThrow(UsageError);
    expect(parseTimeout("30s")).toBe(30_000);
    expect(parseTimeout("1500")).toBe(1500);
    expect(() => parseTimeout("-1")).toThrow(/--timeout/);
  });
});
