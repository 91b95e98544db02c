// `audit --format html` without a browser (the browser reads it in test/e2e/audit-html-browser.test.ts):
// the one HTML escaper and its template, the page's CSP and its style's hash, and every section fed the
// hostile corpus, whose every piece comes out as text (no tag, attribute or character reference made of
// data, control and bidirectional characters escaped). The Markdown message encoder keeps punctuation out
// of code spans. Pure.
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { checkAlerting } from "../../../src/audit/alerting.js";
import { AuditCollector } from "../../../src/audit/collector.js";
import { checkPageHeaders } from "../../../src/audit/headers.js";
import { createRenderer } from "../../../src/audit/renderers.js";
import { DEFAULT_FAIL_ON, overallResult, totalsOf } from "../../../src/audit/result.js";
import { classifyScript } from "../../../src/inventory/classify.js";
import type { InventoryCheck } from "../../../src/inventory/index.js";
import { escapeHtml, html, SafeHtml } from "../../../src/safe-html.js";
import { mdText } from "../../../src/safe-markdown.js";
import { HOSTILE, HOSTILE_URL } from "../../fixtures/hostile-corpus.js";

const Z = "0123456789abcdef0123456789abcdef";
const PAGE = "https://shop.example/checkout";

describe("the HTML escaper", () => {
  it("writes & < > \" ' as character references, and control or invisible characters visibly", () => {
    expect(escapeHtml(`<a href="x" title='y'>&amp;</a>`)).toBe(
      "&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;amp;&lt;/a&gt;",
    );
    expect(escapeHtml("a\u202eb\u200bc\u001b[2K")).toBe("a\\u202eb\\u200bc\\u001b[2K");
  });

  it("escapes every value of the template, but markup the template made; lists and absent values", () => {
    const inner = html`<b>${"<i>"}</b>`;
    expect(html`<p title="${'"><x'}">${inner}${["<", 1, undefined, null, false]}</p>`.markup).toBe(
      '<p title="&quot;&gt;&lt;x"><b>&lt;i&gt;</b>&lt;1</p>',
    );
    expect(String(new SafeHtml("<hr>"))).toBe("<hr>");
  });
});

function inventory(url: string): InventoryCheck {
  return {
    pages: [`shop.example/${HOSTILE}`],
    stale_days: 90,
    scripts_seen: 2,
    details_read: 0,
    authorized: [{ url, justification: HOSTILE, owner: HOSTILE, scripts: 1, state: "ok", seen_hash: "a".repeat(64) }],
    findings: [
      { type: "unauthorized", severity: "high", url, requirement: "6.4.3", message: `unauthorized script ${url}: x` },
      { type: "changed", severity: "high", url, requirement: "11.6.1", message: `changed script ${HOSTILE}` },
    ],
  };
}

function report(): string {
  let out = "";
  const r = createRenderer("html", (t) => (out += t), { now: () => new Date("2026-11-25T12:00:00Z") });
  const headers = checkPageHeaders(
    { urls: [PAGE], pinned: { "x-frame-options": "DENY" } },
    new Map([
      [
        PAGE,
        { ok: true, url: PAGE, final_url: PAGE, status: 200, redirects: [], headers: { "x-frame-options": HOSTILE } },
      ],
    ]),
    { timeoutMs: 10_000 },
  );
  const alerting = checkAlerting(Z, "a".repeat(32), new Error(HOSTILE));
  const c = new AuditCollector(10);
  const f = classifyScript({ id: "s1", url: HOSTILE_URL, host: HOSTILE, status: "active", js_integrity_score: 2 })!;
  c.countRead("script");
  c.add(f);
  r.begin({
    zoneform_version: "9.9.9",
    files: [{ path: `dir/${HOSTILE}.yaml`, sha256: "b".repeat(64), git: { error: HOSTILE } }],
    run_at: "2026-11-25T12:00:00.000Z",
    zones: [{ zone_id: Z, name: HOSTILE, pages: [HOSTILE], header_urls: [PAGE] }],
  });
  r.zoneStart(Z, { malicious_below: 10, threat_below: 10, hosts: [HOSTILE] });
  r.finding(Z, f);
  const inv = inventory(HOSTILE_URL);
  r.inventory(Z, inv, { checked_at: "2026-11-25T12:00:00.000Z", source: HOSTILE, query: {} });
  r.headers(Z, headers, { checked_at: "2026-11-25T12:00:00.000Z", pinned_values: { "x-frame-options": "DENY" } });
  r.alerting(Z, alerting, { checked_at: "2026-11-25T12:00:00.000Z" });
  r.zoneEnd(Z, c);
  const totals = totalsOf([{ zone_id: Z, summary: c.summary, inventory: inv, headers, alerting }]);
  r.end(totals, overallResult(totals, DEFAULT_FAIL_ON));
  return out;
}

