// Issue 34: memory is bounded per run. A hostile proxy in front of the emulator answers a zone's policy
// list with page after page of large policies (each page under --max-body-size, the list within its item
// and page caps), or with a page of tiny objects that take 25 times their text once read. Before, plan
// ended after 90 s with V8's "heap out of memory" and a native stack; now the answers to a run's reads
// count against --max-read-bytes (default 512 MiB) as they arrive and before they are parsed, and the
// run stops with one line naming the cap, exit 1, nothing written. The pages are generated as they are
// written: the test process never holds one.
import type { ServerResponse } from "node:http";
import { describe, expect, it } from "vitest";
import { createClient } from "../../src/cloudflare/client.js";
import { RunStoppedError } from "../../src/errors.js";
import { TOKEN, TestEmulator, ZONE, writeConfig } from "../helpers/cli.js";
import { changingWrites, expectFailure, runBuilt, STACK, useHostileProxy } from "../attacks/helpers.js";

const emu = TestEmulator.perFile();
const hostile = useHostileProxy(emu);
const Z = ZONE.com;
const POLICIES = new RegExp(`^zones/${Z}/page_shield/policies$`);

const CONFIG = `version: 1
zones:
  - zone_id: ${Z}
    name: example.com
    page_shield:
      enabled: true
      policies:
        - { description: Checkout, action: log, expression: 'http.request.uri.path contains "/checkout"', value: "script-src 'self'" }
`;

const CAP_MESSAGE =
  /the answers to this run's reads went past (\d+) bytes \([\d.]+ MiB\), the most zoneform holds in one run \(--max-read-bytes, ZONEFORM_MAX_READ_BYTES\); it stopped reading and sent nothing more\. If the zones really hold that much, raise the cap, e\.g\. --max-read-bytes 2GiB/;
/** What must never be seen, whatever the answers: V8 running out of heap, a native stack, an internal error. */
const ABORT = /heap out of memory|FATAL ERROR|Native stack|Internal error/;

const writes = async () => changingWrites((await emu.calls({ writesOnly: true })) as string[]);

/**
 * Answers page `page` of a list of `totalPages`, `items` policies of about 2 KiB each with ids of their own,
 * generated while it is written (one item's bytes copied into each slot, its id written in place, with
 * back-pressure); counts the bytes written.
 */
