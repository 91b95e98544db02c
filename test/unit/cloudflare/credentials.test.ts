import { describe, expect, it } from "vitest";
import { checkPlainHttp, isLoopbackHost, resolveCredentials } from "../../../src/cloudflare/credentials.js";
import { parseParallelism, parseRateLimit, parseTimeout } from "../../../src/cli/client-flags.js";
import { CredentialsError, UsageError } from "../../../src/errors.js";

describe("credentials", () => {
  it("prefers the token, then email + key, and defaults to the real API", () => {
    expect(resolveCredentials({ CLOUDFLARE_API_TOKEN: " t0ken \n", CLOUDFLARE_API_KEY: "k" })).toEqual({
      baseUrl: "https://api.cloudflare.com/client/v4",
      auth: { token: "t0ken" },
    });
    expect(resolveCredentials({ CLOUDFLARE_EMAIL: "a@b.c", CLOUDFLARE_API_KEY: "key" }).auth).toEqual({
      email: "a@b.c",
      key: "key",
    });
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

describe("plain HTTP only to loopback", () => {
  const host = (url: string) => new URL(url).hostname;

  it("takes 127.0.0.0/8, ::1 and localhost as loopback, in every spelling URL parsing normalizes", () => {
    for (const url of [
      "http://127.0.0.1",
      "http://127.255.0.9:8",
      "http://127.1",
      "http://2130706433",
      "http://0x7f.1",
      "http://[::1]:1",
      "http://[::ffff:127.0.0.1]",
      "http://LOCALHOST",
    ]) {
      expect(isLoopbackHost(host(url)), url).toBe(true);
    }
  });

  it("takes no other host as loopback: names that only look local, 0.0.0.0, :: and the LAN", () => {
    for (const url of [
      "http://127.0.0.1.nip.io",
      "http://localhost.example.com",
      "http://api.localhost",
      "http://0.0.0.0",
      "http://[::]",
      "http://10.0.0.1",
      "http://128.0.0.1",
      "http://[::ffff:10.0.0.1]",
      "http://api.cloudflare.com",
    ]) {
      expect(isLoopbackHost(host(url)), url).toBe(false);
    }
  });

  it("refuses plain HTTP elsewhere unless allowed, then warns; https and loopback pass in silence", () => {
    const opts = { allowed: false, source: "--api-url", optIn: "--allow-insecure-http" };
    expect(() => checkPlainHttp("http://10.0.0.1/client/v4", opts)).toThrow(UsageError);
    expect(() => checkPlainHttp("http://10.0.0.1/client/v4", opts)).toThrow(
      /^--api-url http:\/\/10\.0\.0\.1\/client\/v4 is plain HTTP to a host that is not loopback/,
    );
    expect(checkPlainHttp("http://10.0.0.1/client/v4", { ...opts, allowed: true })).toMatch(
      /^warning: .*credentials are sent unencrypted$/,
    );
    expect(checkPlainHttp("https://10.0.0.1/client/v4", opts)).toBeUndefined();
    expect(checkPlainHttp("http://127.0.0.1:9/client/v4", opts)).toBeUndefined();
  });

  it("never shows credentials a library caller put in the URL", () => {
    expect(() =>
      checkPlainHttp("http://user:s3cr3t-pass@10.0.0.1/x", { allowed: false, source: "baseUrl", optIn: "x" }),
    ).toThrow(/^baseUrl http:\/\/10\.0\.0\.1\/x is/);
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
