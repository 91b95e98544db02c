// Issue 45: the URLs zoneform fetches itself (the payment pages of `script_inventory.headers`) are safe.
// Over real HTTP on loopback: a page on a non-public address is refused, with the problem and how to
// allow it, unless --allow-private-addresses (or ZONEFORM_ALLOW_PRIVATE_ADDRESSES=1), which also lets
// plain http:// reach loopback; every redirect's target is checked; a name that resolves to a private
// address is refused by the connection's one lookup (a fake DNS counts them); an `${env:…}` in a page URL
// is a validate error at its line; a session header a page sends never shows in any output.
import { createServer, type Server, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { readFile, writeFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type PageFetch, PageFetcher } from "../../src/inventory/page-fetch.js";
import type { PageResolver } from "../../src/inventory/page-address.js";
import { runCli, TestEmulator, tempDir, zoneId } from "../helpers/cli.js";

const emu = TestEmulator.perFile();
const NAME = "pay.example";
const ZID = zoneId(NAME);
const FIXTURES = join(import.meta.dirname, "../fixtures/config/invalid");
const ROOT = join(import.meta.dirname, "../..");

/** The value no output may ever hold: a session the page hands out. */
const SESSION = "sid=S3SSION-0f9c2e; Secure; HttpOnly";
const GOOD = { "x-frame-options": "DENY", "referrer-policy": "no-referrer" };

/** A payment page server on `host` whose routes a test sets; it records each request's path. */
class PageServer {
  readonly routes = new Map<string, (res: ServerResponse) => void>();
  readonly requests: string[] = [];
  private server?: Server;
  private readonly open = new Set<Socket>();

  constructor(readonly host = "127.0.0.1") {}

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      this.requests.push(req.url ?? "");
      const route = this.routes.get(req.url ?? "");
      if (route) route(res);
      else res.writeHead(404).end();
    });
    this.server.on("connection", (s) => {
      this.open.add(s);
      s.on("close", () => this.open.delete(s));
    });
    await new Promise<void>((r) => this.server!.listen(0, this.host, r));
  }

  get port(): number {
    return (this.server!.address() as { port: number }).port;
  }

  url(path: string, host = this.host): string {
    return `http://${host}:${this.port}${path}`;
  }

  page(path: string, headers: Record<string, string | string[]>): void {
    this.routes.set(path, (res) => res.writeHead(200, headers).end("<html>payment page</html>"));
  }

  async close(): Promise<void> {
    for (const s of this.open) s.destroy();
    await new Promise<void>((r) => this.server?.close(() => r()));
  }
}

const pages = new PageServer();
beforeAll(() => pages.start());
afterAll(() => pages.close());

let dir: string;
beforeEach(async () => {
  pages.routes.clear();
  pages.requests.length = 0;
  await emu.admin("POST", "/zones", { name: NAME, plan: "enterprise" });
  dir = await tempDir("zoneform-addresses-");
});

/** A zoneform file for the zone: its inventory's headers block with `urls` and `pinned`. */
function config(urls: string[], pinned: Record<string, string>): string {
  const pins = Object.entries(pinned).map(([k, v]) => `            ${k}: ${JSON.stringify(v)}\n`);
  return (
    `version: 1\nzones:\n  - zone_id: ${ZID}\n    name: ${NAME}\n    page_shield:\n` +
    "      script_inventory:\n        pages: [pay.example/checkout*]\n        authorized: []\n" +
    `        headers:\n          urls:\n${urls.map((u) => `            - ${u}\n`).join("")}` +
    `          pinned:\n${pins.join("") || "            {}\n"}`
  );
}

async function audit(file: string, flags: string[] = [], env: NodeJS.ProcessEnv = {}) {
  const path = join(dir, "zoneform.yaml");
  await writeFile(path, file);
  return runCli(emu, ["audit", "-c", path, "--format", "json", ...flags], { env });
}

function headersOf(stdout: string) {
  return JSON.parse(stdout).zones[0].payment_page_headers;
}

