// Issue 27.1 and 27.2: every wait and every read is bounded. A hostile proxy in front of the emulator
// asks for waits longer than zoneform's cap in each header Cloudflare uses (Retry-After, the 2025-09
// `Ratelimit: "default";r=…;t=…`, the older `Ratelimit: limit=…, remaining=…, reset=…`,
// `X-RateLimit-*`), sends a body that never ends, and a gzip bomb. The built CLI must stop at once
// with a clear message and nothing more written; `--deadline` ends a run that takes too long.
import type { ServerResponse } from "node:http";
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { createClient } from "../../src/cloudflare/client.js";
import { NetworkError, RunStoppedError } from "../../src/errors.js";
import { TOKEN, TestEmulator, ZONE, writeConfig } from "../helpers/cli.js";
import { createFleet, untilAnswered } from "../helpers/fleet.js";
import { changingWrites, envelope, expectFailure, runBuilt, STACK, useHostileProxy } from "./helpers.js";

const emu = TestEmulator.perFile();
const hostile = useHostileProxy(emu);
const Z = ZONE.com;
const SETTINGS = new RegExp(`^zones/${Z}/page_shield$`);

const CONFIG = `version: 1
zones:
  - zone_id: ${Z}
    name: example.com
    page_shield:
      enabled: true
      policies:
        - { description: Checkout, action: log, expression: 'http.request.uri.path contains "/checkout"', value: "script-src 'self'" }
        - { description: Everything, action: log, expression: 'not http.request.uri.path contains "/checkout"', value: "script-src 'self'" }
`;

const writes = async () => changingWrites((await emu.calls({ writesOnly: true })) as string[]);

describe("a wait the server asks for beyond the cap (5 minutes) ends the run before any further write", () => {
  for (const [header, value, shown] of [
    ["ratelimit", "limit=1200, remaining=0, reset=86400", "24h (Ratelimit: limit=1200, remaining=0, reset=86400)"],
    ["ratelimit", '"default";r=0;t=86400', '24h (Ratelimit: "default";r=0;t=86400)'],
    ["x-ratelimit-remaining", "0", "1h (X-RateLimit-Remaining: 0, X-RateLimit-Reset: 3600)"],
  ] as const) {
    it(
      `${header}: ${value} on a read: apply stops at once, exit 1, naming the wait and the header; ` +
        `nothing written`,
      async () => {
        hostile.proxy.spoil = async (req, res, forward) => {
          if (req.method !== "GET" || !SETTINGS.test(req.path)) return false;
          const up = await forward();
          // The emulator's own rate headers are left out: each case carries one style alone.
          const { ratelimit: _r, "ratelimit-policy": _p, "x-ratelimit-remaining": _x, ...rest } = up.headers;
          const extra =
            header === "x-ratelimit-remaining"
              ? { "x-ratelimit-remaining": "0", "x-ratelimit-reset": "3600" }
              : { [header]: value };
          res.writeHead(up.status, { ...rest, ...extra }).end(up.body);
          return true;
        };
        const r = await runBuilt([
          "apply",
          "-c",
          await writeConfig(CONFIG),
          "--auto-approve",
          "--api-url",
          hostile.proxy.url,
        ]);
        expect(r.killed).toBe(false);
        expectFailure(r, 1);
        expect(r.stderr).toContain(
          `the API asked to wait ${shown}, longer than the 5m zoneform waits at most (--max-wait); stopped at ` +
            `once, sending nothing more`,
        );
        expect(await writes()).toEqual([]);
        expect(r.ms).toBeLessThan(15_000);
      },
    );
  }

  it("Retry-After: 86400 on a 429 to the first write: nothing more is sent (--parallelism 1), exit 1", async () => {
    let refused = 0;
    hostile.proxy.spoil = (req, res) => {
      if (req.method === "GET" || refused > 0) return false;
      refused++;
      res
        .writeHead(429, { "content-type": "application/json", "retry-after": "86400" })
        .end(JSON.stringify({ success: false, errors: [{ code: 10000, message: "rate limited" }] }));
      return true;
    };
    const r = await runBuilt([
      "apply",
      "-c",
      await writeConfig(CONFIG),
      "--auto-approve",
      "--parallelism",
      "1",
      "--api-url",
      hostile.proxy.url,
    ]);
    expectFailure(r, 1);
    expect(r.stderr).toContain(
      "the API asked to wait 24h (Retry-After: 86400), longer than the 5m zoneform waits at most (--max-wait)",
    );
    expect(r.stderr).toMatch(/0 change\(s\) made, 0 failed, 3 not attempted/);
    // The refused write was the last request of all.
    expect(hostile.proxy.log.filter((q) => q.method !== "GET")).toHaveLength(1);
    expect(hostile.proxy.log.at(-1)!.spoiled).toBe(true);
    expect(await writes()).toEqual([]);
  });

  it(
    "--max-wait raises the cap: a 10-minute reset is then waited for (stopped here by --deadline, " + "exit 124)",
    async () => {
      hostile.proxy.spoil = async (req, res, forward) => {
        if (req.method !== "GET" || !SETTINGS.test(req.path)) return false;
        const up = await forward();
        res.writeHead(up.status, { ...up.headers, ratelimit: '"default";r=0;t=600' }).end(up.body);
        return true;
      };
      const r = await runBuilt([
        "apply",
        "-c",
        await writeConfig(CONFIG),
        "--auto-approve",
        "--max-wait",
        "15m",
        "--deadline",
        "2s",
        "--api-url",
        hostile.proxy.url,
      ]);
      expectFailure(r, 124);
      expect(r.stderr).toContain("waiting 10m for the rate limit");
      expect(r.stderr).toContain("apply stopped: the run's deadline (--deadline) passed: zoneform sent nothing more");
      expect(r.stderr).toMatch(/0 change\(s\) made, 0 failed, 3 not attempted/);
      expect(r.stderr).not.toContain("longer than");
      expect(await writes()).toEqual([]);
    },
  );
});

