// Issue 15, "hangs": a body that drips one byte at a time, each sooner than the timeout. Each byte
// resets undici's idle timers, so `--timeout` alone never fired and the run hung for as long as the
// server kept dripping. Every attempt now has an overall deadline: a read is cut there (and retried
// like any timeout), a write cut there is reported as one that may have been made, never re-sent.
// The deadlines are short (the client's 500 ms, the CLI's 1000 ms) and the drips shorter still, so
// that the cut is the deadline's and the file takes seconds, not the minutes a whole answer would.
import { describe, expect, it } from "vitest";
import { createClient } from "../../src/cloudflare/client.js";
import { NetworkError } from "../../src/errors.js";
import { TestEmulator, ZONE, writeConfig } from "../helpers/cli.js";
import { changingWrites, drip, envelope, runBuilt, STACK, useHostileProxy } from "./helpers.js";

const emu = TestEmulator.perFile();
const hostile = useHostileProxy(emu);

const Z = ZONE.com;
const SETTINGS = new RegExp(`^zones/${Z}/page_shield$`);
const POLICIES = new RegExp(`^zones/${Z}/page_shield/policies$`);
/** A whole, valid answer: it would take tens of seconds at one byte every DRIP_MS. */
const LONG_ANSWER = envelope({
  enabled: false,
  use_cloudflare_reporting_endpoint: true,
  use_connection_url_path: false,
  updated_at: "2024-01-01T00:00:00Z",
});
/** Under the CLI's --timeout (TIMEOUT_MS): every byte comes before an idle timer of that length fires. */
const DRIP_MS = 700;
const TIMEOUT_MS = 1_000;
/**
 * A run still going at this point is killed and fails its test: far under the minutes the drips take,
 * far over what a run cut at its deadline needs even on a loaded machine (no wall-clock assert here).
 */
const KILL_MS = 30_000;

const CONFIG = `version: 1
zones:
  - zone_id: ${Z}
    name: example.com
    page_shield:
      enabled: true
      policies:
        - { description: Checkout, action: log, expression: 'http.request.uri.path contains "/checkout"', value: "script-src 'self'" }
`;

