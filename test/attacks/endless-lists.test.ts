// Issue 15, "hangs and unbounded memory": a list that never ends. A page-style list that ignores
// `page` (the same items on every page, with a result_info that claims more pages) used to be read
// forever; so did a cursor list whose cursor changes on every page while its items repeat. Each read
// must stop at the first repeated page with a message saying so, within a few requests, and the zone
// must fail without a write.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createClient } from "../../src/cloudflare/client.js";
import { ApiError } from "../../src/errors.js";
import { TestEmulator, ZONE, writeConfig } from "../helpers/cli.js";
import { changingWrites, envelope, expectFailure, runBuilt, useHostileProxy } from "./helpers.js";

const emu = TestEmulator.perFile();
const hostile = useHostileProxy(emu);

const Z = ZONE.com;
const HOSTNAMES_PATH = new RegExp(`^zones/${Z}/custom_hostnames$`);
const SCRIPTS_PATH = new RegExp(`^zones/${Z}/page_shield/scripts$`);

/** 50 well-formed custom hostnames, the same on every page. */
const SAME_HOSTNAMES = Array.from({ length: 50 }, (_, i) => ({
  id: `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`,
  hostname: `shop-${i}.customers.example`,
  ssl: { status: "active", method: "http", type: "dv", certificate_authority: "google" },
  status: "active",
}));

describe("a page-style list that ignores `page`", () => {
  it("plan stops reading the custom hostnames list at page 2 (the same items as page 1), fails the zone " +
    "with exit 1 and writes nothing", async () => {
    // 25 listed hostnames not on the first page, and one more page: zoneform reads that page (fewer
    // calls than 25 lookups), which the hostile list answers with page 1 again.
    const hostnames = Array.from(
      { length: 25 },
      (_, i) => `      - { hostname: shop-${i + 50}.customers.example, certificate_authority: lets_encrypt }`,
    ).join("\n");
    const config = await writeConfig(
      `version: 1\nzones:\n  - zone_id: ${Z}\n    name: example.com\n    custom_hostnames:\n${hostnames}\n`,
    );
    hostile.proxy.spoil = (req, res) => {
      if (req.method !== "GET" || !HOSTNAMES_PATH.test(req.path)) return false;
      const page = Number(req.query.get("page") ?? "1");
      res.writeHead(200, { "content-type": "application/json" });
      res.end(envelope(SAME_HOSTNAMES, { page, per_page: 50, count: 50, total_count: 100, total_pages: 2 }));
      return true;
    };
    for (const command of [["plan"], ["apply", "--auto-approve"]]) {
      hostile.proxy.log.length = 0;
      const r = await runBuilt([...command, "-c", config, "--api-url", hostile.proxy.url], { deadlineMs: 10_000 });
      expect(r.killed, "the list was read until the run was killed").toBe(false);
      expectFailure(r, 1);
      expect(r.stderr).toBe(
        "Error: 1 zone could not be planned; nothing was changed:\n" +
          `  [example.com] reading custom_hostname: GET zones/${Z}/custom_hostnames: page 2 holds the same ` +
          `items as page 1 (the list ignores paging); ` +
          "stopping so the list is not read forever, and nothing was changed\n",
      );
      // The first page, then the whole list read strictly from its start: page 1 again, then page 2.
      expect(hostile.proxy.seen("GET", HOSTNAMES_PATH)).toBe(3);
    }
    expect(changingWrites(await emu.calls())).toEqual([]);
  }, 20_000);

  it("audit stops reading the Page Shield scripts list at the repeated page with exit 1, within a " +
    "few requests", async () => {
    await emu.admin("POST", "/inventory", {
      zone_id: Z,
      scripts: 250,
      connections: 0,
      cookies: 0,
      malicious_ratio: 0.1,
      seed: 3,
    });
    let first: unknown[] | undefined;
    hostile.proxy.spoil = async (req, res, forward) => {
      if (req.method !== "GET" || !SCRIPTS_PATH.test(req.path)) return false;
      // Page 1 as the API gave it, then the same items again for every page asked, claiming 250 pages.
      first ??= JSON.parse((await forward()).body.toString("utf8")).result as unknown[];
      const page = Number(req.query.get("page") ?? "1");
      res.writeHead(200, { "content-type": "application/json" });
      res.end(envelope(first, { page, per_page: 100, count: first.length, total_count: 25_000, total_pages: 250 }));
      return true;
    };
    const r = await runBuilt(["audit", "--zone", Z, "--api-url", hostile.proxy.url], { deadlineMs: 10_000 });
    expect(r.killed, "the list was read until the run was killed").toBe(false);
    expectFailure(r, 1);
    expect(r.stderr).toContain(
      `Error: GET zones/${Z}/page_shield/scripts: page 2 holds the same items as page 1 (the list ignores ` +
        `paging); stopping so the list is not read forever, and nothing was changed\n`,
    );
    // Page 1 and the pages read ahead of it (4), never the 250 claimed.
    expect(hostile.proxy.seen("GET", SCRIPTS_PATH)).toBeGreaterThanOrEqual(2);
    expect(hostile.proxy.seen("GET", SCRIPTS_PATH)).toBeLessThanOrEqual(5);
    expect(changingWrites(await emu.calls())).toEqual([]);
  }, 20_000);
});

