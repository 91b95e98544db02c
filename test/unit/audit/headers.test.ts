// The payment pages' header check (src/audit/headers.ts), the expression judge it asks whether a
// policy selects a page (src/audit/expression.ts), how a page's headers are read (fetchHeaders), and
// what validate says of a `headers` block (src/sections/page_shield/rules.ts). Pure.
import { describe, expect, it } from "vitest";
import { expressionSelects } from "../../../src/audit/expression.js";
import { checkPageHeaders, MAX_SEEN_CHARS, policyApplied } from "../../../src/audit/headers.js";
import { shouldFail, totalsOf } from "../../../src/audit/run.js";
import { emptyKindSummary } from "../../../src/audit/collector.js";
import { parseConfigText } from "../../../src/config/index.js";
import { ConfigError } from "../../../src/errors.js";
import { fetchHeaders, type PageFetch } from "../../../src/inventory/page-fetch.js";
import type { DesiredPolicy } from "../../../src/sections/page_shield/index.js";

const URL1 = "https://shop.example/checkout";
const URL2 = "https://shop.example/pay/card";

function ok(url: string, headers: Record<string, string>): PageFetch {
  return { ok: true, url, final_url: url, status: 200, redirects: [], headers };
}

function policy(p: Partial<DesiredPolicy>): DesiredPolicy {
  return {
    description: "Payment pages",
    action: "allow",
    expression: 'http.host eq "shop.example"',
    value: "script-src 'self'",
    enabled: true,
    ...p,
  };
}