function policyPage(
  res: ServerResponse,
  page: number,
  opts: { items: number; totalPages: number },
  sent: { bytes: number },
): void {
  res.writeHead(200, { "content-type": "application/json" });
  res.write(
    `{"success":true,"errors":[],"messages":[],"result_info":{"page":${page},"per_page":${opts.items},` +
      `"total_pages":${opts.totalPages}},"result":[`,
  );
  const item = Buffer.from(
    `${JSON.stringify({
      id: "0".repeat(32),
      description: `policy ${page}`,
      action: "log",
      expression: "true",
      value: `script-src 'self' https://${"x".repeat(2000)}.example`,
      enabled: true,
    })},`,
  );
  const idAt = item.indexOf("0".repeat(32));
  const prefix = page.toString(16).padStart(8, "0");
  const perChunk = 128;
  let i = 0;
  const pump = () => {
    while (i < opts.items && !res.destroyed) {
      const n = Math.min(perChunk, opts.items - i);
      const chunk = Buffer.allocUnsafe(n * item.length);
      for (let k = 0; k < n; k++, i++) {
        item.copy(chunk, k * item.length);
        chunk.write(`${prefix}${i.toString(16).padStart(24, "0")}`, k * item.length + idAt, "latin1");
      }
      // The last item has no comma after it.
      const out = i === opts.items ? chunk.subarray(0, chunk.length - 1) : chunk;
      sent.bytes += out.length;
      if (!res.write(out)) {
        res.once("drain", pump);
        return;
      }
    }
    if (!res.destroyed) res.end("]}");
  };
  pump();
}

/** Page after page of ~60 MiB of policies (30 000 of 2 KiB: within the item, page and body caps). */
function hugePolicyPages(sent: { bytes: number }): void {
  hostile.proxy.spoil = (req, res) => {
    if (req.method !== "GET" || !POLICIES.test(req.path)) return false;
    policyPage(res, Number(req.query.get("page") ?? "1"), { items: 30_000, totalPages: 40 }, sent);
    return true;
  };
}

describe("the answers to a run's reads take at most --max-read-bytes (default 512 MiB)", () => {
  it("huge policy pages, default caps: apply stops at 512 MiB with one line, exit 1, no V8 abort, nothing written", async () => {
    const sent = { bytes: 0 };
    hugePolicyPages(sent);
    const r = await runBuilt(
      ["apply", "-c", await writeConfig(CONFIG), "--auto-approve", "--api-url", hostile.proxy.url],
      { deadlineMs: 90_000 },
    );
    expect(r.killed).toBe(false);
    expect(r.stderr).not.toMatch(ABORT);
    expectFailure(r, 1);
    expect(r.stderr).toMatch(CAP_MESSAGE);
    expect(Number(CAP_MESSAGE.exec(r.stderr)![1])).toBe(512 * 1024 * 1024);
    // Stopped at the cap: what was sent is the cap and the sockets' buffers, not the 40 pages.
    expect(sent.bytes).toBeLessThan(512 * 1024 * 1024 + 96 * 1024 * 1024);
    expect(hostile.proxy.seen("GET", POLICIES)).toBeLessThan(12);
    expect(await writes()).toEqual([]);
  }, 120_000);

  it("--max-read-bytes and ZONEFORM_MAX_READ_BYTES set the cap (the flag wins); plan stops at it", async () => {
    const sent = { bytes: 0 };
    hugePolicyPages(sent);
    const config = await writeConfig(CONFIG);
    const r = await runBuilt(["plan", "-c", config, "--max-read-bytes", "100MiB", "--api-url", hostile.proxy.url], {
      env: { ZONEFORM_MAX_READ_BYTES: "3GiB" },
      deadlineMs: 60_000,
    });
    expectFailure(r, 1);
    expect(r.stderr).toContain("the answers to this run's reads went past 104857600 bytes (100.0 MiB)");
    expect(r.stderr).not.toMatch(ABORT);
    expect(hostile.proxy.seen("GET", POLICIES)).toBeLessThanOrEqual(3);
    const viaEnv = await runBuilt(["plan", "-c", config, "--api-url", hostile.proxy.url], {
      env: { ZONEFORM_MAX_READ_BYTES: "64MiB" },
      deadlineMs: 60_000,
    });
    expectFailure(viaEnv, 1);
    expect(viaEnv.stderr).toContain("went past 67108864 bytes (64.0 MiB)");
    const bad = await runBuilt(["plan", "-c", config, "--max-read-bytes", "lots", "--api-url", hostile.proxy.url]);
    expectFailure(bad, 3);
    expect(bad.stderr).toContain(
      '--max-read-bytes must be a size from 1KiB to 4GiB (bytes, or with a unit: 512KiB, 64MiB, 1GiB), got "lots"',
    );
  }, 120_000);

  it("one page of tiny objects (25 times its text once read) is stopped before it is parsed", async () => {
    // 48 MiB of `[{}],` : under --max-body-size, but about 1.2 GiB of heap once parsed.
    const unit = "[{}],";
    const count = Math.floor((48 * 1024 * 1024) / unit.length);
    hostile.proxy.spoil = (req, res) => {
      if (req.method !== "GET" || !POLICIES.test(req.path)) return false;
      res.writeHead(200, { "content-type": "application/json" });
      res.write('{"success":true,"errors":[],"messages":[],"result":[');
      const block = unit.repeat(4096);
      let left = Math.floor(count / 4096);
      const pump = () => {
        while (left > 0 && !res.destroyed) {
          left--;
          if (!res.write(block)) {
            res.once("drain", pump);
            return;
          }
        }
        if (!res.destroyed) res.end("[{}]]}");
      };
      pump();
      return true;
    };
    const client = createClient({ baseUrl: hostile.proxy.url, auth: { token: TOKEN } });
    const t0 = Date.now();
    const err = await client.listAll(`zones/${Z}/page_shield/policies`).catch((e: unknown) => e);
    await client.close();
    expect(err).toBeInstanceOf(RunStoppedError);
    expect((err as Error).message).toMatch(CAP_MESSAGE);
    expect(Date.now() - t0).toBeLessThan(20_000);
    const r = await runBuilt(["plan", "-c", await writeConfig(CONFIG), "--api-url", hostile.proxy.url], {
      deadlineMs: 60_000,
    });
    expect(r.stderr).not.toMatch(ABORT);
    expectFailure(r, 1);
    expect(r.stderr).toMatch(CAP_MESSAGE);
  }, 90_000);

  it("an answer nested deeper than any real one is refused unread, as the zone's error (no stack overflow)", async () => {
    const deep = `{"success":true,"errors":[],"messages":[],"result":${"[".repeat(100_000)}${"]".repeat(100_000)}}`;
    hostile.proxy.spoil = (req, res) => {
      if (req.method !== "GET" || !POLICIES.test(req.path)) return false;
      res.writeHead(200, { "content-type": "application/json" }).end(deep);
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
    expectFailure(r, 1);
    // The envelope is level 1 and the result's first list level 2: level 33 is the 32nd bracket of the result.
    const column = deep.indexOf('"result":[') + '"result":'.length + 32;
    expect(r.stderr).toContain(
      `GET zones/${Z}/page_shield/policies: the answer nests deeper than 32 levels (line 1, column ${column}); no ` +
        "answer of the API does, so zoneform did not read it, and changed nothing",
    );
    expect(r.stderr).not.toMatch(STACK);
    expect(await writes()).toEqual([]);
  }, 30_000);

  it("the answers of an ordinary run are far below the cap: plan, apply, plan shows no changes", async () => {
    const config = await writeConfig(CONFIG);
    const env = { ZONEFORM_MAX_READ_BYTES: "1MiB" };
    const apply = await runBuilt(["apply", "-c", config, "--auto-approve", "--api-url", emu.url], { env });
    expect(apply.code, apply.stderr).toBe(0);
    const again = await runBuilt(["plan", "-c", config, "--detailed-exitcode", "--api-url", emu.url], { env });
    expect(again.code, again.stderr).toBe(0);
  }, 30_000);
});
