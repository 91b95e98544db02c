// The payment pages' headers in every audit format (src/audit/render-headers.ts, renderers.ts, sarif.ts):
// what a page sends is hostile text, shown escaped and cut; a secret in a pin is redacted before any
// format serializes it; the Markdown evidence lists each page checked with its result. Pure.
import { describe, expect, it } from "vitest";
import { AuditCollector } from "../../../src/audit/collector.js";
import { checkPageHeaders } from "../../../src/audit/headers.js";
import { createRenderer, type AuditFormat } from "../../../src/audit/renderers.js";
import { totalsOf } from "../../../src/audit/run.js";
import type { PageFetch } from "../../../src/inventory/page-fetch.js";
import { Redactor } from "../../../src/redact.js";

const Z = "0123456789abcdef0123456789abcdef";
const PAGE = "https://shop.example/checkout";
const SECRET = "s3cr3t-n0nce-value";
// A value a hostile page sends: a terminal escape, bidirectional overrides, Markdown and a link.
const HOSTILE = "DENY\u001b[2J\u202e\u2066 <img src=x onerror=alert(1)> | `x` [click](https://evil.example) @team #12";

function render(format: AuditFormat, seen: string, redactor?: Redactor): string {
  const answers = new Map<string, PageFetch>([
    [
      PAGE,
      {
        ok: true,
        url: PAGE,
        final_url: PAGE,
        status: 200,
        redirects: [],
        headers: { "x-frame-options": seen, "content-security-policy": `script-src 'nonce-${SECRET}'` },
      },
    ],
  ]);
  const check = checkPageHeaders(
    { urls: [PAGE], pinned: { "x-frame-options": "DENY", "content-security-policy": `script-src 'nonce-${SECRET}x'` } },
    answers,
    { timeoutMs: 10_000 },
  );
  let out = "";
  const r = createRenderer(format, (t) => (out += t), {
    now: () => new Date("2026-11-25T12:00:00Z"),
    sarif: { version: "0.0.0" },
    ...(redactor ? { redact: (v) => redactor.redactDeep(v) } : {}),
  });
  r.begin();
  r.zoneStart(Z, { malicious_below: 10, threat_below: 10 });
  r.headers(Z, check, { checked_at: "2026-11-25T12:00:00.000Z", zone_name: "shop.example", source: "z.yaml:3" });
  const c = new AuditCollector(10);
  r.zoneEnd(Z, c);
  r.end(totalsOf([{ zone_id: Z, summary: c.summary, headers: check }]));
  return out;
}

const RAW_UNSAFE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

describe("payment page headers in every format", () => {
  it.each(["text", "markdown", "json", "csv", "sarif"] as const)("%s: hostile text escaped, nothing raw", (format) => {
    const out = render(format, HOSTILE);
    expect(out).not.toMatch(RAW_UNSAFE);
    expect(out).toContain("\\u001b[2J");
    if (format === "markdown") {
      const prose = out.replace(/(`+)[\s\S]*?\1/g, "");
      expect(prose).not.toContain("<img");
      expect(prose).not.toContain("](https://evil.example)");
      expect(prose).not.toMatch(/(^|[^`\\])@team/);
    }
    if (format === "json") {
      const f = JSON.parse(out).zones[0].payment_page_headers.findings[0];
      expect(f.seen).toBe(HOSTILE);
    }
  });

  it("text cuts a long value; Markdown cuts it past 1000 characters; JSON keeps MAX_SEEN_CHARS", () => {
    const long = `DENY${"x".repeat(20_000)}`;
    const text = render("text", long);
    expect(text.split("\n").every((l) => l.length < 900)).toBe(true);
    const md = render("markdown", long);
    expect(md.split("\n").every((l) => l.length < 3200)).toBe(true);
    const json = JSON.parse(render("json", long)).zones[0].payment_page_headers.findings[0];
    expect(json.seen).toHaveLength(4096);
    expect(json.seen_length).toBe(long.length);
  });

  it("a secret (a ${env:} value) in a pin or in what the page sent is redacted in every format", () => {
    const redactor = new Redactor([{ value: SECRET }]);
    for (const format of ["text", "markdown", "json", "csv", "sarif"] as const) {
      const out = render(format, "SAMEORIGIN", redactor);
      expect(out, format).not.toContain(SECRET);
      expect(out, format).toContain("content-security-policy");
    }
  });

  it("Markdown: the evidence table lists each page with the headers checked and the result", () => {
    const md = render("markdown", "SAMEORIGIN");
    expect(md).toContain(
      "| Page | Headers checked | Result |\n|---|---|---|\n" +
        "| `https://shop.example/checkout` | x-frame-options, content-security-policy | 2 changed |\n",
    );
    expect(md).toContain("- Checked at: 2026-11-25T12:00:00.000Z");
    expect(md).toContain("- Pinned headers: `x-frame-options`, `content-security-policy`");
    expect(md).toContain("**11.6.1**");
  });

  it("SARIF: one result per finding under the header rules, located nowhere without a file", () => {
    const log = JSON.parse(render("sarif", "SAMEORIGIN"));
    const run = log.runs[0];
    expect(run.results.map((r: { ruleId: string; level: string }) => [r.ruleId, r.level])).toEqual([
      ["zoneform/changed-header", "error"],
      ["zoneform/changed-header", "error"],
    ]);
    for (const r of run.results) expect(run.tool.driver.rules[r.ruleIndex].id).toBe(r.ruleId);
    const prints = run.results.map(
      (r: { partialFingerprints: Record<string, string> }) => Object.values(r.partialFingerprints)[0],
    );
    expect(new Set(prints).size).toBe(2);
    expect(run.results[0].message.text).toMatch(/\(PCI DSS v4\.0\.1 11\.6\.1\)\.$/);
  });
});