describe("checkPageHeaders", () => {
  const declared = { urls: [URL1, URL2], pinned: { "x-frame-options": "DENY", "referrer-policy": "no-referrer" } };

  it("compares each pin exactly: equal is fine, another value is changed, absent is missing", () => {
    const answers = new Map([
      [URL1, ok(URL1, { "x-frame-options": "DENY", "referrer-policy": "no-referrer" })],
      [URL2, ok(URL2, { "x-frame-options": "deny" })],
    ]);
    const check = checkPageHeaders(declared, answers, { timeoutMs: 10_000 });
    expect(check.pages.map((p) => [p.url, p.result, p.summary])).toEqual([
      [URL1, "ok", "as pinned"],
      [URL2, "findings", "1 changed, 1 missing"],
    ]);
    expect(check.findings.map((f) => [f.type, f.header, f.pinned, f.seen, f.requirement])).toEqual([
      ["changed-header", "x-frame-options", "DENY", "deny", "11.6.1"],
      ["missing-header", "referrer-policy", "no-referrer", undefined, "11.6.1"],
    ]);
  });

  it("a page that could not be fetched, or is on plain http, is reported with why, and nothing compared", () => {
    const answers = new Map<string, PageFetch>([
      [URL1, { ok: false, url: URL1, problem: "timeout", reason: "no answer within 10 s (--page-timeout)" }],
      [URL2, { ok: false, url: URL2, problem: "insecure", reason: "plain http" }],
    ]);
    const check = checkPageHeaders(declared, answers, { timeoutMs: 10_000 });
    expect(check.findings.map((f) => [f.type, f.problem, f.severity])).toEqual([
      ["page-unreachable", "timeout", "high"],
      ["insecure-page", "insecure", "high"],
    ]);
    expect(check.findings[0]!.message).toBe(
      `page unreachable ${URL1}: no answer within 10 s (--page-timeout); its headers could not be checked`,
    );
    expect(check.pages.map((p) => p.headers_checked)).toEqual([[], []]);
  });

  it("a long value is kept cut, with its length and hash; a pin named like an Object member is data", () => {
    const long = "a".repeat(MAX_SEEN_CHARS + 10);
    const check = checkPageHeaders(
      { urls: [URL1], pinned: { "content-security-policy": "x", constructor: "y" } },
      new Map([[URL1, ok(URL1, { "content-security-policy": long })]]),
      { timeoutMs: 1000 },
    );
    const [changed, missing] = check.findings;
    expect(changed!.seen).toHaveLength(MAX_SEEN_CHARS);
    expect(changed!.seen!.endsWith("…")).toBe(true);
    expect(changed!.seen_length).toBe(MAX_SEEN_CHARS + 10);
    expect(changed!.seen_sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(changed!.message.length).toBeLessThan(400);
    expect(missing).toMatchObject({ type: "missing-header", header: "constructor" });
  });

  it("an enabled allow or log policy selecting the page must be applied by its CSP header; others are not looked for", () => {
    const answers = new Map([
      [URL1, ok(URL1, { "content-security-policy": "script-src 'self'; report-uri /r" })],
      [URL2, ok(URL2, { "content-security-policy-report-only": "default-src 'none'" })],
    ]);
    const policies = [
      policy({}),
      policy({ description: "log", action: "log", value: "img-src 'self'" }),
      policy({ description: "off", enabled: false, value: "img-src 'none'" }),
      policy({ description: "reporting", action: "add_reporting_directives", value: "report-to x" }),
      policy({ description: "other pages", expression: 'http.request.uri.path eq "/account"', value: "a-src b" }),
      policy({ description: "unknown", expression: 'http.cookie contains "beta"', value: "frame-src 'none'" }),
    ];
    const check = checkPageHeaders({ urls: [URL1, URL2], pinned: {} }, answers, { policies, timeoutMs: 1000 });
    expect(check.findings.map((f) => [f.url, f.policy?.description, f.header, f.policy?.selects])).toEqual([
      [URL1, "log", "content-security-policy-report-only", true],
      [URL1, "unknown", "content-security-policy", "unknown"],
      // URL2's report-only default-src 'none' covers img-src: the log policy is applied (issue 46).
      [URL2, "Payment pages", "content-security-policy", true],
      [URL2, "unknown", "content-security-policy", "unknown"],
    ]);
    expect(check.findings[1]!.message).toContain("whether its expression selects the page cannot be told from the URL");
    expect(check.findings[1]!.message).toContain("frame-src is not restricted");
    expect(check.findings[2]!.message).toContain(
      "(it sends none; a content-security-policy-report-only enforces nothing)",
    );
    expect(check.pages[0]!.summary).toBe("2 policies not applied");
  });

  it("policyApplied: the page's CSP, all its policies, at least as strict; whitespace and name case aside", () => {
    const applied = (value: string, header: string | undefined) => policyApplied(value, header, URL1).meets;
    expect(applied("script-src 'self'; object-src 'none'", "SCRIPT-SRC  'self' ;object-src 'none'")).toBe(true);
    // Two policies both apply (issue 46: the old substring check wanted both directives in one).
    expect(applied("script-src 'self'; object-src 'none'", "script-src 'self', object-src 'none'")).toBe(true);
    expect(applied("script-src 'self'", "script-src 'self' https://a.example")).toBe(false);
    expect(applied("script-src 'self' https://a.example", "script-src 'self'")).toBe(true);
    expect(applied("script-src 'self'", undefined)).toBe(false);
    expect(policyApplied("script-src 'self'", "script-src *; script-src 'self'", URL1).reasons).toEqual([
      'script-src-elem allows "*"',
      'worker-src allows "*"',
    ]);
  });

  it("a CSP pin is met by a CSP at least as strict, not by a weaker one; other pins stay exact", () => {
    const pin = { "content-security-policy": "script-src 'self' https://js.stripe.com", "x-frame-options": "DENY" };
    const sends = (csp: string, xfo = "DENY") =>
      checkPageHeaders(
        { urls: [URL1], pinned: pin },
        new Map([[URL1, ok(URL1, { "content-security-policy": csp, "x-frame-options": xfo })]]),
        { timeoutMs: 1000 },
      ).findings.map((f) => [f.type, f.header]);
    expect(sends("script-src 'self'")).toEqual([]);
    expect(sends("default-src 'self'; report-uri /r")).toEqual([]);
    expect(sends("script-src 'self' https://js.stripe.com", "deny")).toEqual([["changed-header", "x-frame-options"]]);
    expect(sends("script-src 'self' https://js.stripe.com; script-src-elem * 'unsafe-inline'")).toEqual([
      ["changed-header", "content-security-policy"],
    ]);
    const [weaker] = checkPageHeaders(
      { urls: [URL1], pinned: pin },
      new Map([[URL1, ok(URL1, { "content-security-policy-report-only": pin["content-security-policy"] })]]),
      { timeoutMs: 1000 },
    ).findings;
    expect(weaker).toMatchObject({ type: "missing-header", header: "content-security-policy" });
    const [changed] = checkPageHeaders(
      { urls: [URL1], pinned: { "content-security-policy": pin["content-security-policy"] } },
      new Map([[URL1, ok(URL1, { "content-security-policy": "script-src *; script-src 'self'" })]]),
      { timeoutMs: 1000 },
    ).findings;
    expect(changed!.message).toContain(
      'which is not at least as strict (script-src-elem allows "*"; worker-src allows "*")',
    );
  });

  it("totals count each kind, and --fail-on picks them: headers, unreachable (with insecure), policy", () => {
    const answers = new Map<string, PageFetch>([
      [URL1, ok(URL1, { "x-frame-options": "SAMEORIGIN" })],
      [URL2, { ok: false, url: URL2, problem: "status", status: 404, reason: "answered 404" }],
    ]);
    const headers = checkPageHeaders(declared, answers, { policies: [policy({})], timeoutMs: 1000 });
    const summary = { script: emptyKindSummary("script"), connection: emptyKindSummary("connection") };
    const totals = totalsOf([{ zone_id: "z", summary: { ...summary, cookie: emptyKindSummary("cookie") }, headers }]);
    expect(totals).toMatchObject({
      findings: 4,
      pages_checked: 2,
      changed_headers: 1,
      missing_headers: 1,
      unreachable_pages: 1,
      insecure_pages: 0,
      policies_not_applied: 1,
      high: 3,
      medium: 1,
    });
    expect(shouldFail(totals, ["headers"])).toBe(true);
    expect(shouldFail({ ...totals, changed_headers: 0, missing_headers: 0 }, ["headers"])).toBe(false);
    expect(shouldFail({ ...totals, unreachable_pages: 0 }, ["unreachable"])).toBe(false);
    expect(shouldFail({ ...totals, unreachable_pages: 0, insecure_pages: 1 }, ["unreachable"])).toBe(true);
    expect(shouldFail(totals, ["policy"])).toBe(true);
    expect(shouldFail(totals, ["malicious", "changed"])).toBe(false);
  });
});

describe("expressionSelects", () => {
  const page = "https://www.shop.example/checkout/step-2.html?cart=7";

  it.each([
    ['http.host eq "www.shop.example"', true],
    ['http.host == "shop.example"', false],
    ['http.host in {"a.example" "www.shop.example"}', true],
    ['starts_with(http.request.uri.path, "/checkout")', true],
    ['ends_with(http.request.full_uri, "?cart=7")', true],
    ['http.request.full_uri contains "shop.example/checkout"', true],
    ['http.request.uri eq "/checkout/step-2.html?cart=7"', true],
    ['http.request.uri.query contains "cart="', true],
    ['http.request.uri.path.extension eq "html"', true],
    ['lower(http.request.uri.path) eq "/checkout/step-2.html" and ssl', true],
    ['not http.request.uri.path contains "/account"', true],
    ['(http.host eq "x.example" or http.host eq "www.shop.example") && !(len(http.request.uri.query) > 10)', true],
    ['http.host eq "x.example" and http.cookie contains "a"', false],
    ['http.host eq "www.shop.example" or http.cookie contains "a"', true],
    ['http.cookie contains "a"', undefined],
    ['http.request.uri.path matches "^/check"', undefined],
    ['http.host eq "www.shop.example" and http.request.uri.path wildcard "/check*"', undefined],
    ["ip.src in {192.0.2.0/24}", undefined],
    ['http.host eq "unclosed', undefined],
    ['r#"raw "quoted""# eq "x" or http.host eq "www.shop.example"', true],
    [`${"(".repeat(200)}ssl${")".repeat(200)}`, undefined],
  ])("%s → %s", (expression, want) => {
    expect(expressionSelects(expression, page)).toBe(want);
  });
});

describe("fetchHeaders (as the fetch API reads them)", () => {
  it("lower-cases names, trims each value and joins instances with ', '; a name like __proto__ is data", () => {
    const h = fetchHeaders({ "X-Multi": ["a ", "\tb"], "content-type": " text/html ", __proto__x: "1" });
    expect(h).toEqual({ "x-multi": "a, b", "content-type": "text/html", __proto__x: "1" });
    const proto = fetchHeaders(JSON.parse('{"__proto__":"polluted"}'));
    expect(Object.getPrototypeOf(proto)).toBe(Object.prototype);
    expect(Object.hasOwn(proto, "__proto__")).toBe(true);
  });
});

describe("validate: script_inventory.headers", () => {
  const doc = (headers: string) =>
    "version: 1\nzones:\n  - zone_id: 0123456789abcdef0123456789abcdef\n    page_shield:\n" +
    "      script_inventory:\n        pages: [shop.example/checkout*]\n        authorized: []\n" +
    `        headers:\n${headers}`;

  function problems(text: string): { errors: string[]; warnings: string[] } {
    try {
      const { warnings } = parseConfigText(text, "z.yaml", {});
      return { errors: [], warnings: warnings.map((w) => w.message) };
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      return {
        errors: err.problems.filter((p) => p.severity === "error").map((p) => `${p.pointer} ${p.message}`),
        warnings: err.problems.filter((p) => p.severity === "warning").map((p) => p.message),
      };
    }
  }

  it("a clean block loads into the desired state", () => {
    const { desired } = parseConfigText(
      doc("          urls: [https://shop.example/checkout]\n          pinned: {x-frame-options: DENY}\n"),
      "z.yaml",
      {},
    );
    expect(desired.zones[0]!.page_shield!.script_inventory!.headers).toEqual({
      urls: ["https://shop.example/checkout"],
      pinned: { "x-frame-options": "DENY" },
    });
  });

  it("refuses a URL that is not absolute, user info, and a name not in lower case, each with the fix", () => {
    const { errors } = problems(
      doc(
        "          urls: [shop.example/checkout, 'https://u:p@shop.example/x', 'https://shop.example/a b']\n" +
          "          pinned:\n            X-Frame-Options: DENY\n            'bad name': x\n" +
          '            referrer-policy: \' no-referrer\'\n            x-a: "\\x01"\n            x-b: "\\u202e"\n',
      ),
    );
    const at = "/zones/0/page_shield/script_inventory/headers";
    expect(errors).toEqual([
      `${at}/urls/0 a payment page is an absolute https:// URL, as a browser requests it: write e.g. ` +
        "https://www.example.com/checkout (https://shop.example/checkout)",
      `${at}/urls/1 a payment page URL holds no user info (u:p@): audit fetches the page as a customer's browser ` +
        "does, without credentials; write the URL without it",
      `${at}/urls/2 a payment page URL holds no spaces or control characters (percent-encode them: %20)`,
      `${at}/pinned/X-Frame-Options header names are pinned in lower case (HTTP compares them so): write x-frame-options`,
      expect.stringMatching(/^\/zones\/0\/page_shield\/script_inventory\/headers\/pinned\/bad name not an HTTP header/),
      expect.stringContaining(
        "never starts or ends with a space or tab: the HTTP layer trims them from what the " +
          'page sends, so it would never match; write "no-referrer"',
      ),
      expect.stringContaining("holds no control characters"),
      expect.stringContaining("only characters up to U+00FF"),
    ]);
  });

  it("warns of plain http, of a page outside the pages in scope, of a repeated URL and of nothing pinned", () => {
    const { errors, warnings } = problems(
      doc(
        "          urls: [http://shop.example/checkout, https://other.example/pay, https://other.example/pay," +
          " http://127.0.0.1:8080/checkout]\n          pinned: {}\n",
      ),
    );
    expect(errors).toEqual([]);
    expect(warnings).toEqual([
      "a payment page is served over https: audit does not fetch http://shop.example/checkout and reports it as an " +
        "insecure page; write https://shop.example/checkout",
      "https://other.example/pay is none of the pages in scope (shop.example/checkout*): add its pattern to pages",
      "duplicate page URL (also item 1 of this list)",
      "https://other.example/pay is none of the pages in scope (shop.example/checkout*): add its pattern to pages",
      "http://127.0.0.1:8080/checkout is none of the pages in scope (shop.example/checkout*): add its pattern to pages",
      "no header is pinned: audit only checks that the pages answer; pin what they send with zoneform inventory " +
        "--headers URL --merge FILE",
    ]);
  });

  it("the schema wants urls and pinned", () => {
    const { errors } = problems(doc("          urls: [https://shop.example/checkout]\n"));
    expect(errors.join("\n")).toContain("pinned");
  });
});
