// A page's CSP judged by its effect, not by substrings (issue 46), end to end: `audit -c` fetches pages
// from a server on 127.0.0.1 (hence --allow-private-addresses) whose CSPs are each a form of the same
// policy, weaker or stricter, and judges each against a Page Shield policy of the file and a pinned
// content-security-policy. Each weaker page is reported (policy not applied, changed or missing CSP
// pin), each equal or stricter page is not.
import { createServer, type Server } from "node:http";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { runCli, TestEmulator, tempDir, zoneId } from "../helpers/cli.js";

const emu = TestEmulator.perFile();
const NAME = "pay.example";
const ZID = zoneId(NAME);
const POLICY = "script-src 'self' https://js.stripe.com";

/** What each page sends: its CSP header(s), enforced or Report-Only. */
const WEAKER: Record<string, Record<string, string | string[]>> = {
  "/duplicate": { "content-security-policy": `script-src *; ${POLICY}` },
  "/elem": { "content-security-policy": `${POLICY}; script-src-elem * 'unsafe-inline'` },
  "/attr": { "content-security-policy": `${POLICY}; script-src-attr 'unsafe-inline'` },
  "/wider-default": { "content-security-policy": "default-src *" },
  "/report-only": { "content-security-policy-report-only": POLICY },
};
const STRICTER: Record<string, Record<string, string | string[]>> = {
  "/equal": { "content-security-policy": `${POLICY}; report-uri https://csp.example/r` },
  "/narrower": { "content-security-policy": "script-src 'self'" },
  "/default-src": { "content-security-policy": "default-src 'self'" },
  "/two-headers": { "content-security-policy": ["script-src *", "script-src 'self'"] },
  "/comma": { "content-security-policy": "script-src * 'unsafe-inline', default-src 'none'" },
};

let server: Server;
let base = "";
beforeAll(async () => {
  server = createServer((req, res) => {
    const headers = WEAKER[req.url ?? ""] ?? STRICTER[req.url ?? ""];
    if (headers) res.writeHead(200, headers).end("<html>payment page</html>");
    else res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

let dir: string;
beforeEach(async () => {
  await emu.admin("POST", "/zones", { name: NAME, plan: "enterprise" });
  dir = await tempDir("zoneform-csp-");
});

/** A file whose zone has the allow policy for every page and pins its CSP. */
function config(paths: string[]): string {
  return (
    `version: 1\nzones:\n  - zone_id: ${ZID}\n    name: ${NAME}\n    page_shield:\n` +
    "      policies:\n        - description: Payment pages\n          action: allow\n" +
    `          expression: 'http.host eq "127.0.0.1"'\n          value: ${JSON.stringify(POLICY)}\n` +
    "      script_inventory:\n        pages: [pay.example/checkout*]\n        authorized: []\n" +
    `        headers:\n          urls:\n${paths.map((p) => `            - ${base}${p}\n`).join("")}` +
    `          pinned:\n            content-security-policy: ${JSON.stringify(POLICY)}\n`
  );
}

async function audit(paths: string[], ...flags: string[]) {
  const path = join(dir, "zoneform.yaml");
  await writeFile(path, config(paths));
  const r = await runCli(emu, ["audit", "-c", path, "--allow-private-addresses", "--format", "json", ...flags]);
  const findings: Array<{ url: string; type: string; message: string }> = JSON.parse(r.stdout).zones[0]
    .payment_page_headers.findings;
  return { code: r.code, findings };
}

describe("audit -c: CSP semantics", () => {
  it("each weaker page is reported: the policy not applied, the CSP pin not met", async () => {
    const { code, findings } = await audit(Object.keys(WEAKER));
    expect(code).toBe(2);
    const byPage = (p: string) => findings.filter((f) => f.url === `${base}${p}`).map((f) => f.type);
    for (const p of ["/duplicate", "/elem", "/attr", "/wider-default"])
      expect(byPage(p), p).toEqual(["changed-header", "policy-not-applied"]);
    // Report-Only enforces nothing: the pinned (enforced) CSP is missing, the policy not applied.
    expect(byPage("/report-only")).toEqual(["missing-header", "policy-not-applied"]);
    const message = (p: string, type: string) =>
      findings.find((f) => f.url === `${base}${p}` && f.type === type)!.message;
    expect(message("/duplicate", "policy-not-applied")).toContain('script-src-elem allows "*"');
    expect(message("/elem", "changed-header")).toContain(`script-src-elem allows "*" "'unsafe-inline'"`);
    expect(message("/attr", "policy-not-applied")).toContain(`script-src-attr allows "'unsafe-inline'"`);
    expect(message("/report-only", "policy-not-applied")).toContain(
      "it sends none; a content-security-policy-report-only enforces nothing",
    );
  });

  it("each equal or stricter page is not reported, whatever --fail-on", async () => {
    const { code, findings } = await audit(Object.keys(STRICTER), "--fail-on", "headers,policy");
    expect(findings).toEqual([]);
    expect(code).toBe(0);
  });
});
