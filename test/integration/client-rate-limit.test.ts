// The run-wide rate limiter and concurrency cap over real HTTP: a run with the emulator's own limit is
// never throttled, a 429 pauses every caller, and --parallelism caps what is in flight.
import { Command } from "commander";
import { describe, expect, it } from "vitest";
import { addClientOptions } from "../../src/cli/client-flags.js";
import { clientFromOptions } from "../../src/cli/client-options.js";
import { memoryIO } from "../../src/cli/io.js";
import { CredentialsError, UsageError } from "../../src/errors.js";
import { TestEmulator, ZONE, clientOn } from "../helpers/cli.js";
import { HostileProxy } from "../attacks/helpers.js";

const emu = TestEmulator.perFile();

describe("rate limit", () => {
  it("keeps a burst under the emulator's limit when both limits are the same: no 429 at all", async () => {
    // The emulator's shortest window (1 s): 20 requests at 10 per second need one full window after the first burst.
    await emu.admin("PUT", "rate-limit", { requests: 10, seconds: 1 });
    const { client } = clientOn(emu, { rateLimit: { requests: 10, seconds: 1 }, parallelism: 8 });
    const t0 = Date.now();
    const results = await Promise.all(
      Array.from({ length: 20 }, () => client.request("GET", `zones/${ZONE.com}/page_shield`)),
    );
    const elapsed = Date.now() - t0;
    expect(results).toHaveLength(20);
    const log = await emu.requests();
    expect(log.map((r) => r.status)).toEqual(Array(20).fill(200));
    expect(client.stats()).toEqual({ requests: 20, retries: 0, throttled: 0 });
    expect(elapsed).toBeGreaterThanOrEqual(1000);
    await client.close();
  });

  it("finishes a run whose limit is set higher than the server's, slowing down on the rate headers", async () => {
    await emu.admin("PUT", "rate-limit", { requests: 10, seconds: 1 });
    const { client, lines } = clientOn(emu, { parallelism: 4 });
    const results = await Promise.all(
      Array.from({ length: 15 }, () => client.request("GET", `zones/${ZONE.com}/page_shield`)),
    );
    expect(results).toHaveLength(15);
    const statuses = (await emu.requests()).map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(15);
    // The rate headers make it wait before the budget runs out; any 429 that still slips through
    // (answers already in flight) is retried after its Retry-After.
    expect(client.stats().throttled).toBe(statuses.filter((s) => s === 429).length);
    expect(lines.some((l) => /rate limit budget (used up|low)/.test(l))).toBe(true);
    await client.close();
  });

  it("pauses every caller, not only the throttled one, for a 429's Retry-After", async () => {
    // A proxy answers the first read 429 with Retry-After 0.4 (seconds; the emulator's are whole seconds).
    const proxy = await HostileProxy.start(() => emu);
    let throttled = false;
    proxy.spoil = (req, res) => {
      if (throttled || !/page_shield$/.test(req.path)) return false;
      throttled = true;
      res
        .writeHead(429, { "content-type": "application/json", "retry-after": "0.4" })
        .end(JSON.stringify({ success: false, errors: [{ code: 10000, message: "rate limited" }] }));
      return true;
    };
    const { client } = clientOn(emu, { baseUrl: proxy.url });
    const first = client.request("GET", `zones/${ZONE.com}/page_shield`);
    await new Promise((r) => setTimeout(r, 100));
    const t0 = Date.now();
    await client.request("GET", `zones/${ZONE.com}/page_shield/policies`);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(200);
    await first;
    expect(client.stats()).toMatchObject({ throttled: 1 });
    await client.close();
    await proxy.close();
  });
});

describe("parallelism", () => {
  it("never has more than --parallelism requests in flight", async () => {
    await emu.admin("PUT", "latency", { ms: 150 });
    // A proxy in front of the emulator counts the requests in flight (no wall-clock comparison).
    const proxy = await HostileProxy.start(() => emu);
    let inFlight = 0;
    let most = 0;
    proxy.spoil = async (_req, res, forward) => {
      most = Math.max(most, ++inFlight);
      const upstream = await forward();
      inFlight--;
      res.writeHead(upstream.status, upstream.headers).end(upstream.body);
      return true;
    };
    const timed = async (parallelism: number) => {
      most = 0;
      const { client } = clientOn(emu, { parallelism, baseUrl: proxy.url });
      const t0 = Date.now();
      await Promise.all(Array.from({ length: 6 }, () => client.request("GET", `zones/${ZONE.com}/page_shield`)));
      await client.close();
      return { ms: Date.now() - t0, most };
    };
    const two = await timed(2);
    const six = await timed(6);
    await proxy.close();
    // Two at a time need three rounds of the emulator's latency; six at a time send more than two at once.
    expect(two.ms).toBeGreaterThanOrEqual(450);
    expect(two.most).toBeLessThanOrEqual(2);
    expect(six.most).toBeGreaterThan(2);
    expect(six.most).toBeLessThanOrEqual(6);
  });
});

describe("client flags and environment", () => {
  it("builds the client from CLOUDFLARE_API_BASE_URL and the token, logging calls to stderr with --verbose", async () => {
    const { io, stderr } = memoryIO({
      env: { CLOUDFLARE_API_BASE_URL: emu.url, CLOUDFLARE_API_TOKEN: "emulator-token" },
    });
    const client = clientFromOptions({ verbose: true, parallelism: 2, rateLimit: "100/10", timeout: "5s" }, io);
    await client.request("GET", `zones/${ZONE.com}/page_shield`);
    await client.close();
    expect(stderr()).toMatch(new RegExp(`^GET zones/${ZONE.com}/page_shield 200 \\d+ms\\n$`));
    expect(stderr()).not.toContain("emulator-token");
  });

  it("--api-url wins over the environment, and the email + key pair works", async () => {
    const { io } = memoryIO({
      env: {
        CLOUDFLARE_API_BASE_URL: "http://127.0.0.1:1/nowhere",
        CLOUDFLARE_EMAIL: "user@example.com",
        CLOUDFLARE_API_KEY: "emulator-key",
      },
    });
    const client = clientFromOptions({ apiUrl: emu.url }, io);
    expect(await client.request("GET", `zones/${ZONE.com}/page_shield`)).toMatchObject({ enabled: false });
    await client.close();
  });

  it("names the variables when there are no credentials, and rejects bad flag values", () => {
    expect(() => clientFromOptions({}, memoryIO({ env: {} }).io)).toThrow(CredentialsError);
    expect(() => clientFromOptions({}, memoryIO({ env: {} }).io)).toThrow(
      /CLOUDFLARE_API_TOKEN.*CLOUDFLARE_EMAIL and CLOUDFLARE_API_KEY/,
    );
    const parse = (args: string[]) => {
      const cmd = addClientOptions(new Command("plan").exitOverride().action(() => undefined));
      cmd.parse(args, { from: "user" });
      return cmd.opts();
    };
    expect(parse([])).toMatchObject({ parallelism: 8 });
    expect(
      parse(["--parallelism", "3", "--rate-limit", "600/300", "--timeout", "10s", "--api-url", "http://x/client/v4"]),
    ).toEqual({
      parallelism: 3,
      rateLimit: { requests: 600, seconds: 300 },
      timeout: 10_000,
      apiUrl: "http://x/client/v4",
    });
    expect(() => parse(["--parallelism", "many"])).toThrow(UsageError);
    expect(() => parse(["--rate-limit", "1200"])).toThrow(/--rate-limit must be N\/S/);
    expect(() => parse(["--timeout", "0"])).toThrow(/--timeout/);
  });
});