describe("--deadline", () => {
  it("ZONEFORM_DEADLINE=2s: no request goes out after it, the writes on the wire finish, exit 124 with " +
    "the report", async () => {
    const fleet = await createFleet(emu, 3, "deadline");
    await emu.clearRequests();
    const arrivals: Array<{ method: string; at: number }> = [];
    // Each write takes 700 ms (Cloudflare's checks first, `dry_run=true`, are answered at once), so that
    // writes are on the wire when the deadline passes.
    hostile.proxy.spoil = async (req) => {
      arrivals.push({ method: req.method, at: Date.now() });
      if (req.method !== "GET" && req.query.get("dry_run") !== "true") await new Promise((r) => setTimeout(r, 700));
      return false;
    };
    const t0 = Date.now();
    const r = await runBuilt(["apply", "-c", fleet.config, "--auto-approve", "--api-url", hostile.proxy.url], {
      env: { ...(fleet.env as Record<string, string>), ZONEFORM_DEADLINE: "2s" },
      deadlineMs: 30_000,
    });
    expectFailure(r, 124);
    expect(r.stderr).toContain("apply stopped: the run's deadline (--deadline) passed");
    expect(r.stderr).toMatch(/\d+ change\(s\) made, 0 failed, [1-9]\d* not attempted/);
    // The child's clock starts a little after t0: nothing arrived after its deadline (100 ms for one in the pipe).
    expect(arrivals.filter((a) => a.at > t0 + 2100)).toEqual([]);
    await untilAnswered(emu);
    expect((await emu.requests()).every((q) => q.status > 0)).toBe(true);
    await emu.admin("DELETE", "/faults");
  }, 60_000);

  it("a bad value is a usage error (exit 3) before any request", async () => {
    const r = await runBuilt([
      "plan",
      "-c",
      await writeConfig(CONFIG),
      "--deadline",
      "10",
      "--api-url",
      hostile.proxy.url,
    ]);
    expectFailure(r, 3);
    expect(r.stderr).toContain(
      '--deadline must be a duration with its unit, from 1s to 7 days (90s, 5m, 1h30m), got "10"',
    );
    expect(hostile.proxy.log).toEqual([]);
  });
});