describe("audit -c: a page on a loopback address", () => {
  it("is refused without --allow-private-addresses: reported, never requested, with how to allow it", async () => {
    pages.page("/checkout", GOOD);
    const r = await audit(config([pages.url("/checkout")], GOOD));
    expect(r.code).toBe(2);
    const [finding] = headersOf(r.stdout).findings;
    expect(finding).toMatchObject({
      type: "page-unreachable",
      problem: "private-address",
      url: pages.url("/checkout"),
    });
    expect(finding.message).toContain("127.0.0.1 is a loopback address (127.0.0.0/8): not fetched");
    expect(finding.message).toContain("--allow-private-addresses (ZONEFORM_ALLOW_PRIVATE_ADDRESSES=1");
    expect(pages.requests).toEqual([]);
    const text = await audit(config([pages.url("/checkout")], GOOD), ["--format", "text"]);
    expect(text.stdout).toContain("unreachable: 127.0.0.1 is a loopback address");
  });

  it("is refused however its address is spelled (decimal, hex, octal, IPv4-mapped IPv6)", async () => {
    const port = pages.port;
    const spellings = [
      `http://2130706433:${port}/checkout`,
      `http://0x7f.1:${port}/checkout`,
      `http://017700000001:${port}/checkout`,
      `http://[::ffff:7f00:1]:${port}/checkout`,
      `https://localhost:${port}/checkout`,
    ];
    const r = await audit(config(spellings, GOOD));
    expect(r.code).toBe(2);
    const findings = headersOf(r.stdout).findings;
    expect(findings.map((f: { problem: string }) => f.problem)).toEqual(spellings.map(() => "private-address"));
    expect(findings[4].message).toMatch(/localhost resolves to (127\.0\.0\.1|::1), a loopback address/);
    expect(pages.requests).toEqual([]);
  });

  it("is fetched with --allow-private-addresses or ZONEFORM_ALLOW_PRIVATE_ADDRESSES=1, plain http included", async () => {
    pages.page("/checkout", GOOD);
    const file = config([pages.url("/checkout")], GOOD);
    for (const [flags, env] of [
      [["--allow-private-addresses"], {}],
      [[], { ZONEFORM_ALLOW_PRIVATE_ADDRESSES: "1" }],
      [[], { ZONEFORM_ALLOW_PRIVATE_ADDRESSES: "true" }],
    ] as const) {
      const r = await audit(file, [...flags], env);
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(headersOf(r.stdout).pages[0]).toMatchObject({ result: "ok", status: 200 });
    }
    expect(pages.requests).toEqual(["/checkout", "/checkout", "/checkout"]);
    const off = await audit(file, [], { ZONEFORM_ALLOW_PRIVATE_ADDRESSES: "0" });
    expect(headersOf(off.stdout).findings[0].problem).toBe("private-address");
    const bad = await audit(file, [], { ZONEFORM_ALLOW_PRIVATE_ADDRESSES: "yes" });
    expect(bad.code).toBe(3);
    expect(bad.stderr).toContain("ZONEFORM_ALLOW_PRIVATE_ADDRESSES must be 1 (or true)");
  });

  it("plain http to a host that is not loopback stays refused with the flag", async () => {
    const r = await audit(config(["http://pay.example/checkout", "http://10.0.0.1/checkout"], GOOD), [
      "--allow-private-addresses",
    ]);
    expect(headersOf(r.stdout).findings.map((f: { type: string }) => f.type)).toEqual([
      "insecure-page",
      "insecure-page",
    ]);
  });
});

