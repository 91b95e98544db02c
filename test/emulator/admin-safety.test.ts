// Issue 34: the emulator is safe on a developer's machine. The admin API (no credentials) answers only
// requests to a loopback host with the emulator's port, from no other origin, with JSON bodies only, so a
// web page in the developer's browser (a cross-origin text/plain POST, DNS rebinding) cannot reset or
// fault it; every body, admin or API, is capped and read within a time, before authentication; and a
// fault's path is a plain pattern matched in linear time, so no pattern can wedge the emulator.
import { request } from "node:http";
import { describe, expect, it } from "vitest";
import { MAX_PATH_PATTERN_LENGTH, pathPattern, pathPatternProblem } from "../../src/emulator/faults.js";
import { MAX_ADMIN_BODY_BYTES, MAX_API_BODY_BYTES } from "../../src/emulator/http-util.js";
import { TestEmulator, TOKEN, ZONE } from "../helpers/cli.js";

const emu = TestEmulator.perFile({ bodyTimeoutMs: 500 });
const SETTINGS = `zones/${ZONE.com}/page_shield`;

interface RawAnswer {
  status: number;
  body: string;
  ms: number;
}

/**
 * One request over plain node:http, headers exactly as given (Host included: fetch cannot set it); `body`
 * is sent whole, `trickle` sends the headers and then only part of the announced body.
 */
function raw(
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string | Buffer,
  opts: { trickle?: boolean } = {},
): Promise<RawAnswer> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port: emu.port, method, path, headers, setHost: false }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (d: string) => (text += d));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text, ms: Date.now() - started }));
      res.on("error", reject);
    });
    // The emulator may close the connection before all of a refused body is sent.
    req.on("error", (err) => (opts.trickle ? undefined : reject(err)));
    if (body !== undefined) req.write(body);
    if (!opts.trickle) req.end();
  });
}

const host = () => `127.0.0.1:${emu.port}`;
const json = { "content-type": "application/json" };

/** Faults in force: what a refused admin call must leave unchanged. */
const faults = async () => emu.admin<unknown[]>("GET", "/faults");

describe("the admin API answers only requests to a loopback host, with the emulator's port", () => {
  it("a Host that is not loopback (a DNS-rebound name), a wrong port, or none: 403, nothing changed", async () => {
    await emu.fault({ status: 503, count: 1, path: "nowhere" });
    for (const h of ["evil.example:" + emu.port, "evil.example", "127.0.0.1:1", "localhost", "127.0.0.1.nip.io:1"]) {
      const r = await raw("POST", "/__emulator/reset", { host: h });
      expect(r.status, h).toBe(403);
      expect(JSON.parse(r.body).error).toContain(
        `the admin API answers only requests to this machine by a loopback address with the port (127.0.0.1:${emu.port}`,
      );
    }
    // No Host at all: Node's server itself refuses it (400), before the emulator.
    const none = await raw("DELETE", "/__emulator/faults", {});
    expect([400, 403]).toContain(none.status);
    expect(await faults()).toHaveLength(1);
  });

  it("127.0.0.1, localhost and [::1] with the port are answered", async () => {
    for (const h of [host(), `localhost:${emu.port}`, `[::1]:${emu.port}`, `LOCALHOST:${emu.port}`]) {
      const r = await raw("GET", "/__emulator/faults", { host: h });
      expect(r.status, h).toBe(200);
    }
  });

  it("the API itself is not the admin API's: its Host is not checked (it has credentials)", async () => {
    const r = await raw("GET", `/client/v4/${SETTINGS}`, {
      host: "anything.example",
      authorization: `Bearer ${TOKEN}`,
    });
    expect(r.status).toBe(200);
  });
});

describe("the admin API refuses other origins and bodies that are not JSON", () => {
  it("an Origin that is not the emulator's own: 403, nothing changed", async () => {
    await emu.fault({ status: 503, count: 1, path: "nowhere" });
    for (const origin of [
      "http://evil.example",
      "null",
      `https://127.0.0.1:${emu.port}`,
      "http://127.0.0.1:1",
      `http://evil.example:${emu.port}`,
    ]) {
      const r = await raw("POST", "/__emulator/reset", { host: host(), origin });
      expect(r.status, origin).toBe(403);
      expect(JSON.parse(r.body).error).toBe(
        `the admin API refuses requests from another origin (Origin: ${JSON.stringify(origin)}): a web page may not ` +
          "change the emulator",
      );
    }
    expect(await faults()).toHaveLength(1);
    const own = await raw("DELETE", "/__emulator/faults", { host: host(), origin: `http://localhost:${emu.port}` });
    expect(own.status).toBe(200);
    expect(await faults()).toEqual([]);
  });

  it("a simple cross-site body (text/plain, a form, none named): 415, nothing changed", async () => {
    const fault = JSON.stringify({ status: 500 });
    for (const type of ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", ""]) {
      const headers: Record<string, string> = { host: host(), "content-length": String(fault.length) };
      if (type) headers["content-type"] = type;
      const r = await raw("POST", "/__emulator/faults", headers, fault);
      expect(r.status, type).toBe(415);
      expect(JSON.parse(r.body).error).toContain(
        "the admin API takes JSON bodies only: send Content-Type: application/json",
      );
    }
    expect(await faults()).toEqual([]);
    const ok = await raw("POST", "/__emulator/faults", { host: host(), ...json }, fault);
    expect(ok.status).toBe(200);
    expect(await faults()).toHaveLength(1);
  });
});

