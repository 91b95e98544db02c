// The admin API: state, reset, zones, inventory generation, faults, latency, rate limit, request log,
// ownership tokens.
import { describe, expect, test } from "vitest";
import { generateInventory, zoneIdFor } from "../../src/emulator/index.js";
import { ownershipToken } from "../../src/emulator/ownership.js";
import { useEmulator, ZONES } from "../helpers/emulator.js";

const emu = useEmulator();
const settings = `zones/${ZONES.com}/page_shield`;

describe("state", () => {
  test("GET returns the whole state with zones and account", async () => {
    const r = await emu().admin("GET", "state");
    expect(r.status).toBe(200);
    expect(r.body.account_id).toBe("0123456789abcdef0123456789abcdef");
    expect(r.body.zones.map((z: { id: string; name: string; plan: string }) => [z.id, z.name, z.plan])).toContainEqual([
      ZONES.com,
      "example.com",
      "enterprise",
    ]);
  });

  test("PUT replaces it, filling in what a short document leaves out", async () => {
    const r = await emu().admin("PUT", "state", { zones: [{ name: "solo.test", plan: "pro" }] });
    expect(r.status).toBe(200);
    const id = zoneIdFor("solo.test");
    expect((await emu().api("GET", `zones/${id}/page_shield`)).body.result.enabled).toBe(false);
    expect((await emu().api("GET", settings)).status).toBe(404);
    expect(emu().state().credentials.tokens).toEqual(["emulator-token"]);
  });

  test("PUT refuses an invalid document and keeps the old state", async () => {
    const r = await emu().admin("PUT", "state", { zones: [{ name: "x.test", plan: "platinum" }] });
    expect(r.status).toBe(400);
    expect(r.body.problems[0]).toContain("plan");
    expect((await emu().api("GET", settings)).status).toBe(200);
  });

  test("reset restores the seed and clears faults, latency, log and rate counters", async () => {
    await emu().api("PUT", settings, { enabled: true });
    await emu().admin("POST", "faults", { path: "page_shield$", status: 500 });
    await emu().admin("PUT", "latency", { ms: 500 });
    await emu().admin("PUT", "rate-limit", { requests: 1, seconds: 60 });
    expect((await emu().admin("POST", "reset")).status).toBe(200);
    const t0 = Date.now();
    const r = await emu().api("GET", settings);
    expect(Date.now() - t0).toBeLessThan(400);
    expect(r.status).toBe(200);
    expect(r.body.result.enabled).toBe(false);
    expect(r.headers.get("x-ratelimit-limit")).toBe("1200");
    expect(await emu().requests()).toHaveLength(1);
  });
});

describe("zones", () => {
  test("adds an empty zone whose id is md5 of its name", async () => {
    const r = await emu().admin("POST", "zones", { name: "shop.test", plan: "business", waf_migration: "previous" });
    expect(r.body).toEqual({ id: zoneIdFor("shop.test") });
    const zone = emu().state().zones.find((z) => z.id === r.body.id)!;
    expect(zone).toMatchObject({ name: "shop.test", plan: "business", custom_hostnames: [], scripts: [], cookies: [] });
    expect(zone.waf_migration.mode).toBe("previous");
    expect((await emu().api("GET", `zones/${r.body.id}/page_shield/scripts`)).body.result).toEqual([]);
  });

  test("409 for a zone that exists, 400 for a bad plan", async () => {
    expect((await emu().admin("POST", "zones", { name: "example.com", plan: "free" })).status).toBe(409);
    expect((await emu().admin("POST", "zones", { name: "a.test", plan: "gold" })).status).toBe(400);
  });
});

