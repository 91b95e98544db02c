// The emulator's HTTP core: envelope, auth, routing errors, body errors, rate limit, latency, the seed.
import { describe, expect, test } from "vitest";
import { defaultState, startEmulator, zoneIdFor } from "../../src/emulator/index.js";
import { isMaliciousItem } from "../../src/emulator/areas/page_shield/query.js";
import { createHash } from "node:crypto";
import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { memoryIO } from "../../src/cli/io.js";
import { main } from "../../src/cli/program.js";
import { TestEmulator, useEmulator, ZONE } from "../helpers/cli.js";

const emu = useEmulator();
const settings = `zones/${ZONE.com}/page_shield`;

describe("envelope", () => {
  test("wraps a result in the success envelope", async () => {
    const r = await emu().call("GET", settings);
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toBe("application/json");
    expect(r.body).toMatchObject({ success: true, errors: [], messages: [], result: { enabled: false } });
    expect(r.body).not.toHaveProperty("result_info");
  });

  test("adds result_info to paged lists", async () => {
    const r = await emu().call("GET", `${settings}/scripts`);
    expect(r.body.result_info).toMatchObject({
      page: 1,
      per_page: 15,
      total_count: expect.any(Number),
      total_pages: expect.any(Number),
    });
  });
});

describe("authentication", () => {
  test("answers 9106 when no credentials are sent", async () => {
    const r = await emu().call("GET", settings, undefined, { headers: {} });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({
      result: null,
      success: false,
      // real-answers.md, "error answers": errors[] items may carry documentation_url.
      errors: [
        {
          code: 9106,
          message: "Missing X-Auth-Key, X-Auth-Email or Authorization headers",
          documentation_url: "https://developers.cloudflare.com/api",
        },
      ],
      messages: [],
    });
  });

  test.each(["Basic dXNlcjpwYXNz", "Bearer", "Bearer two tokens"])(
    "answers 6003/6111 to Authorization %j",
    async (value) => {
      const r = await emu().call("GET", settings, undefined, { headers: { authorization: value } });
      expect(r.status).toBe(400);
      expect(r.body.errors).toEqual([
        {
          code: 6003,
          message: "Invalid request headers",
          error_chain: [{ code: 6111, message: "Invalid format for Authorization header" }],
          documentation_url: "https://developers.cloudflare.com/api",
        },
      ]);
    },
  );

  test("answers 403/10000 to an unknown token or key", async () => {
    const bad = await emu().call("GET", settings, undefined, { headers: { authorization: "Bearer nope" } });
    expect(bad.status).toBe(403);
    expect(bad.body.errors[0]).toEqual({
      code: 10000,
      message: "Authentication error",
      documentation_url: "https://developers.cloudflare.com/api",
    });
    const badKey = await emu().call("GET", settings, undefined, {
      headers: { "x-auth-email": "user@example.com", "x-auth-key": "wrong" },
    });
    expect(badKey.status).toBe(403);
  });

  test("accepts the global key with its email", async () => {
    const r = await emu().call("GET", settings, undefined, {
      headers: { "x-auth-email": "user@example.com", "x-auth-key": "emulator-key" },
    });
    expect(r.status).toBe(200);
  });

  test("a key without its email is missing credentials", async () => {
    const r = await emu().call("GET", settings, undefined, { headers: { "x-auth-key": "emulator-key" } });
    expect(r.body.errors[0].code).toBe(9106);
  });
});

describe("routing", () => {
  test("a malformed zone id is 400 with 7003 and 7000", async () => {
    const r = await emu().call("GET", "zones/NOT-A-ZONE/page_shield");
    expect(r.status).toBe(400);
    expect(r.body.errors.map((e: { code: number }) => e.code)).toEqual([7003, 7000]);
    expect(r.body.errors[0].message).toBe(
      "Could not route to /zones/NOT-A-ZONE/page_shield, perhaps your object identifier is invalid?",
    );
  });

  test("an unknown path is 404 with 7003 and 7000", async () => {
    const r = await emu().call("GET", `zones/${ZONE.com}/no_such_thing`);
    expect(r.status).toBe(404);
    expect(r.body.errors.map((e: { code: number }) => e.code)).toEqual([7003, 7000]);
  });

  test("an unknown but well-formed zone is 404 with 1001", async () => {
    const r = await emu().call("GET", `zones/${"0".repeat(32)}/page_shield`);
    expect(r.status).toBe(404);
    expect(r.body.errors[0]).toEqual({ code: 1001, message: "Invalid zone identifier" });
  });

  test("a known path with another method is 405", async () => {
    const r = await emu().call("DELETE", settings);
    expect(r.status).toBe(405);
    expect(r.body.success).toBe(false);
  });

  test("a trailing slash routes like the path without it", async () => {
    expect((await emu().call("GET", `${settings}/`)).status).toBe(200);
  });
});

