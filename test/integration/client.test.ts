// The API client over real HTTP against the emulator: envelopes, errors, retries, the POST rule,
// paging and redaction. Rate limiting and concurrency are in client-rate-limit.test.ts.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { createClient } from "../../src/cloudflare/client.js";
import { AnswerShapeError, ApiError, NetworkError, RunStoppedError } from "../../src/errors.js";
import { JSON_SOURCE_TEXT, parseJsonExact } from "../../src/cloudflare/errors.js";
import { textOf } from "../../src/cloudflare/http-text.js";
import { Redactor } from "../../src/redact.js";
import { permissionHint } from "../../src/sections/permissions.js";
import { ACCOUNT, TestEmulator, ZONE, clientOn } from "../helpers/cli.js";

const emu = TestEmulator.perFile();

function policyBody(description: string): Record<string, unknown> {
  return {
    description,
    action: "log",
    expression: 'http.request.uri.path contains "/checkout"',
    enabled: true,
    value: "script-src 'self'",
  };
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
    const settings = await client.request<{ enabled: boolean }>("PUT", `zones/${ZONE.com}/page_shield`, {
      body: { enabled: true },
    });
    expect(settings.enabled).toBe(true);
    const created = await client.request<{ id: string }>("POST", `/zones/${ZONE.com}/page_shield/policies`, {
      body: policyBody("Checkout"),
    });
    const env = await client.requestEnvelope<unknown[]>("GET", `zones/${ZONE.com}/page_shield/policies`, {
      query: { page: 1, per_page: 10, unused: undefined },
    });
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

describe("answer bodies", () => {
  it("reads an answer as UTF-8, a leading byte order mark dropped and an invalid byte as U+FFFD", async () => {
    // The BOM first, and one byte that begins no UTF-8 sequence (0xff) inside a string.
    const body = Buffer.concat([
      Buffer.from([0xef, 0xbb, 0xbf]),
      Buffer.from('{"success":true,"errors":[],"messages":[],"result":{"id":"x","name":"caf\u00e9 '),
      Buffer.from([0xff]),
      Buffer.from(' end"}}'),
    ]);
    const srv = await listServer(() => body);
    const { client } = await strictClient(srv.url);
    expect(await client.request("GET", "zones/z/thing")).toEqual({ id: "x", name: "caf\u00e9 \ufffd end" });
    await Promise.all([client.close(), srv.close()]);
    // The text of the answer (what error messages quote) is undici's body.text(): only a leading BOM goes.
    const bom = [0xef, 0xbb, 0xbf];
    expect(textOf(new Uint8Array([...bom, 0x61, ...bom]))).toBe("a\ufeff");
    expect(textOf(new Uint8Array(bom.slice(0, 2)))).toBe("\ufffd");
    expect(textOf(new Uint8Array(bom))).toBe("");
  });
});

describe("errors a user can act on", () => {
  it("reports an unknown zone, a malformed id and a missing object", async () => {
    const { client } = clientOn(emu);
    const unknown = "a".repeat(32);
    const e1 = await caught(client.request("GET", `zones/${unknown}/page_shield`));
    expect(e1).toBeInstanceOf(ApiError);
    expect(e1.message).toMatch(new RegExp(`^zone ${unknown} not found or not accessible with this token`));
    expect((e1 as ApiError).info).toMatchObject({
      status: 404,
      method: "GET",
      path: `zones/${unknown}/page_shield`,
      retryable: false,
    });
    const e2 = await caught(client.request("GET", "zones/not-an-id/page_shield"));
    expect(e2.message).toMatch(/^malformed id "not-an-id" in GET zones\/not-an-id\/page_shield/);
    expect((e2 as ApiError).info.errors.map((e) => e.code)).toEqual([7003, 7000]);
    const e3 = await caught(client.request("GET", `zones/${ZONE.com}/page_shield/policies/${"b".repeat(32)}`));
    expect(e3.message).toMatch(/^not found: GET zones\/.*\/policies\/b+ \(Cloudflare: .*not found/);
    await client.close();
  });

  it("keeps the API's field pointers on validation errors", async () => {
    const { client } = clientOn(emu);
    const e = (await caught(
      client.request("POST", `zones/${ZONE.com}/page_shield/policies`, {
        body: { ...policyBody("x"), action: "deny" },
      }),
    )) as ApiError;
    expect(e.info.status).toBe(400);
    expect(e.info.errors[0]).toMatchObject({ pointer: "/action" });
    expect(e.message).toContain("at /action");
    await client.close();
  });

  it("says a token lacks permission without ever showing the token", async () => {
    const secret = "wrong-secret-token-0042";
    const { client, lines } = clientOn(emu, { auth: { token: secret }, permissionHint });
    const e = (await caught(client.request("GET", `zones/${ZONE.com}/page_shield`))) as ApiError;
    expect(e.message).toBe(
      `GET zones/${ZONE.com}/page_shield needs the "Page Shield: Read" permission on the zone, and was refused ` +
        "(HTTP 403; Cloudflare: Authentication error [10000]; see https://developers.cloudflare.com/api): the API " +
        "token lacks it (or the token is expired or disabled)",
    );
    expect(JSON.stringify({ m: e.message, i: e.info, lines })).not.toContain(secret);
    await client.close();
  });

  it(
    "turns an answer that is not the API (JSON of another service, an HTML page) into an ApiError, or a " +
      "stop naming the base URL",
    async () => {
      // The first answer of a run is JSON of another service: the base URL is not the API, and the run
      // stops with that (one message, not one per call).
      const wrongBase = createClient({ baseUrl: emu.adminUrl, auth: { token: "emulator-token" } });
      const e1 = await caught(wrongBase.request("GET", "state"));
      expect(e1).toBeInstanceOf(RunStoppedError);
      expect(e1.message).toContain(
        `the base URL ${emu.adminUrl} does not look like the Cloudflare API (GET state got an answer that is ` +
          `not the API's JSON envelope (HTTP 200))`,
      );
      expect(await caught(wrongBase.request("GET", "state"))).toBe(e1);
      await wrongBase.close();
      // After the API has answered once, the same answer is that call's own error.
      const api = createClient({ baseUrl: emu.url, auth: { token: "emulator-token" } });
      await api.request("GET", `zones/${ZONE.com}/page_shield`);
      await api.close();

      const html = createServer((_req, res) =>
        res
          .writeHead(502, { "content-type": "text/html" })
          .end("<html><head><title>502 Bad Gateway</title></head></html>"),
      );
      await new Promise<void>((r) => html.listen(0, "127.0.0.1", r));
      const proxy = createClient({
        baseUrl: `http://127.0.0.1:${(html.address() as AddressInfo).port}/client/v4`,
        auth: { token: "t-123" },
        retries: 1,
        retryBaseDelayMs: 5,
      });
      const e2 = (await caught(proxy.request("GET", `zones/${ZONE.com}/page_shield`))) as ApiError;
      expect(e2.message).toContain("Cloudflare answered HTTP 502 for GET zones/");
      expect(e2.message).toContain('not JSON (text/html: "502 Bad Gateway")');
      expect(e2.info).toMatchObject({ status: 502, retryable: true });
      await proxy.close();
      html.close();
    },
  );

  it(
    "stops the run on a connection refused before any answer, naming the URL settings, after one " + "quick retry",
    async () => {
      const lines: string[] = [];
      const client = createClient({
        baseUrl: "http://127.0.0.1:1/client/v4",
        auth: { token: "t-123" },
        log: (l) => lines.push(l),
      });
      const started = Date.now();
      const e = (await caught(client.request("GET", `zones/${ZONE.com}/page_shield`))) as RunStoppedError;
      expect(Date.now() - started).toBeLessThan(2000);
      expect(e).toBeInstanceOf(RunStoppedError);
      expect(e.reason).toBe("cause");
      expect(e.message).toMatch(
        /^cannot connect to the API at http:\/\/127\.0\.0\.1:1\/client\/v4 \(ECONNREFUSED\): nothing accepts connections there\. Check --api-url/,
      );
      expect(lines.find((l) => l.includes("failed (ECONNREFUSED)"))).toMatch(/retries=1$/);
      // Every later call is refused at once with the same error, nothing sent.
      expect(await caught(client.request("GET", `zones/${ZONE.com}/page_shield/policies`))).toBe(e);
      expect(client.stats().requests).toBe(2);
      await client.close();
    },
  );
});

describe("retries", () => {
  it("retries a GET after 5xx answers and logs how many retries it took", async () => {
    const { client, lines } = clientOn(emu);
    await emu.fault({ method: "GET", path: "page_shield$", status: 503, count: 2 });
    expect(await client.request("GET", `zones/${ZONE.com}/page_shield`)).toMatchObject({ enabled: false });
    expect((await emu.requests()).map((r) => r.status)).toEqual([503, 503, 200]);
    expect(lines).toEqual([
      expect.stringMatching(new RegExp(`^GET zones/${ZONE.com}/page_shield 200 \\d+ms retries=2$`)),
    ]);
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

  it("stops the run at once, naming the wait and the header, when Retry-After is longer than it will wait", async () => {
    const { client } = clientOn(emu, { maxWaitMs: 5000 });
    await emu.fault({ method: "GET", status: 429, retry_after: 120, count: 1 });
    const e = await caught(client.request("GET", `zones/${ZONE.com}/page_shield`));
    expect(e).toBeInstanceOf(RunStoppedError);
    expect(e.message).toMatch(
      /^the API asked to wait 2m \(Retry-After: 120\), longer than the 5\.0s zoneform waits at most \(--max-wait\); stopped at once/,
    );
    expect((e as RunStoppedError).exitCode).toBe(1);
    // Nothing more is sent, a write least of all.
    const again = await caught(client.request("PUT", `zones/${ZONE.com}/page_shield`, { body: { enabled: true } }));
    expect(again).toBe(e);
    expect((await emu.requests()).map((r) => `${r.method} ${r.status}`)).toEqual(["GET 429"]);
    await client.close();
  });

  it("retries PUT and DELETE after a dropped connection", async () => {
    const { client } = clientOn(emu);
    await emu.fault({ method: "PUT", reset: true, count: 1 });
    await client.request("PUT", `zones/${ZONE.com}/page_shield`, { body: { enabled: true } });
    const p = await client.request<{ id: string }>("POST", `zones/${ZONE.com}/page_shield/policies`, {
      body: policyBody("x"),
    });
    await emu.fault({ method: "DELETE", reset: true, after: true, count: 1 });
    // The first DELETE went through before the connection dropped (logged as status 0): the retry
    // finds the policy gone (404), which the engine treats as done.
    const e = await caught(client.request("DELETE", `zones/${ZONE.com}/page_shield/policies/${p.id}`));
    expect(e.message).toMatch(/^not found: DELETE/);
    expect((await emu.requests()).map((r) => `${r.method} ${r.status}`)).toEqual([
      "PUT 0",
      "PUT 200",
      "POST 200",
      "DELETE 0",
      "DELETE 404",
    ]);
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
    // Timeouts up to 1 s run on precise timers (undici's coarse clock is for longer ones), and the
    // attempt has its own deadline besides: an answer held 1 s is far past a 200 ms timeout.
    const { client } = clientOn(emu, { timeoutMs: 200 });
    await emu.fault({ method: "GET", delay_ms: 1000, count: 1 });
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
    const e = (await caught(
      client.request("POST", `zones/${ZONE.com}/page_shield/policies`, { body: policyBody("Checkout") }),
    )) as NetworkError;
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
    await emu.fault({ method: "POST", delay_ms: 800, after: true, count: 1 });
    const e = (await caught(
      client.request("POST", `zones/${ZONE.com}/page_shield/policies`, { body: policyBody("Slow") }),
    )) as NetworkError;
    expect(e.info.ambiguous).toBe(true);
    expect(e.message).toMatch(/no answer within 200 ms/);
    // The POST was carried out; its answer, held back, is sent (to nobody) before the log is read.
    for (let i = 0; i < 200 && (await emu.requests()).some((r) => r.status === 0); i++)
      await new Promise((r) => setTimeout(r, 10));
    expect((await emu.requests()).filter((r) => r.method === "POST").map((r) => r.status)).toEqual([200]);
    expect(await client.request("GET", `zones/${ZONE.com}/page_shield/policies`)).toHaveLength(1);
    await client.close();
  });

  it("a 5xx is not retried for a POST and says the outcome is unknown", async () => {
    const { client } = clientOn(emu);
    await emu.fault({ method: "POST", status: 503, count: 1 });
    const e = (await caught(
      client.request("POST", `zones/${ZONE.com}/page_shield/policies`, { body: policyBody("x") }),
    )) as ApiError;
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
    await emu.admin("POST", "inventory", {
      zone_id: ZONE.com,
      scripts: 1234,
      connections: 0,
      cookies: 0,
      malicious_ratio: 0.01,
    });
    const { client } = clientOn(emu);
    const query = { status: "active,infrequent,inactive", exclude_duplicates: false, exclude_cdn_cgi: false };
    const first = await client.requestEnvelope<unknown[]>("GET", `zones/${ZONE.com}/page_shield/scripts`, {
      query: { ...query, per_page: 1 },
    });
    expect(first.result_info?.total_count).toBe(1234);
    await emu.admin("DELETE", "requests");
    const ids: string[] = [];
    for await (const s of client.paginate<{ id: string }>(`zones/${ZONE.com}/page_shield/scripts`, {
      perPage: 100,
      query,
    }))
      ids.push(s.id);
    expect(ids).toHaveLength(1234);
    expect(new Set(ids).size).toBe(1234);
    const log = await emu.requests();
    expect(log.map((r) => r.query.page)).toEqual(Array.from({ length: 13 }, (_, i) => String(i + 1)));
    expect(log.every((r) => r.query.per_page === "100" && r.query.exclude_duplicates === "false")).toBe(true);
    expect(await client.listAll(`zones/${ZONE.com}/page_shield/scripts`, { query })).toHaveLength(1234);
    await client.close();
  });

  it("reads only the pages the consumer asks for", async () => {
    await emu.admin("POST", "inventory", {
      zone_id: ZONE.com,
      scripts: 500,
      connections: 0,
      cookies: 0,
      malicious_ratio: 0,
    });
    const { client } = clientOn(emu);
    let n = 0;
    for await (const _ of client.paginate(`zones/${ZONE.com}/page_shield/scripts`, { perPage: 50 }))
      if (++n === 60) break;
    expect(await emu.requests()).toHaveLength(2);
    await client.close();
  });

  it("with a look-ahead, keeps pages in order, each once, never past the last page", async () => {
    await emu.admin("POST", "inventory", {
      zone_id: ZONE.com,
      scripts: 1234,
      connections: 0,
      cookies: 0,
      malicious_ratio: 0.01,
    });
    const { client } = clientOn(emu);
    const query = { status: "active,infrequent,inactive", exclude_duplicates: false, exclude_cdn_cgi: false };
    const inOrder = await client.listAll<{ id: string }>(`zones/${ZONE.com}/page_shield/scripts`, {
      perPage: 100,
      query,
    });
    await emu.admin("DELETE", "requests");
    const ids: string[] = [];
    for await (const s of client.paginate<{ id: string }>(`zones/${ZONE.com}/page_shield/scripts`, {
      perPage: 100,
      query,
      lookahead: 4,
    }))
      ids.push(s.id);
    expect(ids).toEqual(inOrder.map((s) => s.id));
    const pages = (await emu.requests()).map((r) => Number(r.query.page)).sort((a, b) => a - b);
    expect(pages).toEqual(Array.from({ length: 13 }, (_, i) => i + 1));

    // A consumer that stops early leaves at most the look-ahead's pages requested beyond its own.
    await emu.admin("DELETE", "requests");
    let n = 0;
    for await (const _ of client.paginate(`zones/${ZONE.com}/page_shield/scripts`, {
      perPage: 100,
      query,
      lookahead: 2,
    }))
      if (++n === 150) break;
    expect((await emu.requests()).length).toBeLessThanOrEqual(4);
    await client.close();
  });

  it("follows cursors to the end", async () => {
    const { client } = clientOn(emu);
    const all = await client.request<Array<{ id: string }>>("GET", `accounts/${ACCOUNT}/rulesets`);
    const streamed: string[] = [];
    for await (const r of client.paginateCursor<{ id: string }>(`accounts/${ACCOUNT}/rulesets`, { perPage: 1 }))
      streamed.push(r.id);
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
      client.request("POST", `zones/${ZONE.com}/logpush/validate/destination`, {
        body: { destination_conf: "s3://bucket/logs?region=us-east-1&secret-access-key=AKIASECRET99" },
      }),
    )) as ApiError;
    expect(e1.message).toContain("secret-access-key=(sensitive)");
    const e2 = (await caught(
      client.request("POST", `zones/${ZONE.com}/page_shield/policies`, {
        body: { ...policyBody("x"), action: "env-secret-value-77" },
      }),
    )) as ApiError;
    expect(e2.message).toContain("'(sensitive)' is not a valid value for action");
    await client
      .request("GET", `zones/${ZONE.com}/page_shield/scripts`, {
        query: { page_url: "https://x.example/?token=abc123secret", api_key: "qwerty-key-1" },
      })
      .catch(() => undefined);
    const everything = JSON.stringify({ lines, e1: [e1.message, e1.info], e2: [e2.message, e2.info] });
    for (const secret of ["AKIASECRET99", "env-secret-value-77", "abc123secret", "qwerty-key-1", "emulator-token"])
      expect(everything).not.toContain(secret);
    expect(lines[2]).toContain("api_key=(sensitive)");
    await client.close();
  });
});

/**
 * A list server of our own: `answer(query, n)` gives the envelope of the n-th request (1-based), so a
 * test can play any list shape the real API may produce. Returns the queries it was asked.
 */
async function listServer(
  answer: (q: URLSearchParams, n: number) => unknown,
): Promise<{ url: string; asked: URLSearchParams[]; close: () => Promise<void> }> {
  const asked: URLSearchParams[] = [];
  const server = createServer((req, res) => {
    const q = new URL(req.url ?? "/", "http://x").searchParams;
    asked.push(q);
    const body = answer(q, asked.length);
    const text = typeof body === "string" || Buffer.isBuffer(body) ? body : JSON.stringify(body);
    res.writeHead(200, { "content-type": "application/json" }).end(text);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/client/v4`, asked, close: () => new Promise((r) => server.close(() => r())) };
}

const ok = (result: unknown, result_info?: Record<string, unknown>) => ({
  success: true,
  errors: [],
  messages: [],
  result,
  ...(result_info ? { result_info } : {}),
});
const items = (from: number, n: number) =>
  Array.from({ length: n }, (_, i) => ({ id: `item-${from + i}`, n: from + i }));

async function strictClient(url: string, opts: Partial<Parameters<typeof createClient>[0]> = {}) {
  const warnings: string[] = [];
  const client = createClient({
    baseUrl: url,
    auth: { token: "t0ken-for-list-tests-0000000000000000000" },
    retries: 0,
    onWarning: (l) => warnings.push(l),
    ...opts,
  });
  return { client, warnings };
}

describe("lists are read whole and strictly", () => {
  it("a short page does not end the list while total_pages says there is more", async () => {
    // 7 items in pages the server cuts short (3, 2, 2) although it announces per_page 3.
    const pages: Record<string, unknown[]> = { "1": items(0, 3), "2": items(3, 2), "3": items(5, 2) };
    const srv = await listServer((q) =>
      ok(pages[q.get("page") ?? "1"] ?? [], {
        page: Number(q.get("page")),
        per_page: 3,
        total_pages: 3,
        total_count: 7,
      }),
    );
    const { client } = await strictClient(srv.url);
    const got = await client.listAll<{ n: number }>("zones/z/page_shield/scripts", { perPage: 3 });
    expect(got.map((i) => i.n)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(srv.asked.map((q) => q.get("page"))).toEqual(["1", "2", "3"]);
    await client.close();
    await srv.close();
  });

  it("asks an empty page before the last once more, then refuses the list (never 'the list ended')", async () => {
    const srv = await listServer((q) => {
      const page = Number(q.get("page"));
      return ok(page === 2 ? [] : items((page - 1) * 2, 2), {
        page,
        per_page: 2,
        count: page === 2 ? 0 : 2,
        total_pages: 3,
        total_count: 6,
      });
    });
    const { client, warnings } = await strictClient(srv.url);
    const err = await caught(client.listAll("zones/z/page_shield/scripts", { perPage: 2 }));
    expect(err).toBeInstanceOf(ApiError);
    expect(err.message).toBe(
      "GET zones/z/page_shield/scripts: page 2 came back empty twice although the list announced more " +
        "(total_pages 3, total_count 6, 2 read so far); the list could not be read whole, so nothing was " +
        "changed; try again later",
    );
    expect(srv.asked.map((q) => q.get("page"))).toEqual(["1", "2", "2"]);
    expect(warnings).toEqual([
      "warning: GET zones/z/page_shield/scripts: page 2 came back empty although the list announced more " +
        "(total_pages 3, total_count 6, 2 read so far); asking for it once more",
    ]);
    await client.close();
    await srv.close();
  });

  it("takes an empty page asked again when the second answer holds its items", async () => {
    const srv = await listServer((q, n) => {
      const page = Number(q.get("page"));
      return ok(page === 2 && n === 2 ? [] : items((page - 1) * 2, 2), {
        page,
        per_page: 2,
        total_pages: 3,
        total_count: 6,
      });
    });
    const { client } = await strictClient(srv.url);
    expect((await client.listAll<{ n: number }>("l", { perPage: 2 })).map((i) => i.n)).toEqual([0, 1, 2, 3, 4, 5]);
    await client.close();
    await srv.close();
  });

  it(
    "refuses at once a list announcing totals above the caps (total_pages 1e10): one request, in well " +
      "under a second",
    async () => {
      const srv = await listServer((q) =>
        ok(items(0, 1), { page: Number(q.get("page") ?? 1), per_page: 1, total_pages: 1e10, total_count: 1e10 }),
      );
      const { client } = await strictClient(srv.url);
      const started = Date.now();
      const err = await caught(client.listAll("zones/z/page_shield/policies"));
      expect(Date.now() - started).toBeLessThan(1000);
      expect(err.message).toBe(
        "GET zones/z/page_shield/policies: the list announces 10000000000 pages, more than the 20000 zoneform " +
          "reads at most (--max-list-pages); stopping before reading it, and nothing was changed. If the zone " +
          "really holds that many, raise the cap",
      );
      expect(srv.asked).toHaveLength(1);
      const many = await listServer(() => ok(items(0, 1), { page: 1, per_page: 50, total_count: 600_000 }));
      const c2 = (await strictClient(many.url)).client;
      expect((await caught(c2.listAll("l", { perPage: 50 }))).message).toContain(
        "announces 600000 items, more than the 500000 zoneform reads at most (--max-list-items)",
      );
      await Promise.all([client.close(), c2.close(), srv.close(), many.close()]);
    },
  );

  it("ends a list that goes on without totals at the page cap, and one past the item cap", async () => {
    // Pages with result_info but no totals, always full: only the caps end them.
    const srv = await listServer((q) =>
      ok(items(Number(q.get("page")) * 10, 10), { page: Number(q.get("page")), per_page: 10, count: 10 }),
    );
    const { client } = await strictClient(srv.url, { maxListPages: 4 });
    expect((await caught(client.listAll("l", { perPage: 10 }))).message).toBe(
      "GET l: the list went on past 4 pages without an end (the page cap, --max-list-pages); stopping so " +
        "the list is not read forever, and nothing was changed",
    );
    expect(srv.asked).toHaveLength(4);
    const c2 = (await strictClient(srv.url, { maxListItems: 25 })).client;
    expect((await caught(c2.listAll("l", { perPage: 10 }))).message).toContain(
      "GET l: the list went on past 25 items (the item cap, --max-list-items)",
    );
    await Promise.all([client.close(), c2.close(), srv.close()]);
  });

  it(
    "folds an item answered twice with the same content, with a warning; refuses one answered with " + "other content",
    async () => {
      // A paging overlap: the last item of page 1 comes again first on page 2.
      const srv = await listServer((q) => {
        const page = Number(q.get("page"));
        return ok(page === 1 ? items(0, 3) : [items(2, 1)[0], ...items(3, 2)], {
          page,
          per_page: 3,
          total_pages: 2,
          total_count: 6,
        });
      });
      const { client, warnings } = await strictClient(srv.url);
      expect((await client.listAll<{ n: number }>("zones/z/x", { perPage: 3 })).map((i) => i.n)).toEqual([
        0, 1, 2, 3, 4,
      ]);
      expect(warnings).toEqual([
        'warning: GET zones/z/x: the list holds id "item-2" on pages 1 and 2 with the same content (a paging ' +
          "overlap); read once",
      ]);
      // The same id with other content: nobody can tell which is live.
      const bad = await listServer(() =>
        ok([
          { id: "p1", description: "A", enabled: true },
          { enabled: false, id: "p1", description: "A" },
        ]),
      );
      const c2 = (await strictClient(bad.url)).client;
      const err = await caught(c2.listAll("zones/z/page_shield/policies"));
      expect(err).toBeInstanceOf(AnswerShapeError);
      expect(err.message).toBe(
        'GET zones/z/page_shield/policies: the list holds id "p1" twice on page 1 with different content; ' +
          "zoneform cannot tell which is live, so it stopped this zone and changed nothing; try again later",
      );
      // Key order alone is no difference.
      const same = await listServer(() =>
        ok([
          { id: "p1", a: 1, b: 2 },
          { b: 2, a: 1, id: "p1" },
        ]),
      );
      const c3 = await strictClient(same.url);
      expect(await c3.client.listAll("l")).toHaveLength(1);
      expect(c3.warnings).toHaveLength(1);
      await Promise.all([client.close(), c2.close(), c3.client.close(), srv.close(), bad.close(), same.close()]);
    },
  );

  it(
    "listAll: a bare first call; no result_info is the whole list, a cursor is followed, totals continue " +
      "by page with the per_page answered",
    async () => {
      const whole = await listServer(() => ok(items(0, 3)));
      const c1 = (await strictClient(whole.url)).client;
      expect(await c1.listAll("zones/z/logpush/jobs")).toHaveLength(3);
      expect(whole.asked.map((q) => q.toString())).toEqual([""]);

      const cursors = await listServer((q) => {
        const at = Number(q.get("cursor") ?? 0);
        return ok(items(at, 2), { cursor: at < 4 ? String(at + 2) : "", per_page: 2, count: 2 });
      });
      const c2 = (await strictClient(cursors.url)).client;
      expect((await c2.listAll<{ n: number }>("zones/z/rulesets")).map((i) => i.n)).toEqual([0, 1, 2, 3, 4, 5]);
      expect(cursors.asked.map((q) => q.toString())).toEqual(["", "cursor=2", "cursor=4"]);

      const paged = await listServer((q) => {
        const page = Number(q.get("page") ?? 1);
        return ok(items((page - 1) * 2, 2), { page, per_page: 2, count: 2, total_count: 5, total_pages: 3 });
      });
      const c3 = (await strictClient(paged.url)).client;
      await c3.listAll("zones/z/page_shield/policies");
      expect(paged.asked.map((q) => q.toString())).toEqual(["", "page=2&per_page=2", "page=3&per_page=2"]);

      // An empty cursor page that still names a next cursor is asked again, then refused.
      const emptyCursor = await listServer(() => ok([], { cursor: "next", per_page: 2, count: 0 }));
      const c4 = (await strictClient(emptyCursor.url)).client;
      expect((await caught(c4.listAll("r"))).message).toContain(
        "GET r: page 1 came back empty twice although the list announced more",
      );
      await Promise.all([
        c1.close(),
        c2.close(),
        c3.close(),
        c4.close(),
        whole.close(),
        cursors.close(),
        paged.close(),
        emptyCursor.close(),
      ]);
    },
  );
});

describe("ids beyond 2^53", () => {
  const BIG = "9007199254740993"; // 2^53 + 1: JSON.parse alone reads 9007199254740992
  it(
    JSON_SOURCE_TEXT
      ? "keeps them exact, as strings of their digits"
      : "refuses them on this Node.js (no source text in JSON.parse), naming the id and the path",
    async () => {
      const srv = await listServer(
        () =>
          `{"success":true,"errors":[],"messages":[],"result":[{"id":${BIG},"name":"a","max_upload_bytes":5000000}]}`,
      );
      const { client } = await strictClient(srv.url);
      if (JSON_SOURCE_TEXT) {
        expect(await client.listAll("zones/z/logpush/jobs")).toEqual([
          { id: BIG, name: "a", max_upload_bytes: 5000000 },
        ]);
      } else {
        const err = await caught(client.listAll("zones/z/logpush/jobs"));
        expect(err).toBeInstanceOf(ApiError);
        expect(err.message).toContain(
          `GET zones/z/logpush/jobs: the answer holds id ${BIG}, beyond the integers this Node.js ` +
            `(${process.version}) reads exactly (2^53)`,
        );
      }
      await client.close();
      await srv.close();
    },
  );

  it("parses small ids and other long numbers as before", () => {
    expect(parseJsonExact('{"id":42,"bytes":12345678901234567890}')).toEqual({
      // biome-ignore lint/correctness/noPrecisionLoss: the rounded number JSON.parse gives is what is expected
      value: { id: 42, bytes: 12345678901234567890 },
      inexact: [],
    });
    const { value, inexact } = parseJsonExact(`{"result":{"job_id":${BIG}}}`);
    if (JSON_SOURCE_TEXT) expect(value).toEqual({ result: { job_id: BIG } });
    else expect(inexact).toEqual([BIG]);
  });
});