describe("inventory", () => {
  test("generates the asked inventory, the same for the same input", async () => {
    const body = { zone_id: ZONES.net, scripts: 300, connections: 40, cookies: 25, malicious_ratio: 0.2, seed: 7 };
    expect((await emu().admin("POST", "inventory", body)).body).toEqual({ scripts: 300, connections: 40, cookies: 25 });
    const first = JSON.stringify(emu().state().zones.find((z) => z.id === ZONES.net)!.scripts);
    await emu().admin("POST", "inventory", body);
    expect(JSON.stringify(emu().state().zones.find((z) => z.id === ZONES.net)!.scripts)).toBe(first);
    const list = await emu().api("GET", `zones/${ZONES.net}/page_shield/scripts?status=active,infrequent,inactive&exclude_cdn_cgi=false`);
    expect(list.body.result_info.total_count).toBe(300);
    expect((await emu().admin("POST", "inventory", { ...body, zone_id: "0".repeat(32) })).status).toBe(404);
  });

  test("spreads scores, keeps ~malicious_ratio below 50, ~5 % infrequent, separate categories", () => {
    const inv = generateInventory({ zoneId: ZONES.com, zoneName: "example.com", scripts: 50_000, connections: 0, cookies: 0, maliciousRatio: 0.1 });
    const scores = inv.scripts.map((s) => s.js_integrity_score as number);
    expect(Math.min(...scores)).toBe(1);
    expect(Math.max(...scores)).toBe(99);
    const malicious = scores.filter((s) => s < 50).length / scores.length;
    expect(malicious).toBeGreaterThan(0.08);
    expect(malicious).toBeLessThan(0.12);
    const infrequent = inv.scripts.filter((s) => s.status === "infrequent").length / inv.scripts.length;
    expect(infrequent).toBeGreaterThan(0.04);
    expect(infrequent).toBeLessThan(0.06);
    for (const s of inv.scripts) {
      // Domain categories only when domain-reported; URL categories always ([] when not reported).
      expect("malicious_domain_categories" in s).toBe(s.domain_reported_malicious === true);
      expect((s.malicious_url_categories as string[]).length > 0).toBe(s.url_reported_malicious === true);
      for (const k of ["malware_score", "cryptomining_score", "magecart_score"]) {
        expect(s[k]).toBeGreaterThanOrEqual(1);
        expect(s[k]).toBeLessThanOrEqual(99);
      }
    }
    expect(new Set(inv.scripts.map((s) => s.id)).size).toBe(50_000);
  });
});