describe("request bodies", () => {
  test("malformed JSON is 400/6007", async () => {
    const r = await emu().call("PUT", settings, undefined, {
      rawBody: "{enabled: true",
      headers: { authorization: "Bearer emulator-token", "content-type": "application/json" },
    });
    expect(r.status).toBe(400);
    expect(r.body.errors[0]).toEqual({
      code: 6007,
      message: "Malformed JSON in request body",
      documentation_url: "https://developers.cloudflare.com/api",
    });
  });

  test("a body that is not application/json is 400/9207", async () => {
    const r = await emu().call("PUT", settings, undefined, {
      rawBody: "enabled=true",
      headers: { authorization: "Bearer emulator-token", "content-type": "application/x-www-form-urlencoded" },
    });
    expect(r.status).toBe(400);
    expect(r.body.errors[0]).toEqual({
      code: 9207,
      message: "Request body is invalid. Content-type must be application/json",
      documentation_url: "https://developers.cloudflare.com/api",
    });
  });

  test("application/json with a charset is accepted", async () => {
    const r = await emu().call("PUT", settings, undefined, {
      rawBody: JSON.stringify({ enabled: true }),
      headers: { authorization: "Bearer emulator-token", "content-type": "application/json; charset=utf-8" },
    });
    expect(r.status).toBe(200);
  });
});

describe("rate limit", () => {
  test("every answer carries both header styles", async () => {
    const r = await emu().call("GET", settings);
    expect(r.headers.get("x-ratelimit-limit")).toBe("1200");
    expect(r.headers.get("x-ratelimit-remaining")).toBe("1199");
    // real-answers.md, "rate-limit headers": Ratelimit "default";r=…;t=… and Ratelimit-Policy "default";q=…;w=… (since
    // 2025-09).
    expect(r.headers.get("ratelimit")).toBe('"default";r=1199;t=300');
    expect(r.headers.get("ratelimit-policy")).toBe('"default";q=1200;w=300');
    const unauthenticated = await emu().call("GET", settings, undefined, { headers: {} });
    expect(unauthenticated.headers.get("x-ratelimit-limit")).toBe("1200");
  });

  test("refuses the request over the limit with 429/971 and Retry-After, per credential", async () => {
    await emu().callAdmin("PUT", "rate-limit", { requests: 3, seconds: 60 });
    for (let i = 0; i < 3; i++) expect((await emu().call("GET", settings)).status).toBe(200);
    const refused = await emu().call("GET", settings);
    expect(refused.status).toBe(429);
    expect(refused.body.errors[0]).toEqual({
      code: 971,
      message: "Please wait and consider throttling your request speed",
    });
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(Number(refused.headers.get("retry-after"))).toBeLessThanOrEqual(60);
    expect(refused.headers.get("x-ratelimit-remaining")).toBe("0");
    // The global key is another credential with its own allowance.
    const other = await emu().call("GET", settings, undefined, {
      headers: { "x-auth-email": "user@example.com", "x-auth-key": "emulator-key" },
    });
    expect(other.status).toBe(200);
  });

  test("a sliding window frees a slot when the oldest request leaves it", async () => {
    await emu().callAdmin("PUT", "rate-limit", { requests: 2, seconds: 1 });
    await emu().call("GET", settings);
    await emu().call("GET", settings);
    expect((await emu().call("GET", settings)).status).toBe(429);
    await new Promise((r) => setTimeout(r, 1100));
    expect((await emu().call("GET", settings)).status).toBe(200);
  });
});

describe("startEmulator", () => {
  test("gives the API and admin URLs, the live state, and closes", async () => {
    const e = await startEmulator({ port: 0 });
    expect(e.url).toBe(`http://127.0.0.1:${e.port}/client/v4`);
    expect(e.adminUrl).toBe(`http://127.0.0.1:${e.port}/__emulator`);
    const res = await fetch(`${e.url}/zones/${ZONE.com}/page_shield`, {
      method: "PUT",
      headers: { authorization: "Bearer emulator-token", "content-type": "application/json" },
      body: JSON.stringify({ enabled: true }),
    });
    expect(res.status).toBe(200);
    expect(e.state().zones.find((z) => z.id === ZONE.com)!.page_shield.enabled).toBe(true);
    await e.close();
    await expect(fetch(`${e.url}/zones`)).rejects.toThrow();
  });

  test("delays every answer by latencyMs", async () => {
    const e = await TestEmulator.start({ latencyMs: 150 });
    const t0 = Date.now();
    await e.call("GET", settings);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(140);
    await e.close();
  });

  test("starts from a given state", async () => {
    const state = defaultState();
    state.zones = state.zones.slice(0, 1);
    const e = await TestEmulator.start({ state });
    expect((await e.call("GET", `zones/${ZONE.net}/page_shield`)).status).toBe(404);
    expect((await e.call("GET", `zones/${ZONE.com}/page_shield`)).status).toBe(200);
    await e.close();
  });
});