describe("a redirect's target is checked at the hop", () => {
  it("a redirect to the unspecified address is refused even with the flag; the target is never requested", async () => {
    pages.routes.set("/checkout", (res) =>
      res.writeHead(302, { location: `http://0.0.0.0:${pages.port}/checkout` }).end(),
    );
    const r = await audit(config([pages.url("/checkout")], GOOD), ["--allow-private-addresses"]);
    expect(r.code).toBe(2);
    const [finding] = headersOf(r.stdout).findings;
    expect(finding).toMatchObject({
      type: "page-unreachable",
      problem: "private-address",
      status: 302,
      location: `http://0.0.0.0:${pages.port}/checkout`,
    });
    expect(finding.message).toContain("0.0.0.0 is a 'this network' address (0.0.0.0/8): never fetched");
    expect(pages.requests).toEqual(["/checkout"]);
  });

  it("each hop of a same-origin redirect resolves the name again, and is checked again (DNS rebinding)", async () => {
    pages.routes.set("/checkout", (res) => res.writeHead(301, { location: "/checkout/" }).end());
    pages.page("/checkout/", GOOD);
    const answers = [[{ address: "127.0.0.1", family: 4 }], [{ address: "0.0.0.0", family: 4 }]];
    const { resolve, asked } = fakeDns(() => answers.shift() ?? []);
    const answer = await fetchWith(pages.url("/checkout", "localhost"), { resolve, allowPrivateAddresses: true });
    expect(answer).toMatchObject({ ok: false, problem: "private-address" });
    expect(!answer.ok && answer.reason).toContain("localhost resolves to 0.0.0.0, a 'this network' address");
    expect(asked).toEqual(["localhost", "localhost"]);
    expect(pages.requests).toEqual(["/checkout"]);
  });
});

/** A fake DNS that answers `answer(hostname)` and records each lookup. */
function fakeDns(answer: (hostname: string) => Array<{ address: string; family: number }>) {
  const asked: string[] = [];
  const resolve: PageResolver = async (hostname) => {
    asked.push(hostname);
    return answer(hostname);
  };
  return { resolve, asked };
}

async function fetchWith(url: string, opts: ConstructorParameters<typeof PageFetcher>[0]): Promise<PageFetch> {
  const fetcher = new PageFetcher({ timeoutMs: 5000, ...opts });
  try {
    return await fetcher.fetch(url);
  } finally {
    await fetcher.close();
  }
}

describe("a name is resolved once, by the connection, and connected to as checked", () => {
  it("a name that resolves to a private address is refused without a second lookup, nothing requested", async () => {
    pages.page("/checkout", GOOD);
    const { resolve, asked } = fakeDns(() => [{ address: "127.0.0.1", family: 4 }]);
    const answer = await fetchWith("https://shop.pay.example/checkout", { resolve });
    expect(answer).toMatchObject({ ok: false, problem: "private-address" });
    expect(!answer.ok && answer.reason).toContain(
      "shop.pay.example resolves to 127.0.0.1, a loopback address (127.0.0.0/8): not fetched",
    );
    expect(asked).toEqual(["shop.pay.example"]);
    expect(pages.requests).toEqual([]);
  });

  it("an answer with one metadata address among public ones is refused", async () => {
    const { resolve, asked } = fakeDns(() => [
      { address: "93.184.215.14", family: 4 },
      { address: "::ffff:169.254.169.254", family: 6 },
    ]);
    const answer = await fetchWith("https://shop.pay.example/checkout", { resolve });
    expect(!answer.ok && answer.reason).toContain("resolves to ::ffff:169.254.169.254, a link-local address");
    expect(asked).toHaveLength(1);
  });

  it("allowed, the socket connects to the very address the lookup checked (one lookup per connection)", async () => {
    // A server only on 127.0.0.2: the system's `localhost` (127.0.0.1 or ::1) would not reach it.
    const other = new PageServer("127.0.0.2");
    await other.start();
    try {
      other.page("/checkout", GOOD);
      const { resolve, asked } = fakeDns(() => [{ address: "127.0.0.2", family: 4 }]);
      const answer = await fetchWith(other.url("/checkout", "localhost"), { resolve, allowPrivateAddresses: true });
      expect(answer).toMatchObject({ ok: true, status: 200, headers: GOOD });
      expect(asked).toEqual(["localhost"]);
      expect(other.requests).toEqual(["/checkout"]);
    } finally {
      await other.close();
    }
  });
});