describe("the HTML report", () => {
  const out = report();

  it("is one inert page: a CSP that forbids loading and running anything, its one style allowed by hash", () => {
    expect(out.startsWith('<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n')).toBe(true);
    const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(out)![1]!;
    const style = /<style>([\s\S]*?)<\/style>/.exec(out)![1]!;
    const hash = createHash("sha256").update(style, "utf8").digest("base64");
    expect(csp).toBe(`default-src 'none'; style-src 'sha256-${hash}'; base-uri 'none'; form-action 'none'`);
    expect(style).not.toMatch(/url\(|@import|@font-face/);
    expect(out.match(/<style>/g)).toHaveLength(1);
    expect(out).not.toMatch(/<(script|link|img|iframe|object|embed|svg|base|form|a)\b/i);
    const attributes = (out.match(/<[a-zA-Z][^>]*>/g) ?? []).filter((t) => /\s(src|href|srcset|style|on\w+)=/i.test(t));
    expect(attributes).toEqual([]);
  });

  it("writes every hostile string as text: no tag, attribute or reference of data", () => {
    // The only tags are the renderer's own; every `<` `>` `"` `'` `&` of data is a character reference.
    const tags = new Set([...out.matchAll(/<\/?([a-zA-Z0-9!]+)/g)].map((m) => m[1]!.toLowerCase()));
    const own = "!doctype html head meta title style body header h1 h2 h3 h4 p div strong table thead tbody tr th td";
    expect(
      [...tags].filter((t) => !`${own} code span ul li dl dt dd br wbr main section footer`.split(" ").includes(t)),
    ).toEqual([]);
    expect(out).toContain("&lt;img src=x onerror=alert(1)&gt;");
    expect(out).toContain("&amp;#x202e;");
    expect(out).not.toContain("<img");
    expect(out).not.toMatch(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\u200b]/);
    expect(out).toContain("\\u202ebidi\\u2066iso");
  });

  it("shows the result first, then the provenance, then the zone with its sections", () => {
    const at = (s: string) => {
      expect(out).toContain(s);
      return out.indexOf(s);
    };
    const order = [
      '<div class="result fail"><p><strong>FAIL</strong>',
      "<h2>Provenance</h2>",
      '<section class="zone" id="zone-1">',
      "<h3>Scripts of the payment pages",
      "<h3>Findings by PCI DSS requirement</h3>",
      "<h4>PCI DSS 6.4.3</h4>",
      "<h4>PCI DSS 11.6.1</h4>",
      "<h3>Security headers of the payment pages, pinned against seen",
      "<h3>Alert policies in place",
      "<h3>Page Shield: scripts, connections and cookies</h3>",
    ].map(at);
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(out).toContain(`<td><code>x-frame-options</code></td><td><code>DENY</code></td>`);
  });
});

describe("Markdown messages", () => {
  it("keep the sentence's punctuation out of code spans", () => {
    expect(mdText("unauthorized script https://cdn.skimmer.example/s.js: seen on a page")).toBe(
      "unauthorized script `https://cdn.skimmer.example/s.js`: seen on a page",
    );
    expect(mdText("pinned hash 4a826fdf1089…, seen a297d3c476d9… (new)")).toBe(
      "pinned hash `4a826fdf1089…`, seen `a297d3c476d9…` (new)",
    );
    expect(mdText("(see https://en.wikipedia.org/wiki/A_(b)).")).toBe("(see `https://en.wikipedia.org/wiki/A_(b)`).");
    expect(mdText("ask @team, or mail a@b.example.")).toBe("ask `@team`, or mail `a@b.example`.");
    // A word that is live only with its punctuation stays one span.
    expect(mdText("mailto: x")).toBe("`mailto:` x");
  });
});