describe("default seed", () => {
  const state = defaultState();

  test("has the account and four zones whose ids are md5 of their names", () => {
    expect(state.account_id).toBe("0123456789abcdef0123456789abcdef");
    expect(state.zones.map((z) => [z.name, z.plan])).toEqual([
      ["example.com", "enterprise"],
      ["example.net", "business"],
      ["example.org", "pro"],
      ["example.dev", "free"],
    ]);
    for (const z of state.zones) {
      expect(z.id).toBe(createHash("md5").update(z.name).digest("hex"));
      expect(zoneIdFor(z.name)).toBe(z.id);
    }
    expect(state.credentials).toEqual({
      tokens: ["emulator-token"],
      keys: [{ email: "user@example.com", key: "emulator-key" }],
    });
    expect(state.rate_limit).toEqual({ requests: 1200, seconds: 300 });
    expect(state.next_job_id).toBe(1);
  });

  test("starts every zone unconfigured, with hostnames and a small inventory", () => {
    for (const z of state.zones) {
      expect(z.page_shield).toMatchObject({
        enabled: false,
        use_cloudflare_reporting_endpoint: true,
        use_connection_url_path: false,
      });
      expect(z.policies).toEqual([]);
      expect(z.rulesets).toEqual([]);
      expect(z.logpush_jobs).toEqual([]);
      expect(z.waf_migration).toEqual({
        mode: "new",
        compatible: true,
        old_sensitivity: "default",
        old_action: "block",
      });
      expect(z.custom_hostnames.length).toBeGreaterThanOrEqual(3);
      expect(z.scripts).toHaveLength(20);
      // One malicious script by each score of Cloudflare's verdict (real-answers.md "js_integrity_score
      // threshold"), and one scored 30 that the older threshold of 50 called malicious.
      const low = (k: string) => z.scripts.filter((s) => (s[k] as number) < 10).map((s) => s[k]);
      expect(low("js_integrity_score")).toEqual([6]);
      expect(low("magecart_score")).toEqual([3]);
      expect(low("malware_score")).toEqual([4]);
      expect(low("cryptomining_score")).toEqual([2]);
      expect(z.scripts.filter((s) => s.js_integrity_score === 30 && !isMaliciousItem(s))).toHaveLength(1);
      expect(z.scripts.filter(isMaliciousItem)).toHaveLength(4);
      expect(z.scripts.filter((s) => s.status === "infrequent")).toHaveLength(1);
      expect(z.connections).toHaveLength(10);
      expect(z.connections.filter((c) => c.domain_reported_malicious || c.url_reported_malicious)).toHaveLength(1);
      expect(z.cookies).toHaveLength(8);
      expect(z.cookies.filter((c) => c.secure_attribute === false).length).toBeGreaterThanOrEqual(2);
    }
    const cas = state.zones.flatMap((z) =>
      z.custom_hostnames.map((h) => (h.ssl as { certificate_authority: string }).certificate_authority),
    );
    // The default CA ("") is stored as the CA the service picked.
    expect(new Set(cas)).toEqual(new Set(["lets_encrypt", "google", "digicert"]));
  });

  test("is the same every time", () => {
    expect(JSON.stringify(defaultState().zones)).toBe(JSON.stringify(defaultState().zones));
  });
});

describe("zoneform emulator", () => {
  async function runCommand(args: string[]) {
    const mem = memoryIO();
    let stop!: () => void;
    mem.io.waitForShutdown = () => new Promise<void>((resolve) => (stop = resolve));
    const done = main(["emulator", ...args], mem.io);
    while (!mem.stdout().includes("export ")) await new Promise((r) => setTimeout(r, 10));
    return { mem, done, stop: () => stop(), url: mem.stdout().split("\n")[0]! };
  }

  test("prints the base URL first, a token and an export line, and saves --state on exit", async () => {
    const file = `${await mkdtemp(`${tmpdir()}/zf-emu-`)}/state.json`;

    const first = await runCommand(["--port", "0", "--state", file, "--token", "ci-token"]);
    expect(first.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/client\/v4$/);
    const lines = first.mem.stdout().split("\n");
    expect(lines[1]).toContain("ci-token");
    expect(lines[2]).toBe(`export CLOUDFLARE_API_BASE_URL=${first.url} CLOUDFLARE_API_TOKEN=ci-token`);
    const put = await fetch(`${first.url}/zones/${ZONE.dev}/page_shield`, {
      method: "PUT",
      headers: { authorization: "Bearer ci-token", "content-type": "application/json" },
      body: JSON.stringify({ enabled: true }),
    });
    expect(put.status).toBe(200);
    first.stop();
    expect(await first.done).toBe(0);
    const saved = JSON.parse(await readFile(file, "utf8"));
    expect(saved.zones.find((z: { id: string }) => z.id === ZONE.dev).page_shield.enabled).toBe(true);

    const second = await runCommand(["--port", "0", "--state", file]);
    const get = await fetch(`${second.url}/zones/${ZONE.dev}/page_shield`, {
      headers: { authorization: "Bearer ci-token" },
    });
    expect(((await get.json()) as { result: { enabled: boolean } }).result.enabled).toBe(true);
    second.stop();
    await second.done;
  });

  test("refuses a bad --port with exit 3", async () => {
    const mem = memoryIO();
    expect(await main(["emulator", "--port", "http"], mem.io)).toBe(3);
    expect(mem.stderr()).toContain("--port");
  });
});