describe("inventory --headers: a page on a loopback address", () => {
  it("stops the draft without the flag (exit 1, nothing written), and is drafted with it", async () => {
    pages.page("/checkout", GOOD);
    const draft = join(dir, "inventory.yaml");
    const args = ["inventory", "--zone", NAME, "--pages", "pay.example/checkout*", "--out", draft];
    const refused = await runCli(emu, [...args, "--headers", pages.url("/checkout")]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("127.0.0.1 is a loopback address (127.0.0.0/8): not fetched");
    expect(refused.stderr).toContain("--allow-private-addresses");
    await expect(readFile(draft, "utf8")).rejects.toThrow();
    expect(pages.requests).toEqual([]);
    const allowed = await runCli(emu, [...args, "--headers", pages.url("/checkout"), "--allow-private-addresses"]);
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(await readFile(draft, "utf8")).toContain("x-frame-options: DENY");
  });
});

describe("validate: a page URL takes no ${env:…}; a session header is never pinned", () => {
  it("refuses an env reference in a page URL at its line (exit 3), and audit -c fetches nothing", async () => {
    const fixture = join(FIXTURES, "page-url-env.yaml");
    const env = { SHOP_PREVIEW_TOKEN: "s3cr3t-preview" };
    const r = await runCli(undefined, ["validate", "-c", relative(ROOT, fixture)], { env, cwd: ROOT });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain(
      `${relative(ROOT, fixture)}:13:15  /zones/0/page_shield/script_inventory/headers/urls/0  a payment page URL ` +
        "takes no ${env:…} value: zoneform fetches these URLs itself",
    );
    expect(r.stderr + r.stdout).not.toContain("s3cr3t-preview");
    // The same in a URL of this test's server: audit stops at the file, before any page is requested.
    const path = join(dir, "zoneform.yaml");
    await writeFile(path, config([`${pages.url("/checkout")}?t=\${env:SHOP_PREVIEW_TOKEN}`], GOOD));
    const a = await runCli(emu, ["audit", "-c", path, "--allow-private-addresses"], { env });
    expect(a.code).toBe(3);
    expect(a.stderr).toContain("takes no ${env:…} value");
    expect(pages.requests).toEqual([]);
  });

  it("refuses a pinned set-cookie at its key (exit 3)", async () => {
    const fixture = join(FIXTURES, "pinned-session-header.yaml");
    const r = await runCli(undefined, ["validate", "-c", relative(ROOT, fixture)], { cwd: ROOT });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain(
      `${relative(ROOT, fixture)}:14:13  /zones/0/page_shield/script_inventory/headers/pinned/set-cookie  ` +
        "set-cookie can carry a session or a credential",
    );
  });
});

describe("session headers a page sends", () => {
  const SENT = {
    ...GOOD,
    "x-frame-options": "SAMEORIGIN",
    "set-cookie": [SESSION, "cart=S3SSION-0f9c2e"],
    "www-authenticate": "Bearer realm=S3SSION-0f9c2e",
    "x-csrf-token": "S3SSION-0f9c2e",
    "x-shop-session": "S3SSION-0f9c2e",
  };

  it("never show in audit's output, in any format", async () => {
    pages.page("/checkout", SENT);
    const file = config([pages.url("/checkout")], GOOD);
    for (const format of ["text", "markdown", "json", "csv", "sarif"]) {
      const r = await audit(file, ["--allow-private-addresses", "--format", format]);
      expect(r.code, format).toBe(2);
      expect(r.stdout, format).toContain("SAMEORIGIN");
      for (const text of [r.stdout, r.stderr]) {
        expect(text, format).not.toContain("S3SSION");
        expect(text.toLowerCase(), format).not.toContain("set-cookie");
      }
    }
  });

  it("are never drafted by inventory --headers", async () => {
    pages.page("/checkout", { ...SENT, "content-security-policy": "script-src 'self'" });
    const r = await runCli(emu, [
      "inventory",
      "--zone",
      NAME,
      "--pages",
      "pay.example/checkout*",
      "--headers",
      pages.url("/checkout"),
      "--allow-private-addresses",
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("content-security-policy: script-src 'self'");
    expect(r.stdout + r.stderr).not.toContain("S3SSION");
    expect(r.stdout.toLowerCase()).not.toContain("set-cookie");
  });
});
