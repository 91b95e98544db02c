// The API client over real HTTP against the emulator: envelopes, errors, retries, the POST rule,
// paging and redaction. Rate limiting and concurrency are in client-rate-limit.test.ts.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { createClient } from "../../src/cloudflare/client.js";
import { ApiError, NetworkError } from "../../src/errors.js";
import { Redactor } from "../../src/redact.js";
import { permissionHint } from "../../src/sections/permissions.js";
import { ACCOUNT, TestEmulator, ZONE, clientOn } from "../helpers/cli.js";

const emu = TestEmulator.perFile();

function policyBody(description: string): Record<string, unknown> {
  return { description, action: "log", expression: 'http.request.uri.path contains "/checkout"', enabled: true, value: "script-src 'self'" };
}

async function caught(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (err) {
    return err as Error;
  }
  throw new Error("expected the call to fail");
}

describe("envelopes", () => {
  it("unwraps results, sends JSON bodies, and answers a 204 with null", async () => {
    const { client } = clientOn(emu);
    const settings = await client.request<{ enabled: boolean }>("PUT", `zones/${ZONE.com}/page_shield`, { body: { enabled: true } });
    expect(settings.enabled).toBe(true);
    const created = await client.request<{ id: string }>("POST", `/zones/${ZONE.com}/page_shield/policies`, { body: policyBody("Checkout") });
    const env = await client.requestEnvelope<unknown[]>("GET", `zones/${ZONE.com}/page_shield/policies`, { query: { page: 1, per_page: 10, unused: undefined } });
    expect(env.status).toBe(200);
    expect(env.result).toHaveLength(1);
    // The real policies list answers without result_info (recorded/cft_page_shield_policies.json).
    expect(env.result_info).toBeUndefined();
    expect(await client.request("DELETE", `zones/${ZONE.com}/page_shield/policies/${created.id}`)).toBeNull();
    const log = await emu.requests();
    expect(log.map((r) => `${r.method} ${r.status}`)).toEqual(["PUT 200", "POST 200", "GET 200", "DELETE 204"]);
    expect(log[2]!.query).toEqual({ page: "1", per_page: "10" });
    await client.close();
  });

  it("authenticates with CLOUDFLARE_EMAIL + CLOUDFLARE_API_KEY as well", async () => {
    const client = createClient({ baseUrl: emu.url, auth: { email: "user@example.com", key: "emulator-key" } });
    expect(await client.request("GET", `zones/${ZONE.com}/page_shield`)).toMatchObject({ enabled: false });
    await client.close();
  });
});