describe("lists read directly with the client against a hostile server", () => {
  let server: Server;
  let baseUrl: string;
  let requests = 0;
  /** Answers the nth list request (1-based). */
  let answer: (n: number, query: URLSearchParams) => string = () => envelope([]);
  /** Past this many requests the server refuses, so that a client that does not stop still ends. */
  const SERVER_CAP = 40;

  beforeAll(async () => {
    server = createServer((req, res) => {
      requests++;
      const url = new URL(req.url ?? "/", "http://x");
      if (requests > SERVER_CAP) {
        res.writeHead(400, { "content-type": "application/json" });
        res.end(
          JSON.stringify({
            success: false,
            errors: [{ code: 9999, message: "the test server's cap was reached" }],
            messages: [],
            result: null,
          }),
        );
        return;
      }
      res.writeHead(200, { "content-type": "application/json" });
      res.end(answer(requests, url.searchParams));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/client/v4`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  beforeEach(() => {
    requests = 0;
  });

  const client = () =>
    createClient({
      baseUrl,
      auth: { token: "t" },
      retries: 0,
      timeoutMs: 2_000,
      rateLimit: { requests: 10_000, seconds: 1 },
    });
  const items = (prefix: string) =>
    Array.from({ length: 5 }, (_, i) => ({ id: `${prefix}-${i}`, name: `${prefix} ${i}` }));

  async function readAll(list: AsyncIterable<unknown>): Promise<{ count: number; error: unknown }> {
    let count = 0;
    try {
      for await (const _ of list) count++;
    } catch (error) {
      return { count, error };
    }
    return { count, error: undefined };
  }

  it("a cursor list whose cursor changes on every page while its items repeat fails at page 2", async () => {
    answer = (n) => envelope(items("same"), { per_page: 5, count: 5, cursor: `cursor-${n}` });
    const c = client();
    const { count, error } = await readAll(c.paginateCursor("zones/z/things", { perPage: 5 }));
    await c.close();
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).message).toBe(
      "GET zones/z/things: page 2 holds the same items as page 1; stopping so the list is not read forever, " +
        "and nothing was changed",
    );
    expect(requests).toBe(2);
    expect(count).toBe(5);
  });

  it("a cursor list that answers the same cursor again fails instead of looping", async () => {
    let page = 0;
    answer = (n) =>
      envelope(items(`page${++page}`), { per_page: 5, count: 5, cursor: n === 1 ? "A" : n === 2 ? "B" : "A" });
    const c = client();
    const { error } = await readAll(c.paginateCursor("zones/z/things", { perPage: 5 }));
    await c.close();
    expect((error as ApiError).message).toBe(
      "GET zones/z/things: the API returned the same page cursor twice; stopping so the list is not read " +
        "forever, and nothing was changed",
    );
    expect(requests).toBe(3);
  });

  it(
    "a cursor list whose pages alternate between two sets of items under fresh cursors stops at the first " +
      "repeated page",
    async () => {
      answer = (n) => envelope(items(n % 2 === 1 ? "odd" : "even"), { per_page: 5, count: 5, cursor: `cursor-${n}` });
      const c = client();
      const { error } = await readAll(c.paginateCursor("zones/z/things", { perPage: 5 }));
      await c.close();
      expect(error).toBeInstanceOf(ApiError);
      expect((error as ApiError).message).toMatch(/^GET zones\/z\/things: page 3 holds the same items as page 1/);
      expect(requests).toBe(3);
    },
  );

  it("a page-style list read directly stops at the repeated page though result_info claims 1000 pages", async () => {
    answer = (_n, q) =>
      envelope(items("same"), {
        page: Number(q.get("page")),
        per_page: 5,
        count: 5,
        total_count: 5000,
        total_pages: 1000,
      });
    const c = client();
    const { error } = await readAll(c.paginate("zones/z/things", { perPage: 5 }));
    await c.close();
    expect((error as ApiError).message).toBe(
      "GET zones/z/things: page 2 holds the same items as page 1 (the list ignores paging); stopping so the " +
        "list is not read forever, and nothing was changed",
    );
    expect(requests).toBe(2);
  });

  it(
    "a list announcing total_pages 1e10 (issue 25: read for about 40 minutes) is refused at its first " +
      "answer, in well under a second",
    async () => {
      answer = (_n, q) =>
        envelope(items(`p${q.get("page") ?? 1}`), {
          page: Number(q.get("page") ?? 1),
          per_page: 5,
          count: 5,
          total_pages: 1e10,
        });
      const c = client();
      const started = Date.now();
      const { count, error } = await readAll(c.paginate("zones/z/things", { perPage: 5 }));
      await c.close();
      expect(Date.now() - started).toBeLessThan(1000);
      expect((error as ApiError).message).toMatch(
        /^GET zones\/z\/things: the list announces 10000000000 pages, more than the 20000 zoneform reads at most \(--max-list-pages\); stopping before reading it/,
      );
      expect(requests).toBe(1);
      expect(count).toBe(0);
    },
  );

  it("a list of fresh full pages without totals ends at the page cap, not at the server's", async () => {
    answer = (_n, q) => envelope(items(`p${q.get("page")}`), { page: Number(q.get("page")), per_page: 5, count: 5 });
    const c = createClient({
      baseUrl,
      auth: { token: "t" },
      retries: 0,
      timeoutMs: 2_000,
      rateLimit: { requests: 10_000, seconds: 1 },
      maxListPages: 10,
    });
    const { count, error } = await readAll(c.paginate("zones/z/things", { perPage: 5 }));
    await c.close();
    expect((error as ApiError).message).toMatch(
      /^GET zones\/z\/things: the list went on past 10 pages without an end \(the page cap, --max-list-pages\)/,
    );
    expect(requests).toBe(10);
    expect(count).toBe(50);
  });

  it("a page-style list whose pages alternate between two sets of items stops at the first repeated page", async () => {
    answer = (_n, q) => {
      const page = Number(q.get("page"));
      return envelope(items(page % 2 === 1 ? "odd" : "even"), {
        page,
        per_page: 5,
        count: 5,
        total_count: 5000,
        total_pages: 1000,
      });
    };
    const c = client();
    const { error } = await readAll(c.paginate("zones/z/things", { perPage: 5 }));
    await c.close();
    expect((error as ApiError).message).toMatch(/^GET zones\/z\/things: page 3 holds the same items as page 1/);
    expect(requests).toBe(3);
  });
});