describe("a body that drips one byte at a time", () => {
  it("fails a GET at the 500 ms deadline with a timeout message (client with retries 0)", async () => {
    hostile.proxy.spoil = (req, res) => {
      if (!SETTINGS.test(req.path)) return false;
      drip(res, 200, LONG_ANSWER, 300);
      return true;
    };
    const client = createClient({
      baseUrl: hostile.proxy.url,
      auth: { token: "emulator-token" },
      timeoutMs: 500,
      retries: 0,
    });
    const t0 = Date.now();
    const err = await client.request("GET", `zones/${Z}/page_shield`).then(
      () => undefined,
      (e: unknown) => e,
    );
    const ms = Date.now() - t0;
    await client.close();
    expect(err).toBeInstanceOf(NetworkError);
    expect((err as NetworkError).message).toBe(
      `GET zones/${Z}/page_shield: no answer within 500 ms (ZONEFORM_ATTEMPT_DEADLINE); raise --timeout or ` +
        `try again later`,
    );
    expect(ms).toBeGreaterThanOrEqual(450);
    expect(hostile.proxy.seen("GET", SETTINGS)).toBe(1);
  }, 10_000);

  it("retries a GET cut at its deadline with a whole new request, then fails with the timeout message " +
    "(client with retries 1)", async () => {
    hostile.proxy.spoil = (req, res) => {
      if (!SETTINGS.test(req.path)) return false;
      drip(res, 200, LONG_ANSWER, 150);
      return true;
    };
    const client = createClient({
      baseUrl: hostile.proxy.url,
      auth: { token: "emulator-token" },
      timeoutMs: 500,
      retries: 1,
      retryBaseDelayMs: 50,
    });
    const t0 = Date.now();
    const err = await client.request("GET", `zones/${Z}/page_shield`).then(
      () => undefined,
      (e: unknown) => e,
    );
    const ms = Date.now() - t0;
    await client.close();
    const attempts = hostile.proxy.log.filter((r) => SETTINGS.test(r.path));
    expect(attempts.map((r) => r.headers.range)).toEqual([undefined, undefined]);
    expect((err as NetworkError).message).toBe(
      `GET zones/${Z}/page_shield: no answer within 500 ms (ZONEFORM_ATTEMPT_DEADLINE) after 1 retry; raise ` +
        `--timeout or try again later`,
    );
    expect(ms).toBeGreaterThanOrEqual(950);
  }, 10_000);

  it("a GET whose connection drops mid-body is retried with a whole new request and reads the " +
    "retried answer", async () => {
    let attempts = 0;
    hostile.proxy.spoil = async (req, res, forward) => {
      if (!SETTINGS.test(req.path)) return false;
      if (++attempts > 1) return false;
      const upstream = await forward();
      res.writeHead(200, { "content-type": "application/json", "content-length": String(upstream.body.length) });
      res.write(upstream.body.subarray(0, 5));
      setTimeout(() => res.socket?.destroy(), 50);
      return true;
    };
    const client = createClient({
      baseUrl: hostile.proxy.url,
      auth: { token: "emulator-token" },
      timeoutMs: 2_000,
      retries: 2,
      retryBaseDelayMs: 20,
    });
    const result = await client.request<{ enabled: boolean }>("GET", `zones/${Z}/page_shield`).then(
      (r) => r,
      (e: Error) => e.message,
    );
    await client.close();
    expect(hostile.proxy.log.filter((r) => SETTINGS.test(r.path)).map((r) => r.headers.range)).toEqual([
      undefined,
      undefined,
    ]);
    expect(result).toMatchObject({ enabled: false });
  }, 10_000);

  it(
    "plan --timeout 1000 cuts the dripping read at its deadline and plans from the retried answer",
    async () => {
      const config = await writeConfig(CONFIG);
      let dripped = 0;
      hostile.proxy.spoil = (req, res) => {
        if (req.method !== "GET" || !SETTINGS.test(req.path) || dripped > 0) return false;
        dripped++;
        drip(res, 200, LONG_ANSWER, DRIP_MS);
        return true;
      };
      const r = await runBuilt(
        ["plan", "-c", config, "--timeout", String(TIMEOUT_MS), "--detailed-exitcode", "--api-url", hostile.proxy.url],
        { deadlineMs: KILL_MS },
      );
      expect(r.killed, "the dripping body held the run until it was killed").toBe(false);
      expect(r.stderr).not.toMatch(STACK);
      expect(changingWrites(await emu.calls())).toEqual([]);
      expect(hostile.proxy.seen("GET", SETTINGS)).toBe(2);
      expect(r.code, r.stdout + r.stderr).toBe(2);
      expect(r.stdout).toContain('+ page_shield_policy "Checkout"');
    },
    KILL_MS + 10_000,
  );

  it(
    "apply --timeout 1000: a POST that was carried out but whose answer drips is cut at the deadline, given " +
      "time to land, found made and adopted; never sent twice",
    async () => {
      const config = await writeConfig(CONFIG.replace("enabled: true", "enabled: false"));
      hostile.proxy.spoil = async (req, res, forward) => {
        if (req.method !== "POST" || !POLICIES.test(req.path)) return false;
        const upstream = await forward();
        drip(res, upstream.status, upstream.body.toString("utf8"), DRIP_MS);
        return true;
      };
      const r = await runBuilt(
        ["apply", "-c", config, "--auto-approve", "--timeout", String(TIMEOUT_MS), "--api-url", hostile.proxy.url],
        { deadlineMs: KILL_MS },
      );
      expect(r.killed, "the dripping body held the run until it was killed").toBe(false);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toContain(
        `POST zones/${Z}/page_shield/policies: the answer was lost, but what it creates is there: adopted`,
      );
      // Exactly the one POST the plan asked for: carried out, never sent twice.
      expect(changingWrites(await emu.calls())).toEqual([`POST zones/${Z}/page_shield/policies`]);
      expect(await emu.api<unknown[]>("GET", `zones/${Z}/page_shield/policies`)).toHaveLength(1);
    },
    KILL_MS + 10_000,
  );
});