describe("errors a user can act on", () => {
  it("reports an unknown zone, a malformed id and a missing object", async () => {
    const { client } = clientOn(emu);
    const unknown = "a".repeat(32);
    const e1 = await caught(client.request("GET", `zones/${unknown}/page_shield`));
    expect(e1).toBeInstanceOf(ApiError);
    expect(e1.message).toMatch(new RegExp(`^zone ${unknown} not found or not accessible with this token`));
    expect((e1 as ApiError).info).toMatchObject({ status: 404, method: "GET", path: `zones/${unknown}/page_shield`, retryable: false });
    const e2 = await caught(client.request("GET", "zones/not-an-id/page_shield"));
    expect(e2.message).toMatch(/^malformed id "not-an-id" in GET zones\/not-an-id\/page_shield/);
    expect((e2 as ApiError).info.errors.map((e) => e.code)).toEqual([7003, 7000]);
    const e3 = await caught(client.request("GET", `zones/${ZONE.com}/page_shield/policies/${"b".repeat(32)}`));
    expect(e3.message).toMatch(/^not found: GET zones\/.*\/policies\/b+ \(Cloudflare: .*not found/);
    await client.close();
  });

  it("keeps the API's field pointers on validation errors", async () => {
    const { client } = clientOn(emu);
    const e = (await caught(client.request("POST", `zones/${ZONE.com}/page_shield/policies`, { body: { ...policyBody("x"), action: "deny" } }))) as ApiError;
    expect(e.info.status).toBe(400);
    expect(e.info.errors[0]).toMatchObject({ pointer: "/action" });
    expect(e.message).toContain("at /action");
    await client.close();
  });

  it("says a token lacks permission without ever showing the token", async () => {
    const secret = "wrong-secret-token-0042";
    const { client, lines } = clientOn(emu, { auth: { token: secret }, permissionHint });
    const e = (await caught(client.request("GET", `zones/${ZONE.com}/page_shield`))) as ApiError;
    expect(e.message).toMatch(new RegExp(`^the API token lacks permission for GET zones/${ZONE.com}/page_shield \\(Cloudflare: Authentication error \\[10000\\]\\)`));
    expect(e.message).toContain('"Page Shield: Read"');
    expect(JSON.stringify({ m: e.message, i: e.info, lines })).not.toContain(secret);
    await client.close();
  });

  it("turns an answer that is not the API (JSON of another service, an HTML page) into an ApiError", async () => {
    const wrongBase = createClient({ baseUrl: emu.adminUrl, auth: { token: "emulator-token" } });
    const e1 = await caught(wrongBase.request("GET", "state"));
    expect(e1).toBeInstanceOf(ApiError);
    expect(e1.message).toContain("not a Cloudflare API envelope");
    await wrongBase.close();

    const html = createServer((_req, res) => res.writeHead(502, { "content-type": "text/html" }).end("<html><head><title>502 Bad Gateway</title></head></html>"));
    await new Promise<void>((r) => html.listen(0, "127.0.0.1", r));
    const proxy = createClient({ baseUrl: `http://127.0.0.1:${(html.address() as AddressInfo).port}/client/v4`, auth: { token: "t-123" }, retries: 1, retryBaseDelayMs: 5 });
    const e2 = (await caught(proxy.request("GET", `zones/${ZONE.com}/page_shield`))) as ApiError;
    expect(e2.message).toContain('Cloudflare answered HTTP 502 for GET zones/');
    expect(e2.message).toContain('not JSON (text/html: "502 Bad Gateway")');
    expect(e2.info).toMatchObject({ status: 502, retryable: true });
    await proxy.close();
    html.close();
  });

  it("fails a connection refused with a NetworkError naming the URL settings", async () => {
    const client = createClient({ baseUrl: "http://127.0.0.1:1/client/v4", auth: { token: "t-123" }, retries: 1, retryBaseDelayMs: 5 });
    const e = (await caught(client.request("GET", `zones/${ZONE.com}/page_shield`))) as NetworkError;
    expect(e).toBeInstanceOf(NetworkError);
    expect(e.message).toMatch(/cannot connect to http:\/\/127\.0\.0\.1:1 \(ECONNREFUSED\) after 1 retry; check --api-url/);
    expect(e.info.ambiguous).toBe(false);
    await client.close();
  });
});

describe("retries", () => {
  it("retries a GET after 5xx answers and logs how many retries it took", async () => {
    const { client, lines } = clientOn(emu);
    await emu.fault({ method: "GET", path: "page_shield$", status: 503, count: 2 });
    expect(await client.request("GET", `zones/${ZONE.com}/page_shield`)).toMatchObject({ enabled: false });
    expect((await emu.requests()).map((r) => r.status)).toEqual([503, 503, 200]);
    expect(lines).toEqual([expect.stringMatching(new RegExp(`^GET zones/${ZONE.com}/page_shield 200 \\d+ms retries=2$`))]);
    expect(client.stats()).toEqual({ requests: 3, retries: 2, throttled: 0 });
    await client.close();
  });

  it("waits for Retry-After on a 429, then succeeds", async () => {
    const { client } = clientOn(emu);
    await emu.fault({ method: "GET", status: 429, retry_after: 1, count: 1 });
    const t0 = Date.now();
    await client.request("GET", `zones/${ZONE.com}/page_shield`);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(950);
    expect((await emu.requests()).map((r) => r.status)).toEqual([429, 200]);
    expect(client.stats().throttled).toBe(1);
    await client.close();
  });

  it("fails at once, saying so, when Retry-After is longer than it will wait", async () => {
    const { client } = clientOn(emu, { maxRetryAfterMs: 5000 });
    await emu.fault({ method: "GET", status: 429, retry_after: 120, count: 1 });
    const e = (await caught(client.request("GET", `zones/${ZONE.com}/page_shield`))) as ApiError;
    expect(e.message).toMatch(/asks to wait 120s before retrying, longer than the 5\.0s zoneform waits/);
    expect(e.info).toMatchObject({ status: 429, retryable: true, retryAfterMs: 120_000 });
    expect(await emu.requests()).toHaveLength(1);
    await client.close();
  });

  it("retries PUT and DELETE after a dropped connection", async () => {
    const { client } = clientOn(emu);
    await emu.fault({ method: "PUT", reset: true, count: 1 });
    await client.request("PUT", `zones/${ZONE.com}/page_shield`, { body: { enabled: true } });
    const p = await client.request<{ id: string }>("POST", `zones/${ZONE.com}/page_shield/policies`, { body: policyBody("x") });
    await emu.fault({ method: "DELETE", reset: true, after: true, count: 1 });
    // The first DELETE went through before the connection dropped (logged as status 0): the retry
    // finds the policy gone (404), which the engine treats as done.
    const e = await caught(client.request("DELETE", `zones/${ZONE.com}/page_shield/policies/${p.id}`));
    expect(e.message).toMatch(/^not found: DELETE/);
    expect((await emu.requests()).map((r) => `${r.method} ${r.status}`)).toEqual(["PUT 0", "PUT 200", "POST 200", "DELETE 0", "DELETE 404"]);
    await client.close();
  });

  it("gives up after the configured number of retries", async () => {
    const { client } = clientOn(emu, { retries: 2 });
    await emu.fault({ method: "GET", status: 500 });
    const e = (await caught(client.request("GET", `zones/${ZONE.com}/page_shield`))) as ApiError;
    expect(e.message).toMatch(/^Cloudflare answered HTTP 500 for GET zones\/.* after 2 retries/);
    expect(await emu.requests()).toHaveLength(3);
    await client.close();
  });

  it("times out an attempt that gets no answer, and retries a GET", async () => {
    // undici checks timeouts on a coarse (about 0.5 s) clock, hence the long delay.
    const { client } = clientOn(emu, { timeoutMs: 200 });
    await emu.fault({ method: "GET", delay_ms: 3000, count: 1 });
    await client.request("GET", `zones/${ZONE.com}/page_shield`);
    // One retry: the first attempt was given up at its timeout, not waited out (no wall-clock assert).
    expect(client.stats().retries).toBe(1);
    await client.close();
  });
});

describe("a POST is never re-sent when it may have been processed", () => {
  it("a dropped connection after the write: one POST, one policy, an ambiguous NetworkError", async () => {
    const { client, lines } = clientOn(emu);
    await emu.fault({ method: "POST", reset: true, after: true, count: 1 });
    const e = (await caught(client.request("POST", `zones/${ZONE.com}/page_shield/policies`, { body: policyBody("Checkout") }))) as NetworkError;
    expect(e).toBeInstanceOf(NetworkError);
    expect(e.info).toMatchObject({ method: "POST", ambiguous: true });
    expect(e.message).toContain("may or may not have happened");
    expect(e.message).toContain("zoneform plan");
    expect((await emu.requests()).filter((r) => r.method === "POST")).toHaveLength(1);
    expect(await client.request("GET", `zones/${ZONE.com}/page_shield/policies`)).toHaveLength(1);
    expect(lines[0]).toMatch(/^POST zones\/.*\/policies failed \(\w+\) \d+ms$/);
    await client.close();
  });

  it("a timeout after sending is ambiguous too, and not retried", async () => {
    const { client } = clientOn(emu, { timeoutMs: 200 });
    await emu.fault({ method: "POST", delay_ms: 2500, after: true, count: 1 });
    const e = (await caught(client.request("POST", `zones/${ZONE.com}/page_shield/policies`, { body: policyBody("Slow") }))) as NetworkError;
    expect(e.info.ambiguous).toBe(true);
    expect(e.message).toMatch(/no answer within 200 ms/);
    await new Promise((r) => setTimeout(r, 2500));
    expect((await emu.requests()).filter((r) => r.method === "POST")).toHaveLength(1);
    expect(await client.request("GET", `zones/${ZONE.com}/page_shield/policies`)).toHaveLength(1);
    await client.close();
  });

  it("a 5xx is not retried for a POST and says the outcome is unknown", async () => {
    const { client } = clientOn(emu);
    await emu.fault({ method: "POST", status: 503, count: 1 });
    const e = (await caught(client.request("POST", `zones/${ZONE.com}/page_shield/policies`, { body: policyBody("x") }))) as ApiError;
    expect(e.info).toMatchObject({ status: 503, retryable: false });
    expect(e.message).toContain("may or may not have been carried out");
    expect(await emu.requests()).toHaveLength(1);
    await client.close();
  });

  it("a 429 is retried: the rate limiter refused it before it reached the API", async () => {
    const { client } = clientOn(emu);
    await emu.fault({ method: "POST", status: 429, retry_after: 1, count: 1 });
    await client.request("POST", `zones/${ZONE.com}/page_shield/policies`, { body: policyBody("x") });
    expect((await emu.requests()).map((r) => r.status)).toEqual([429, 200]);
    expect(await client.request("GET", `zones/${ZONE.com}/page_shield/policies`)).toHaveLength(1);
    await client.close();
  });
});

describe("paging", () => {
  it("streams a page-style list, every item exactly once", async () => {
    await emu.admin("POST", "inventory", { zone_id: ZONE.com, scripts: 1234, connections: 0, cookies: 0, malicious_ratio: 0.01 });
    const { client } = clientOn(emu);
    const query = { status: "active,infrequent,inactive", exclude_duplicates: false, exclude_cdn_cgi: false };
    const first = await client.requestEnvelope<unknown[]>("GET", `zones/${ZONE.com}/page_shield/scripts`, { query: { ...query, per_page: 1 } });
    expect(first.result_info?.total_count).toBe(1234);
    await emu.admin("DELETE", "requests");
    const ids: string[] = [];
    for await (const s of client.paginate<{ id: string }>(`zones/${ZONE.com}/page_shield/scripts`, { perPage: 100, query })) ids.push(s.id);
    expect(ids).toHaveLength(1234);
    expect(new Set(ids).size).toBe(1234);
    const log = await emu.requests();
    expect(log.map((r) => r.query.page)).toEqual(Array.from({ length: 13 }, (_, i) => String(i + 1)));
    expect(log.every((r) => r.query.per_page === "100" && r.query.exclude_duplicates === "false")).toBe(true);
    expect(await client.listAll(`zones/${ZONE.com}/page_shield/scripts`, { query })).toHaveLength(1234);
    await client.close();
  });

  it("reads only the pages the consumer asks for", async () => {
    await emu.admin("POST", "inventory", { zone_id: ZONE.com, scripts: 500, connections: 0, cookies: 0, malicious_ratio: 0 });
    const { client } = clientOn(emu);
    let n = 0;
    for await (const _ of client.paginate(`zones/${ZONE.com}/page_shield/scripts`, { perPage: 50 })) if (++n === 60) break;
    expect(await emu.requests()).toHaveLength(2);
    await client.close();
  });

  it("with a look-ahead, keeps pages in order, each once, never past the last page", async () => {
    await emu.admin("POST", "inventory", { zone_id: ZONE.com, scripts: 1234, connections: 0, cookies: 0, malicious_ratio: 0.01 });
    const { client } = clientOn(emu);
    const query = { status: "active,infrequent,inactive", exclude_duplicates: false, exclude_cdn_cgi: false };
    const inOrder = await client.listAll<{ id: string }>(`zones/${ZONE.com}/page_shield/scripts`, { perPage: 100, query });
    await emu.admin("DELETE", "requests");
    const ids: string[] = [];
    for await (const s of client.paginate<{ id: string }>(`zones/${ZONE.com}/page_shield/scripts`, { perPage: 100, query, lookahead: 4 })) ids.push(s.id);
    expect(ids).toEqual(inOrder.map((s) => s.id));
    const pages = (await emu.requests()).map((r) => Number(r.query.page)).sort((a, b) => a - b);
    expect(pages).toEqual(Array.from({ length: 13 }, (_, i) => i + 1));

    // A consumer that stops early leaves at most the look-ahead's pages requested beyond its own.
    await emu.admin("DELETE", "requests");
    let n = 0;
    for await (const _ of client.paginate(`zones/${ZONE.com}/page_shield/scripts`, { perPage: 100, query, lookahead: 2 })) if (++n === 150) break;
    expect((await emu.requests()).length).toBeLessThanOrEqual(4);
    await client.close();
  });

  it("follows cursors to the end", async () => {
    const { client } = clientOn(emu);
    const all = await client.request<Array<{ id: string }>>("GET", `accounts/${ACCOUNT}/rulesets`);
    const streamed: string[] = [];
    for await (const r of client.paginateCursor<{ id: string }>(`accounts/${ACCOUNT}/rulesets`, { perPage: 1 })) streamed.push(r.id);
    expect(all.length).toBeGreaterThanOrEqual(2);
    expect(streamed).toEqual(all.map((r) => r.id));
    const log = await emu.requests();
    expect(log).toHaveLength(1 + all.length);
    expect(log[1]!.query.cursor).toBeUndefined();
    expect(log[2]!.query.cursor).toBeTruthy();
    await client.close();
  });
});

describe("secrets stay out of logs and errors", () => {
  it("hides destination credentials and extra secrets in log lines and API messages", async () => {
    const redactor = new Redactor([{ value: "env-secret-value-77" }]);
    const { client, lines } = clientOn(emu, { redactor });
    await emu.fault({
      method: "POST",
      path: "logpush",
      status: 400,
      code: 1002,
      message: "destination_conf s3://bucket/logs?region=us-east-1&secret-access-key=AKIASECRET99 is not reachable",
      count: 1,
    });
    const e1 = (await caught(
      client.request("POST", `zones/${ZONE.com}/logpush/validate/destination`, { body: { destination_conf: "s3://bucket/logs?region=us-east-1&secret-access-key=AKIASECRET99" } }),
    )) as ApiError;
    expect(e1.message).toContain("secret-access-key=(sensitive)");
    const e2 = (await caught(client.request("POST", `zones/${ZONE.com}/page_shield/policies`, { body: { ...policyBody("x"), action: "env-secret-value-77" } }))) as ApiError;
    expect(e2.message).toContain("'(sensitive)' is not a valid value for action");
    await client.request("GET", `zones/${ZONE.com}/page_shield/scripts`, { query: { page_url: "https://x.example/?token=abc123secret", api_key: "qwerty-key-1" } }).catch(() => undefined);
    const everything = JSON.stringify({ lines, e1: [e1.message, e1.info], e2: [e2.message, e2.info] });
    for (const secret of ["AKIASECRET99", "env-secret-value-77", "abc123secret", "qwerty-key-1", "emulator-token"]) expect(everything).not.toContain(secret);
    expect(lines[2]).toContain("api_key=(sensitive)");
    await client.close();
  });
});
