// The rate headers of today's API, as the emulator sends them: zoneform slows down on them before the
// server's budget runs out, so a run that needs more calls than the budget holds meets no 429, and
// the wait they ask for is bounded (--max-wait; the refusal of a longer one is in test/attacks/bounded).
import { describe, expect, it } from "vitest";
import { parseRateHeaders } from "../../src/cloudflare/rate-limiter.js";
import { TestEmulator, ZONE, clientOn } from "../helpers/cli.js";

const emu = TestEmulator.perFile();

describe('Ratelimit: "default";r=…;t=…', () => {
  it("answers carry the structured headers, and the client reads remaining, reset and quota from them", async () => {
    // real-answers.md, "Changes since the seed documents", rate-limit headers:
    // `Ratelimit: "default";r=<remaining>;t=<seconds>` and `Ratelimit-Policy: "default";q=<quota>;w=<window>` (since
    // 2025-09).
    await emu.admin("PUT", "rate-limit", { requests: 10, seconds: 1 });
    const r = await emu.call("GET", `zones/${ZONE.com}/page_shield`);
    const ratelimit = r.headers.get("ratelimit");
    const policy = r.headers.get("ratelimit-policy");
    expect(ratelimit).toBe('"default";r=9;t=1');
    expect(policy).toBe('"default";q=10;w=1');
    expect(parseRateHeaders({ ratelimit: ratelimit!, "ratelimit-policy": policy! })).toEqual({
      limit: 10,
      remaining: 9,
      resetSeconds: 1,
      header: 'Ratelimit: "default";r=9;t=1',
    });
  });

  it(
    "a run of 15 calls on a budget of 10 per second slows down on r and t and meets no 429, within a " + "bounded time",
    async () => {
      await emu.admin("PUT", "rate-limit", { requests: 10, seconds: 1 });
      await emu.clearRequests();
      // zoneform's own limit is Cloudflare's (1200 per 300 s): only the server's headers can slow it down.
      const { client, lines } = clientOn(emu, { parallelism: 1 });
      const t0 = Date.now();
      for (let i = 0; i < 15; i++) await client.request("GET", `zones/${ZONE.com}/page_shield`);
      const elapsed = Date.now() - t0;
      const statuses = (await emu.requests()).map((e) => e.status);
      expect(statuses).toEqual(Array(15).fill(200));
      expect(client.stats()).toEqual({ requests: 15, retries: 0, throttled: 0 });
      // Low on budget (r=1 of 10), it spread the rest over the t=1 left: one wait of about a second, no more.
      expect(lines).toContain("rate limit budget low (remaining 1): one request every 1.0s");
      expect(elapsed).toBeGreaterThanOrEqual(900);
      expect(elapsed).toBeLessThan(4000);
      await client.close();
    },
  );
});
