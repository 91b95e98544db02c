// The payment pages' security headers (issue 37, PCI DSS v4.0.1 11.6.1) end to end: `audit -c` fetches
// each page of `script_inventory.headers` from a server this test runs on 127.0.0.1 (whose headers it
// controls) and compares them with the pins, in every format; `inventory --headers` drafts the pins and
// `--merge` adds only what the file lacks, keeping its pins byte for byte. Hostile pages (a body that
// never ends, a redirect to another host, a 1 MB header, a server that never answers, control and
// bidirectional characters in headers) each end the audit in seconds with the page reported. The pages
// are on 127.0.0.1, so every fetch here is run with --allow-private-addresses (issue 45).
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from "node:http";
import { createServer as createTcpServer, type Server as TcpServer, type Socket } from "node:net";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { runCli, TestEmulator, tempDir, TOKEN, zoneId } from "../helpers/cli.js";

const emu = TestEmulator.perFile();
const NAME = "pay.example";
const ZID = zoneId(NAME);

const CSP = "script-src 'self' https://js.stripe.com; frame-ancestors 'none'";
const GOOD: Record<string, string> = {
  "content-security-policy": CSP,
  "strict-transport-security": "max-age=63072000; includeSubDomains",
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  "referrer-policy": "strict-origin-when-cross-origin",
};

/** What the page server answers on a path: headers and how it behaves. */
type Route = (res: ServerResponse) => void;

/** A payment page server on 127.0.0.1 whose routes a test sets; it records each request's headers. */
class PageServer {
  readonly routes = new Map<string, Route>();
  readonly requests: Array<{ path: string; headers: IncomingHttpHeaders }> = [];
  private server?: Server;
  private readonly open = new Set<Socket>();

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      this.requests.push({ path: req.url ?? "", headers: req.headers });
      const route = this.routes.get(req.url ?? "");
      if (route) route(res);
      else res.writeHead(404).end();
    });
    this.server.on("connection", (s) => {
      this.open.add(s);
      s.on("close", () => this.open.delete(s));
    });
    await new Promise<void>((r) => this.server!.listen(0, "127.0.0.1", r));
  }

  url(path: string): string {
    const a = this.server!.address() as { port: number };
    return `http://127.0.0.1:${a.port}${path}`;
  }

  page(path: string, headers: Record<string, string | string[]>, status = 200): void {
    this.routes.set(path, (res) => {
      res.writeHead(status, headers);
      res.end("<html>payment page</html>");
    });
  }

  async close(): Promise<void> {
    for (const s of this.open) s.destroy();
    await new Promise<void>((r) => this.server?.close(() => r()));
  }
}