/** Answers with a JSON list that never ends, as fast as the client reads; counts the bytes written. */
function endless(res: ServerResponse, sent: { bytes: number }): void {
  res.writeHead(200, { "content-type": "application/json" });
  const chunk = Buffer.from(`${JSON.stringify({ id: "0".repeat(32), description: "x".repeat(200) })},`.repeat(256));
  res.write('{"success":true,"errors":[],"result":[');
  const pump = () => {
    while (!res.destroyed && res.write(chunk)) sent.bytes += chunk.length;
    if (!res.destroyed) {
      sent.bytes += chunk.length;
      res.once("drain", pump);
    }
  };
  pump();
}

describe("an answer body is read up to --max-body-size (default 64 MiB), never decompressed", () => {
  it("a body that never ends: the client stops reading at 1 MiB with a clear error, quickly", async () => {
    const sent = { bytes: 0 };
    hostile.proxy.spoil = (req, res) => (SETTINGS.test(req.path) ? (endless(res, sent), true) : false);
    const client = createClient({
      baseUrl: hostile.proxy.url,
      auth: { token: TOKEN },
      maxBodyBytes: 1024 * 1024,
      retries: 2,
    });
    const t0 = Date.now();
    const err = await client.request("GET", `zones/${Z}/page_shield`).catch((e: unknown) => e);
    await client.close();
    expect(err).toBeInstanceOf(NetworkError);
    expect((err as Error).message).toBe(
      `GET zones/${Z}/page_shield: the answer's body went past 1048576 bytes, more than the 1048576 bytes ` +
        `zoneform reads of one answer (--max-body-size, ZONEFORM_MAX_BODY_SIZE); it stopped reading it`,
    );
    // Not retried: the same answer would come again.
    expect(hostile.proxy.seen("GET", SETTINGS)).toBe(1);
    expect(Date.now() - t0).toBeLessThan(5_000);
    // Bounded: what the server got out is the cap plus the sockets' buffers, not more.
    expect(sent.bytes).toBeLessThan(1024 * 1024 + 16 * 1024 * 1024);
  });

  it("the CLI with the default cap: plan stops at 64 MiB with exit 1 in seconds, nothing written", async () => {
    const sent = { bytes: 0 };
    hostile.proxy.spoil = (req, res) => (SETTINGS.test(req.path) ? (endless(res, sent), true) : false);
    const r = await runBuilt(
      ["apply", "-c", await writeConfig(CONFIG), "--auto-approve", "--api-url", hostile.proxy.url],
      { deadlineMs: 30_000 },
    );
    expect(r.killed).toBe(false);
    expectFailure(r, 1);
    expect(r.stderr).toContain(
      "the answer's body went past 67108864 bytes, more than the 67108864 bytes zoneform reads of one " +
        "answer (--max-body-size",
    );
    expect(sent.bytes).toBeLessThan(64 * 1024 * 1024 + 32 * 1024 * 1024);
    expect(await writes()).toEqual([]);
  }, 40_000);

  it("a gzip bomb (Content-Encoding: gzip, 1 GiB of zeros in 1 MiB) is refused unread; zoneform asked " +
    "for identity", async () => {
    // 1024 gzip members of 1 MiB of zeros each: one stream (RFC 1952) that inflates to 1 GiB.
    const bomb = Buffer.concat(Array(1024).fill(gzipSync(Buffer.alloc(1024 * 1024), { level: 9 })));
    expect(bomb.length).toBeLessThan(2 * 1024 * 1024);
    hostile.proxy.spoil = (req, res) => {
      if (!SETTINGS.test(req.path)) return false;
      res
        .writeHead(200, {
          "content-type": "application/json",
          "content-encoding": "gzip",
          "content-length": String(bomb.length),
        })
        .end(bomb);
      return true;
    };
    const r = await runBuilt(["plan", "-c", await writeConfig(CONFIG), "--api-url", hostile.proxy.url]);
    expectFailure(r, 1);
    expect(r.stderr).toContain(
      `GET zones/${Z}/page_shield: the answer is encoded (Content-Encoding: gzip) although zoneform asked ` +
        `for none; it was not read`,
    );
    expect(hostile.proxy.log.every((q) => q.headers["accept-encoding"] === "identity")).toBe(true);
    expect(r.stderr).not.toMatch(STACK);
  }, 30_000);

  it(
    "a Content-Length beyond the cap is refused at the headers; --max-body-size raises the cap and the " +
      "read succeeds",
    async () => {
      const big = envelope({
        enabled: false,
        use_cloudflare_reporting_endpoint: true,
        use_connection_url_path: false,
        updated_at: "2024-01-01T00:00:00Z",
        pad: "x".repeat(4096),
      });
      hostile.proxy.spoil = (req, res) => {
        if (!SETTINGS.test(req.path)) return false;
        res
          .writeHead(200, { "content-type": "application/json", "content-length": String(Buffer.byteLength(big)) })
          .end(big);
        return true;
      };
      const low = createClient({ baseUrl: hostile.proxy.url, auth: { token: TOKEN }, maxBodyBytes: 1024 });
      const err = await low.request("GET", `zones/${Z}/page_shield`).catch((e: unknown) => e);
      await low.close();
      expect((err as Error).message).toContain(
        `the answer announces ${Buffer.byteLength(big)} bytes (Content-Length), more than the 1024 bytes`,
      );
      const r = await runBuilt([
        "plan",
        "-c",
        await writeConfig(CONFIG),
        "--max-body-size",
        "8KiB",
        "--api-url",
        hostile.proxy.url,
      ]);
      expect(r.code, r.stderr).toBe(0);
      const bad = await runBuilt(["plan", "-c", await writeConfig(CONFIG), "--api-url", hostile.proxy.url], {
        env: { ZONEFORM_MAX_BODY_SIZE: "12 parsecs" },
      });
      expectFailure(bad, 3);
      expect(bad.stderr).toContain(
        "ZONEFORM_MAX_BODY_SIZE must be a size from 1KiB to 4GiB (bytes, or with a unit: 512KiB, 64MiB, " +
          '1GiB), got "12 parsecs"',
      );
    },
  );
});

describe("the stop is the client's", () => {
  it("stop() refuses every call not yet sent, at once, however long it would have waited", async () => {
    const client = createClient({
      baseUrl: emu.url,
      auth: { token: TOKEN },
      parallelism: 1,
      rateLimit: { requests: 1, seconds: 600 },
    });
    await client.request("GET", `zones/${Z}/page_shield`);
    await emu.clearRequests();
    // The second call waits 10 minutes for the rate limit; the third for the one slot.
    const waiting = [
      client.request("PUT", `zones/${Z}/page_shield`, { body: { enabled: true } }),
      client.request("GET", `zones/${Z}/page_shield`),
    ].map((p) => p.catch((e: unknown) => e));
    await new Promise((r) => setTimeout(r, 50));
    const reason = new RunStoppedError("interrupted (SIGINT)", 130, "signal");
    client.stop!(reason);
    expect(await Promise.all(waiting)).toEqual([reason, reason]);
    expect(await client.request("GET", `zones/${Z}/page_shield`).catch((e: unknown) => e)).toBe(reason);
    expect(client.stopped!()).toBe(reason);
    expect(client.onTheWire!()).toEqual([]);
    expect(await emu.requests()).toEqual([]);
    await client.close();
  });
});