describe("every body is capped and read within a time, before authentication", () => {
  it("an admin body announcing more than the cap: 413 at once, unread; nothing changed", async () => {
    const r = await raw(
      "PUT",
      "/__emulator/state",
      { host: host(), ...json, "content-length": String(MAX_ADMIN_BODY_BYTES + 1) },
      "{",
      { trickle: true },
    );
    expect(r.status).toBe(413);
    expect(JSON.parse(r.body).error).toBe(
      `the request body is larger than the ${MAX_ADMIN_BODY_BYTES} bytes the emulator reads`,
    );
    expect(r.ms).toBeLessThan(2000);
    expect((await emu.call("GET", SETTINGS)).status).toBe(200);
  });

  it("an API body going past its cap, without a Content-Length, unauthenticated: 413, logged, not routed", async () => {
    const big = Buffer.alloc(MAX_API_BODY_BYTES + 64 * 1024, 0x20);
    const r = await raw(
      "PUT",
      `/client/v4/${SETTINGS}`,
      { host: host(), ...json, "transfer-encoding": "chunked" },
      big,
      {
        trickle: true,
      },
    );
    expect(r.status).toBe(413);
    expect(JSON.parse(r.body)).toMatchObject({
      success: false,
      errors: [
        { code: 10001, message: `the request body is larger than the ${MAX_API_BODY_BYTES} bytes the emulator reads` },
      ],
    });
    expect((await emu.requests()).map((q) => [q.method, q.status])).toEqual([["PUT", 413]]);
    // The emulator is still there for the next request.
    expect((await emu.call("GET", SETTINGS)).status).toBe(200);
  });

  it("a body that does not arrive (the headers promise 100 bytes, 10 come): 408 within the body timeout", async () => {
    for (const path of ["/__emulator/faults", `/client/v4/${SETTINGS}`]) {
      const r = await raw("POST", path, { host: host(), ...json, "content-length": "100" }, '{"status":', {
        trickle: true,
      });
      expect(r.status, path).toBe(408);
      expect(r.body).toContain("the request body did not arrive within 500 ms");
      expect(r.ms).toBeGreaterThanOrEqual(450);
      expect(r.ms).toBeLessThan(3000);
    }
    expect(await faults()).toEqual([]);
  });
});

describe("a fault's path is a plain pattern, matched in linear time", () => {
  it("substring, ^ prefix, $ suffix, both for the whole path, * for any run, | for alternatives", () => {
    const p = `zones/${ZONE.com}/page_shield/policies`;
    const cases: Array<[string, boolean]> = [
      ["page_shield", true],
      ["policies$", true],
      ["page_shield$", false],
      ["^zones/", true],
      ["^page_shield", false],
      [`^${p}$`, true],
      [`^${p}/x$`, false],
      ["^zones/*/policies$", true],
      ["^zones/*/rules$", false],
      ["zones/*/page_shield/*", true],
      ["waf_migration|policies$", true],
      ["waf_migration|entrypoint", false],
      ["page.shield", false],
      ["*", true],
      ["^*$", true],
    ];
    for (const [pattern, matches] of cases) expect(pathPattern(pattern)(p), pattern).toBe(matches);
  });

  it("refuses regular-expression syntax and overlong patterns, naming why", () => {
    expect(pathPatternProblem("(a+)+$")).toBe('"(" is not plain text: a path pattern is not a regular expression');
    expect(pathPatternProblem("rulesets/[0-9a-f]+/rules$")).toContain('"[" is not plain text');
    expect(pathPatternProblem("a\\d")).toContain('"\\\\" is not plain text');
    expect(pathPatternProblem("x".repeat(MAX_PATH_PATTERN_LENGTH + 1))).toBe(
      `longer than ${MAX_PATH_PATTERN_LENGTH} characters`,
    );
    expect(pathPatternProblem("^zones/*/page_shield/policies$|logpush")).toBeUndefined();
  });

  it("the pattern a regex engine backtracks on for ever takes milliseconds, and the emulator answers on", async () => {
    // As a regex, (a*)*b-like work: every * tried at every place. Here each piece is found once.
    const pattern = `${"*a".repeat(200)}*b`;
    const path = "a".repeat(16 * 1024);
    const t0 = performance.now();
    expect(pathPattern(pattern)(path)).toBe(false);
    expect(performance.now() - t0).toBeLessThan(200);
    await emu.fault({ status: 503, path: pattern.slice(0, MAX_PATH_PATTERN_LENGTH) });
    const r = await emu.call("GET", `zones/${ZONE.com}/${"a".repeat(4000)}`);
    expect(r.status).toBe(404);
    expect((await emu.call("GET", SETTINGS)).status).toBe(200);
  });
});