describe("faults", () => {
  test("answer the given status and code `count` times, then stop", async () => {
    const f = await emu().admin("POST", "faults", { method: "GET", path: "page_shield$", status: 503, code: 10013, retry_after: 2, count: 2 });
    expect(f.body.id).toEqual(expect.any(String));
    const first = await emu().api("GET", settings);
    expect(first.status).toBe(503);
    expect(first.body).toMatchObject({ success: false, result: null, errors: [{ code: 10013 }] });
    expect(first.headers.get("retry-after")).toBe("2");
    expect((await emu().api("GET", settings)).status).toBe(503);
    expect((await emu().api("GET", settings)).status).toBe(200);
    expect((await emu().api("GET", `${settings}/policies`)).status).toBe(200);
  });

  test("a 429 fault carries code 971 and Retry-After", async () => {
    await emu().admin("POST", "faults", { status: 429, count: 1 });
    const r = await emu().api("GET", settings);
    expect(r.status).toBe(429);
    expect(r.body.errors[0].code).toBe(971);
    expect(r.headers.get("retry-after")).toBe("1");
  });

  test("reset destroys the connection and is logged with status 0", async () => {
    await emu().admin("POST", "faults", { path: "page_shield", reset: true, count: 1 });
    await expect(emu().api("GET", settings)).rejects.toThrow();
    expect((await emu().requests())[0]).toMatchObject({ method: "GET", status: 0 });
    expect((await emu().api("GET", settings)).status).toBe(200);
  });

  test("after: true makes the write and then fails (an ambiguous outcome)", async () => {
    await emu().admin("POST", "faults", { method: "POST", path: "policies$", status: 502, after: true, count: 1 });
    const policy = { description: "d", action: "log", expression: "true", enabled: true, value: "script-src 'self'" };
    const r = await emu().api("POST", `${settings}/policies`, policy);
    expect(r.status).toBe(502);
    expect((await emu().api("GET", `${settings}/policies`)).body.result).toHaveLength(1);
  });

  test("after + reset makes the write and drops the connection", async () => {
    await emu().admin("POST", "faults", { method: "PUT", reset: true, after: true, count: 1 });
    await expect(emu().api("PUT", settings, { enabled: true })).rejects.toThrow();
    expect((await emu().api("GET", settings)).body.result.enabled).toBe(true);
  });

  test("probability with a seed fires the same way every time", async () => {
    const pattern = async () => {
      await emu().admin("DELETE", "faults");
      await emu().admin("POST", "faults", { status: 500, probability: 0.5, seed: 42 });
      const out: number[] = [];
      for (let i = 0; i < 12; i++) out.push((await emu().api("GET", settings)).status);
      return out;
    };
    const a = await pattern();
    expect(a).toContain(500);
    expect(a).toContain(200);
    expect(await pattern()).toEqual(a);
  });

  test("delay_ms alone slows the answer down", async () => {
    await emu().admin("POST", "faults", { delay_ms: 200, count: 1 });
    const t0 = Date.now();
    expect((await emu().api("GET", settings)).status).toBe(200);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(190);
  });

  test("DELETE clears them; bad specs are refused", async () => {
    await emu().admin("POST", "faults", { status: 500 });
    await emu().admin("DELETE", "faults");
    expect((await emu().api("GET", settings)).status).toBe(200);
    expect((await emu().admin("POST", "faults", { path: "(", status: 500 })).status).toBe(400);
    expect((await emu().admin("POST", "faults", { count: 1 })).status).toBe(400);
    expect((await emu().admin("POST", "faults", { status: 500, probability: 2 })).status).toBe(400);
  });
});

describe("latency, rate limit, log, ownership", () => {
  test("PUT latency delays every API answer but not the admin API", async () => {
    await emu().admin("PUT", "latency", { ms: 1000 });
    let t0 = Date.now();
    await emu().api("GET", settings);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(990);
    t0 = Date.now();
    await emu().admin("GET", "requests");
    // Far under the latency: the admin API is not delayed (a margin for a loaded machine).
    expect(Date.now() - t0).toBeLessThan(700);
  });

  test("PUT rate-limit changes the limit and the headers", async () => {
    expect((await emu().admin("PUT", "rate-limit", { requests: 10, seconds: 20 })).status).toBe(200);
    const r = await emu().api("GET", settings);
    expect(r.headers.get("ratelimit-policy")).toBe("10;w=20");
    expect(r.headers.get("x-ratelimit-remaining")).toBe("9");
  });

  test("the request log keeps API calls oldest first with query and status, never admin calls", async () => {
    await emu().api("GET", `${settings}/scripts?per_page=5&page=2`);
    await emu().api("GET", `zones/bad/page_shield`);
    await emu().admin("GET", "state");
    const log = await emu().requests();
    expect(log).toEqual([
      { method: "GET", path: `/client/v4/${settings}/scripts`, query: { per_page: "5", page: "2" }, status: 200, body: null },
      { method: "GET", path: "/client/v4/zones/bad/page_shield", query: {}, status: 400, body: null },
    ]);
    await emu().admin("DELETE", "requests");
    expect(await emu().requests()).toEqual([]);
  });

  test("ownership gives the token the bucket would hold", async () => {
    const destination = "s3://logs/{DATE}?region=us-east-1";
    const r = await emu().admin("GET", `ownership/${ZONES.com}?destination=${encodeURIComponent(destination)}`);
    expect(r.body).toEqual({ token: ownershipToken(ZONES.com, destination) });
    expect((await emu().admin("GET", `ownership/${ZONES.com}`)).status).toBe(400);
  });

  test("an unknown admin endpoint is 404", async () => {
    expect((await emu().admin("GET", "nothing")).status).toBe(404);
  });
});