/** A server that writes `head` (raw bytes, as a hostile origin would) to each connection, or nothing. */
async function rawServer(head: Buffer | undefined): Promise<{ url: string; close: () => Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: TcpServer = createTcpServer((s) => {
    sockets.add(s);
    s.on("error", () => undefined);
    s.on("close", () => sockets.delete(s));
    if (head) s.once("data", () => s.end(head));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}/checkout`,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

const pages = new PageServer();
beforeAll(() => pages.start());
afterAll(() => pages.close());

let dir: string;
beforeEach(async () => {
  pages.routes.clear();
  pages.requests.length = 0;
  await emu.admin("POST", "/zones", { name: NAME, plan: "enterprise" });
  dir = await tempDir("zoneform-headers-");
});

function yamlString(s: string): string {
  return JSON.stringify(s);
}

/** A zoneform file for the zone: an inventory authorizing nothing, the pages' headers, and `extra` zone keys. */
function config(urls: string[], pinned: Record<string, string>, policies = ""): string {
  const pins = Object.entries(pinned)
    .map(([k, v]) => `            ${k}: ${yamlString(v)}\n`)
    .join("");
  return (
    `version: 1\nzones:\n  - zone_id: ${ZID}\n    name: ${NAME}\n    page_shield:\n${policies}` +
    "      script_inventory:\n        pages: [pay.example/checkout*]\n        authorized: []\n" +
    `        headers:\n          urls:\n${urls.map((u) => `            - ${u}\n`).join("")}` +
    `          pinned:\n${pins || "            {}\n"}`
  );
}

/** The flag a fetch of this test's pages on 127.0.0.1 needs. */
const LOCAL = "--allow-private-addresses";

async function audit(file: string, ...flags: string[]) {
  const path = join(dir, "zoneform.yaml");
  await writeFile(path, file);
  return runCli(emu, ["audit", "-c", path, LOCAL, ...flags]);
}

describe("audit -c: the payment pages' headers", () => {
  it("pinned headers as the page sends them: a clean audit, the page fetched once as a browser would", async () => {
    pages.page("/checkout", { ...GOOD, "set-cookie": "sid=1; Secure" });
    const r = await audit(config([pages.url("/checkout")], GOOD));
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain("Payment page headers (PCI DSS 11.6.1)");
    expect(r.stdout).toMatch(/http:\/\/127\.0\.0\.1:\d+\/checkout\s+5\s+as pinned/);
    expect(r.stdout).toContain("no changed or missing headers on the payment pages");
    // One GET, no cookie, no credentials, never the token.
    expect(pages.requests).toHaveLength(1);
    const sent = pages.requests[0]!.headers;
    expect(sent.cookie).toBeUndefined();
    expect(sent.authorization).toBeUndefined();
    expect(JSON.stringify(sent)).not.toContain(TOKEN);
    expect(sent["user-agent"]).toMatch(/^zoneform\/\S+ \(payment page header check\)$/);
    // The API saw only its own calls.
    expect((await emu.calls()).every((c) => !c.includes("127.0.0.1"))).toBe(true);
  });
});

const FORMATS = ["text", "markdown", "json", "csv", "sarif"] as const;

/** Characters no output may hold raw: C0 (but tab, newline, CR), DEL, C1, bidirectional controls. */
const RAW_UNSAFE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

describe("audit -c: a pinned header changed or missing", () => {
  const changed = { ...GOOD, "x-frame-options": "SAMEORIGIN" };

  it("is a changed-header finding (11.6.1) in every format; exit 2 per --fail-on", async () => {
    pages.page("/checkout", changed);
    const file = config([pages.url("/checkout")], GOOD);
    const text = await audit(file);
    expect(text.code).toBe(2);
    expect(text.stdout).toContain(
      `HIGH changed header x-frame-options on ${pages.url("/checkout")}: pinned "DENY", the page sends ` +
        `"SAMEORIGIN" [11.6.1]`,
    );
    expect(text.stdout).toContain("1 changed header, 0 missing headers, 0 unreachable pages.");

    const json = JSON.parse((await audit(file, "--format", "json")).stdout);
    const headers = json.zones[0].payment_page_headers;
    expect(headers.pages).toEqual([
      expect.objectContaining({ url: pages.url("/checkout"), result: "findings", summary: "1 changed", status: 200 }),
    ]);
    expect(headers.findings).toEqual([
      expect.objectContaining({
        type: "changed-header",
        severity: "high",
        url: pages.url("/checkout"),
        header: "x-frame-options",
        pinned: "DENY",
        seen: "SAMEORIGIN",
        requirement: "11.6.1",
      }),
    ]);
    expect(json.totals).toMatchObject({ pages_checked: 1, changed_headers: 1, missing_headers: 0 });

    const csv = (await audit(file, "--format", "csv")).stdout.split("\r\n");
    expect(csv[0]!.endsWith(",header,pinned_value,seen_value")).toBe(true);
    expect(csv.find((l) => l.includes(",changed-header,"))).toMatch(
      /,page,high,,http:\/\/127\.0\.0\.1:\d+\/checkout,,200,.*,changed-header,11\.6\.1,.*,x-frame-options,DENY,SAMEORIGIN$/,
    );

    const md = (await audit(file, "--format", "markdown")).stdout;
    expect(md).toContain("### Security headers of the payment pages (PCI DSS v4.0.1 11.6.1)");
    expect(md).toContain("| Page | Headers checked | Result |");
    expect(md).toMatch(/\| `http:\/\/127\.0\.0\.1:\d+\/checkout` \| content-security-policy, .* \| 1 changed \|/);
    expect(md).toMatch(
      /\| Changed header \| 11\.6\.1 \| `http[^|]+` \| `x-frame-options` \| `DENY` \| `SAMEORIGIN` \|/,
    );

    const sarif = JSON.parse((await audit(file, "--format", "sarif")).stdout);
    const run = sarif.runs[0];
    const result = run.results.find((r: { ruleId: string }) => r.ruleId === "zoneform/changed-header");
    expect(run.tool.driver.rules[result.ruleIndex].id).toBe("zoneform/changed-header");
    // Located at the pin's key in the file (line 15 of config()'s file: the third pin).
    expect(result.locations[0].physicalLocation.region.startLine).toBe(15);
    expect(result.properties).toMatchObject({ header: "x-frame-options", pinned: "DENY", seen: "SAMEORIGIN" });

    expect((await audit(file, "--fail-on", "headers")).code).toBe(2);
    expect((await audit(file, "--fail-on", "changed")).code).toBe(0);
    expect((await audit(file, "--fail-on", "none")).code).toBe(0);
  });

  it("a pinned header the page does not send is a missing-header finding; several instances are joined", async () => {
    const { "x-content-type-options": _gone, ...rest } = GOOD;
    pages.page("/checkout", { ...rest, "permissions-policy": ["camera=()", "  geolocation=()  "] });
    const r = await audit(
      config([pages.url("/checkout")], { ...GOOD, "permissions-policy": "camera=(), geolocation=()" }),
      "--format",
      "json",
    );
    expect(r.code).toBe(2);
    const findings = JSON.parse(r.stdout).zones[0].payment_page_headers.findings;
    expect(findings).toEqual([
      expect.objectContaining({ type: "missing-header", header: "x-content-type-options", pinned: "nosniff" }),
    ]);
    expect(findings[0].seen).toBeUndefined();
  });

  it("follows a redirect within the page's origin and checks the page it ends at", async () => {
    pages.routes.set("/checkout", (res) => res.writeHead(301, { location: "/checkout/" }).end());
    pages.page("/checkout/", GOOD);
    const r = await audit(config([pages.url("/checkout")], GOOD), "--format", "json");
    expect(r.code, r.stdout).toBe(0);
    expect(JSON.parse(r.stdout).zones[0].payment_page_headers.pages[0]).toMatchObject({
      final_url: pages.url("/checkout/"),
      result: "ok",
    });
    expect(pages.requests.map((q) => q.path)).toEqual(["/checkout", "/checkout/"]);
  });
});

describe("audit -c: the file's Page Shield policies on the pages", () => {
  const VALUE = "script-src 'self'; object-src 'none'";
  const policy = (expression: string, action = "allow") =>
    "      policies:\n        - description: Payment pages\n" +
    `          action: ${action}\n          expression: ${yamlString(expression)}\n` +
    `          value: ${yamlString(VALUE)}\n`;

  it("a policy whose CSP the page does not send is reported (medium; fails with --fail-on policy)", async () => {
    pages.page("/checkout", GOOD);
    const file = config([pages.url("/checkout")], {}, policy('http.request.uri.path contains "/checkout"'));
    const r = await audit(file, "--format", "json");
    expect(r.code, "not in the default --fail-on").toBe(0);
    const [f] = JSON.parse(r.stdout).zones[0].payment_page_headers.findings;
    expect(f).toMatchObject({
      type: "policy-not-applied",
      severity: "medium",
      header: "content-security-policy",
      pinned: VALUE,
      seen: CSP,
      policy: { description: "Payment pages", action: "allow", index: 0, selects: true },
    });
    expect((await audit(file, "--fail-on", "policy")).code).toBe(2);
    const sarif = JSON.parse((await audit(file, "--format", "sarif")).stdout).runs[0].results[0];
    expect(sarif.ruleId).toBe("zoneform/policy-not-applied");
    expect(sarif.level).toBe("warning");
    expect(sarif.locations[0].physicalLocation.region.startLine).toBe(7);
  });

  it("no finding when the page's CSP holds the policy (with directives added), or the expression selects another page", async () => {
    pages.page("/checkout", {
      ...GOOD,
      "content-security-policy": [CSP, "script-src  'self';object-src 'none'; report-uri https://csp.example/r"],
    });
    for (const expression of ['http.request.uri.path contains "/checkout"', 'http.request.uri.path eq "/account"']) {
      const r = await audit(config([pages.url("/checkout")], {}, policy(expression)), "--format", "json");
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout).zones[0].payment_page_headers.findings).toEqual([]);
    }
    pages.page("/checkout", GOOD);
    const other = await audit(config([pages.url("/checkout")], {}, policy('http.request.uri.path eq "/account"')));
    expect(other.stdout).not.toContain("policy not applied");
  });
});

describe("audit -c: hostile pages end in seconds, each reported", () => {
  async function timed(file: string, ...flags: string[]) {
    const start = Date.now();
    const r = await audit(file, ...flags);
    return { ...r, ms: Date.now() - start };
  }

  it("a body that never ends: only the headers are read", async () => {
    pages.routes.set("/checkout", (res) => {
      res.writeHead(200, GOOD);
      const drip = setInterval(() => res.write("x".repeat(1024)), 5);
      res.on("close", () => clearInterval(drip));
    });
    const r = await timed(config([pages.url("/checkout")], GOOD));
    expect(r.code, r.stdout).toBe(0);
    expect(r.ms).toBeLessThan(5000);
  });

  it("a redirect to another host is reported, not followed", async () => {
    pages.routes.set("/checkout", (res) => res.writeHead(302, { location: "https://evil.example/checkout" }).end());
    const r = await timed(config([pages.url("/checkout")], GOOD), "--format", "json");
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout).zones[0].payment_page_headers.findings).toEqual([
      expect.objectContaining({
        type: "page-unreachable",
        problem: "redirect-off-origin",
        status: 302,
        location: "https://evil.example/checkout",
      }),
    ]);
    expect(pages.requests).toHaveLength(1);
  });

  it("a 1 MB header value ends the fetch, the page reported", async () => {
    pages.page("/checkout", { ...GOOD, "x-padding": "a".repeat(1024 * 1024) });
    const r = await timed(config([pages.url("/checkout")], GOOD));
    expect(r.code).toBe(2);
    expect(r.stdout).toContain("its headers exceed 64 KiB: not read");
    expect(r.ms).toBeLessThan(5000);
  });

  it("a server that never answers: unreachable after --page-timeout", async () => {
    const silent = await rawServer(undefined);
    try {
      for (const format of FORMATS) {
        const r = await timed(config([silent.url], GOOD), "--page-timeout", "1s", "--format", format);
        expect(r.code).toBe(2);
        expect(r.ms).toBeLessThan(6000);
        expect(r.stdout).toContain(
          format === "csv" || format === "json" || format === "sarif" ? "page-unreachable" : "",
        );
        if (format === "text") expect(r.stdout).toContain("no answer within 1 s (--page-timeout)");
      }
    } finally {
      await silent.close();
    }
  });

  it("headers that drip in a byte at a time: unreachable after --page-timeout; a bad --page-timeout is refused", async () => {
    const sockets = new Set<Socket>();
    const drip = createTcpServer((s) => {
      sockets.add(s);
      s.on("error", () => undefined);
      s.once("data", () => {
        const head = Buffer.from(`HTTP/1.1 200 OK\r\nX-Frame-Options: DENY\r\nX-Pad: ${"a".repeat(10_000)}\r\n\r\n`);
        let i = 0;
        const t = setInterval(
          () => (i < head.length && !s.destroyed ? s.write(head.subarray(i, ++i)) : clearInterval(t)),
          20,
        );
        s.on("close", () => clearInterval(t));
      });
    });
    await new Promise<void>((r) => drip.listen(0, "127.0.0.1", r));
    try {
      const url = `http://127.0.0.1:${(drip.address() as { port: number }).port}/checkout`;
      const r = await timed(config([url], { "x-frame-options": "DENY" }), "--page-timeout", "1500ms");
      expect(r.code).toBe(2);
      expect(r.stdout).toContain("no answer within 1500 ms (--page-timeout)");
      expect(r.ms).toBeLessThan(6000);
      const bad = await audit(config([url], {}), "--page-timeout", "0");
      expect(bad.code).toBe(3);
      expect(bad.stderr).toContain("--page-timeout must be a time from 100ms to 2m");
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => drip.close(() => r()));
    }
  });

  it("control characters in a header make the answer invalid HTTP; bidirectional ones are shown escaped", async () => {
    const ctl = await rawServer(
      Buffer.from("HTTP/1.1 200 OK\r\nX-Frame-Options: DE\u001b[2JNY\r\nContent-Length: 0\r\n\r\n", "latin1"),
    );
    const bidi = await rawServer(
      Buffer.concat([
        Buffer.from("HTTP/1.1 200 OK\r\nX-Frame-Options: DENY\r\nReferrer-Policy: no-referrer", "latin1"),
        Buffer.from("\u202e\u2066<script>|`[x](https://evil.example)", "utf8"),
        Buffer.from("\r\nContent-Length: 0\r\n\r\n", "latin1"),
      ]),
    );
    try {
      const pins = { "x-frame-options": "DENY", "referrer-policy": "no-referrer" };
      const file = config([ctl.url, bidi.url], pins);
      for (const format of FORMATS) {
        const r = await timed(file, "--format", format);
        expect(r.code).toBe(2);
        expect(r.ms).toBeLessThan(5000);
        expect(r.stdout, format).not.toMatch(RAW_UNSAFE);
        expect(r.stdout).not.toContain("\u001b");
        if (format === "json") {
          const h = JSON.parse(r.stdout).zones[0].payment_page_headers;
          expect(h.findings.map((f: { type: string }) => f.type)).toEqual(["page-unreachable", "changed-header"]);
          expect(h.findings[0].problem).toBe("invalid-http");
          // The bytes as the fetch API reads them: one character each (latin1).
          expect(h.findings[1].seen).toBe(
            `no-referrer${Buffer.from("\u202e\u2066", "utf8").toString("latin1")}<script>|\`[x](https://evil.example)`,
          );
        }
        if (format === "markdown") {
          // Outside code spans (where GitHub reads nothing), no tag and no link.
          const prose = r.stdout.replace(/(`+)[\s\S]*?\1/g, "");
          expect(prose).not.toContain("<script>");
          expect(prose).not.toContain("](https://evil.example)");
          expect(r.stdout).toContain("\\u0080");
        }
        if (format === "sarif")
          for (const result of JSON.parse(r.stdout).runs[0].results)
            expect(result.message.text, "no embedded link in a message").not.toContain("[x](");
      }
    } finally {
      await ctl.close();
      await bidi.close();
    }
  });

  it("a page URL on plain http (not loopback) is reported, never fetched", async () => {
    const r = await audit(config(["http://pay.example/checkout"], GOOD), "--format", "json");
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout).zones[0].payment_page_headers.findings).toEqual([
      expect.objectContaining({ type: "insecure-page", url: "http://pay.example/checkout" }),
    ]);
    expect(r.stderr).toContain("write https://pay.example/checkout");
  });
});

describe("validate: the headers block", () => {
  it("refuses a URL that is not absolute and a header name not in lower case, with the fix", async () => {
    const path = join(dir, "zoneform.yaml");
    await writeFile(
      path,
      config(["pay.example/checkout"], { "X-Frame-Options": "DENY", "referrer-policy": " no-referrer" }),
    );
    const r = await runCli(undefined, ["validate", "-c", path]);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain("/headers/urls/0");
    expect(r.stderr).toContain("https://pay.example/checkout");
    expect(r.stderr).toContain("header names are pinned in lower case (HTTP compares them so): write x-frame-options");
    expect(r.stderr).toContain('write "no-referrer"');
  });
});

describe("inventory --headers", () => {
  it("drafts the pins of the security headers the pages send; the draft audits clean", async () => {
    pages.page("/checkout", { ...GOOD, "x-powered-by": "php", "permissions-policy": 'payment=(self "${env:HOME}")' });
    const draft = join(dir, "inventory.yaml");
    const r = await runCli(emu, [
      "inventory",
      "--zone",
      NAME,
      "--pages",
      "pay.example/checkout*",
      "--headers",
      pages.url("/checkout"),
      "--out",
      draft,
      LOCAL,
    ]);
    expect(r.code, r.stderr).toBe(0);
    const text = await readFile(draft, "utf8");
    expect(text).toContain(`  headers:\n    urls:\n      - ${pages.url("/checkout")}\n    pinned:\n`);
    expect(text).toContain(`      content-security-policy: ${CSP}\n`);
    expect(text).toContain("      x-frame-options: DENY\n");
    expect(text).toContain('permissions-policy: payment=(self "$${env:HOME}")');
    expect(text).not.toContain("x-powered-by");
    expect(text).toContain("pinned (PCI DSS 11.6.1)");
    const indented = text
      .split("\n")
      .filter((l) => !l.startsWith("#") && l !== "script_inventory:")
      .map((l) => (l === "" ? l : `      ${l}`))
      .join("\n");
    const path = join(dir, "zoneform.yaml");
    await writeFile(
      path,
      `version: 1\nzones:\n  - zone_id: ${ZID}\n    name: ${NAME}\n    page_shield:\n      script_inventory:\n${indented}`,
    );
    const audited = await runCli(emu, ["audit", "-c", path, "--format", "json", LOCAL]);
    expect(audited.code, audited.stdout + audited.stderr).toBe(0);
    expect(JSON.parse(audited.stdout).zones[0].payment_page_headers.pages[0].result).toBe("ok");
  });

  it("--merge keeps the pins already in the file byte for byte, adds what is new and says what differs", async () => {
    pages.page("/checkout", { ...GOOD, "x-frame-options": "SAMEORIGIN", "cross-origin-opener-policy": "same-origin" });
    const original =
      `# the shop\nversion: 1\nzones:\n  - zone_id: ${ZID}   # pay\n    name: ${NAME}\n    page_shield:\n` +
      "      script_inventory:\n        pages: [ pay.example/checkout* ]\n        authorized: []\n" +
      `        headers:\n          urls:\n            - ${pages.url("/checkout")}   # the card page\n` +
      "          pinned:\n" +
      "            content-security-policy: >-\n              script-src 'self' https://js.stripe.com;\n" +
      "              frame-ancestors 'none'\n" +
      "            x-frame-options:    'DENY'   # reviewed 2026-11-02\n" +
      '            referrer-policy: "strict-origin\\x2Dwhen-cross-origin"\n' +
      "            x-content-type-options: nosniff\n" +
      "        # end of the inventory\n";
    const path = join(dir, "zoneform.yaml");
    await writeFile(path, original);
    const r = await runCli(emu, [
      "inventory",
      "--zone",
      NAME,
      "--merge",
      path,
      "--headers",
      pages.url("/checkout"),
      LOCAL,
    ]);
    expect(r.code, r.stderr).toBe(0);
    const merged = await readFile(path, "utf8");
    // Every byte of the file is kept; only the new pins come in, after the last one.
    const added =
      "            strict-transport-security: max-age=63072000; includeSubDomains\n" +
      "            cross-origin-opener-policy: same-origin\n";
    const cut = original.indexOf("        # end of the inventory");
    expect(merged).toBe(original.slice(0, cut) + added + original.slice(cut));
    expect(r.stderr).toContain("0 page URL(s) and 2 pinned header(s) added to headers of");
    expect(r.stderr).toContain(`kept x-frame-options: pinned "DENY"; the pages send "SAMEORIGIN"`);
    expect(r.stderr).not.toContain("kept content-security-policy");
    expect(r.stderr).not.toContain("kept referrer-policy");
    // Merging again adds nothing: the file is not rewritten.
    const again = await runCli(emu, [
      "inventory",
      "--zone",
      NAME,
      "--merge",
      path,
      "--headers",
      pages.url("/checkout"),
      LOCAL,
    ]);
    expect(again.code).toBe(0);
    expect(await readFile(path, "utf8")).toBe(merged);
    const valid = await runCli(undefined, ["validate", "-c", path]);
    expect(valid.code, valid.stderr).toBe(0);
  });

  it("refuses a page on plain http (exit 3) and writes nothing when a page cannot be fetched (exit 1)", async () => {
    const draft = join(dir, "inventory.yaml");
    const args = ["inventory", "--zone", NAME, "--pages", "pay.example/checkout*", "--out", draft, LOCAL];
    const insecure = await runCli(emu, [...args, "--headers", "http://pay.example/checkout"]);
    expect(insecure.code).toBe(3);
    expect(insecure.stderr).toContain("fetched over https only");
    pages.routes.set("/checkout", (res) => res.writeHead(302, { location: "https://evil.example/" }).end());
    const off = await runCli(emu, [...args, "--headers", pages.url("/checkout")]);
    expect(off.code).toBe(1);
    expect(off.stderr).toContain("redirected (302) to another origin: https://evil.example/; not followed");
    await expect(readFile(draft, "utf8")).rejects.toThrow();
  });
});
