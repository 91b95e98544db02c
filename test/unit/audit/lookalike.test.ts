// Look-alike hosts in `audit`: their own finding kind (not a malicious verdict) from the pass over every
// script and connection, and from the script inventory check; in every format (text, Markdown, JSON,
// CSV, SARIF rule zoneform/lookalike-host), counted apart, failing the audit by default.
import { describe, expect, it } from "vitest";
import { AuditCollector } from "../../../src/audit/collector.js";
import { createRenderer, type AuditFormat } from "../../../src/audit/renderers.js";
import { DEFAULT_FAIL_ON, parseFailOn, shouldFail, totalsOf } from "../../../src/audit/run.js";
import { checkInventory, type SeenScript } from "../../../src/inventory/check.js";
import { classifyScript } from "../../../src/inventory/classify.js";
import { hostReferences, LookalikeJudge, lookalikeFinding } from "../../../src/inventory/lookalike.js";
import type { ScriptInventory } from "../../../src/inventory/types.js";

const Z = "0123456789abcdef0123456789abcdef";
const NOW = new Date("2026-11-25T12:00:00Z");
const INV: ScriptInventory = {
  pages: ["pay.example/checkout*"],
  authorized: [
    { url: "https://js.stripe.com/v3/*", justification: "Stripe Elements", owner: "payments" },
    { url: "https://www.pay.example/assets/checkout.js", justification: "our checkout", owner: "payments" },
  ],
};
const seen = (url: string, id: string): SeenScript => ({
  id,
  url,
  first_seen_at: "2026-11-20T00:00:00Z",
  last_seen_at: "2026-11-24T00:00:00Z",
  first_page_url: "pay.example/checkout",
});

describe("the script inventory check", () => {
  it("reports each look-alike as its own finding besides unauthorized, and never an authorized script", () => {
    const scripts = [
      seen("https://js.stripe.com/v3/", "a".repeat(32)),
      seen("https://js.stripe.com.evil.example/skimmer.js", "b".repeat(32)),
      seen("https://js.stripe.com@evil.example/skimmer.js", "c".repeat(32)),
      seen("https://js.stri\u200bpe.com/v3/", "d".repeat(32)),
      seen("https://js.xn--strpe-p2e.com/v3/", "e".repeat(32)),
      seen("https://js.strlpe.com/v3/", "f".repeat(32)),
      seen("https://www.pay.example/assets/check\u200bout.js", "0".repeat(32)),
      seen("https://evil.example/plain.js", "1".repeat(32)),
    ];
    const check = checkInventory(INV, scripts, new Map(), { now: NOW });
    const looks = check.findings.filter((f) => f.type === "lookalike");
    expect(looks.map((f) => [f.url, f.signals, f.looks_like])).toEqual([
      ["https://js.stripe.com.evil.example/skimmer.js", ["embedded"], "js.stripe.com"],
      ["https://js.stripe.com@evil.example/skimmer.js", ["userinfo"], "js.stripe.com"],
      ["https://js.stri\u200bpe.com/v3/", ["invisible"], "js.stripe.com"],
      ["https://js.strlpe.com/v3/", ["edit-distance"], "js.stripe.com"],
      ["https://js.xn--strpe-p2e.com/v3/", ["idn", "mixed-script", "homoglyph"], "js.stripe.com"],
      ["https://www.pay.example/assets/check\u200bout.js", ["invisible"], "https://www.pay.example/assets/checkout.js"],
    ]);
    expect(looks.every((f) => f.requirement === "6.4.3" && f.severity === "high")).toBe(true);
    expect(looks[0]!.message).toBe(
      "look-alike host: https://js.stripe.com.evil.example/skimmer.js (seen on pay.example/checkout) looks like " +
        "an authorized host, js.stripe.com: js.stripe.com.evil.example carries stripe.com in a longer name, but " +
        "is under evil.example; never authorize it, remove it from the page and find out how it got there",
    );
    expect(looks[5]!.message).toContain(
      "invisible character U+200B in the URL: without it it reads as https://www.pay.example/assets/checkout.js, " +
        "which https://www.pay.example/assets/checkout.js authorizes",
    );
    // Every look-alike, and the plain skimmer, is unauthorized too; the authorized script is neither.
    expect(check.findings.filter((f) => f.type === "unauthorized")).toHaveLength(7);
    expect(check.findings.some((f) => f.script_id === "a".repeat(32))).toBe(false);
    expect(check.authorized[0]!.state).toBe("ok");
  });

  it("a prefix whose * would extend the host authorizes no look-alike even unchecked by validate", () => {
    const loose: ScriptInventory = {
      pages: ["pay.example/checkout*"],
      authorized: [{ url: "https://js.stripe.com*", justification: "wrong", owner: "payments" }],
    };
    const check = checkInventory(
      loose,
      [
        seen("https://js.stripe.com/v3/", "a".repeat(32)),
        seen("https://js.stripe.com.evil.example/skimmer.js", "b".repeat(32)),
        seen("https://js.stripe.com@evil.example/skimmer.js", "c".repeat(32)),
      ],
      new Map(),
      { now: NOW },
    );
    expect(check.findings.filter((f) => f.type === "unauthorized").map((f) => f.script_id)).toEqual([
      "b".repeat(32),
      "c".repeat(32),
    ]);
    expect(check.findings.filter((f) => f.type === "lookalike")).toHaveLength(2);
  });
});

function audit(format: AuditFormat): { out: string; totals: ReturnType<typeof totalsOf> } {
  let out = "";
  const r = createRenderer(format, (t) => (out += t), {
    now: () => NOW,
    sarif: { version: "0.1.0" },
  });
  const c = new AuditCollector(10);
  const judge = new LookalikeJudge(hostReferences({ authorized: INV.authorized.map((a) => a.url) }));
  const raws = [
    { id: "s1", url: "https://js.stripe.com.evil.example/skimmer.js", host: "pay.example", status: "active" },
    { id: "s2", url: "https://js.stripe.com/v3/", host: "pay.example", status: "active", js_integrity_score: 90 },
    { id: "s3", url: "https://examp1e.com/a.js", host: "example.com", status: "active", js_integrity_score: 3 },
  ];
  r.begin();
  r.zoneStart(Z, { malicious_below: 10, threat_below: 10 });
  for (const raw of raws) {
    c.countRead("script");
    for (const f of [classifyScript(raw), lookalikeFinding("script", raw, judge)]) {
      if (!f) continue;
      c.add(f);
      r.finding(Z, f);
    }
  }
  r.zoneEnd(Z, c);
  const check = checkInventory(INV, [seen(raws[0]!.url, "b".repeat(32))], new Map(), { now: NOW });
  const totals = totalsOf([{ zone_id: Z, summary: c.summary }]);
  const withInventory = totalsOf([{ zone_id: Z, summary: c.summary, inventory: check }]);
  r.end(totals);
  expect(withInventory.lookalike_hosts).toBe(3);
  return { out, totals };
}

describe("audit's pass over every script and connection", () => {
  it("counts look-alikes apart from malicious verdicts, and fails by default", () => {
    const { totals } = audit("json");
    expect(totals).toMatchObject({ findings: 3, malicious_scripts: 1, lookalike_hosts: 2, high: 3 });
    expect(DEFAULT_FAIL_ON).toContain("lookalike");
    expect(shouldFail(totals, DEFAULT_FAIL_ON)).toBe(true);
    expect(shouldFail({ ...totals, malicious_scripts: 0 }, parseFailOn("lookalike"))).toBe(true);
    expect(shouldFail({ ...totals, lookalike_hosts: 0, malicious_scripts: 0 }, DEFAULT_FAIL_ON)).toBe(false);
    expect(shouldFail(totals, parseFailOn("insecure"))).toBe(false);
  });

  it("text and Markdown list them with what they imitate", () => {
    const text = audit("text").out;
    expect(text).toContain("Scripts: 3 read, 1 malicious, 2 look-alike hosts");
    expect(text).toContain(
      "look-alike host: looks like an authorized host, js.stripe.com; js.stripe.com.evil.example carries stripe.com",
    );
    expect(text).toContain("look-alike host: looks like the page's own host, example.com; examp1e.com is 1 character");
    expect(text).toContain(
      "Findings: 1 malicious script, 0 malicious connections, 0 insecure cookies, 2 look-alike hosts.",
    );
    const md = audit("markdown").out;
    expect(md).toContain("- Scripts: 3 read, 1 malicious, 2 look-alike hosts\n");
    expect(md).toContain("look-alike host: looks like an authorized host, js.stripe.com");
  });

  it("JSON carries the lookalike detail, CSV the finding kind", () => {
    const doc = JSON.parse(audit("json").out);
    const f = doc.zones[0].findings.find((x: { id: string; lookalike?: unknown }) => x.id === "s1");
    expect(f.lookalike).toEqual({
      host: "js.stripe.com.evil.example",
      looks_like: "js.stripe.com",
      looks_like_kind: "authorized",
      signals: ["embedded"],
    });
    expect(doc.zones[0].summary.script.lookalike).toBe(2);
    const rows = audit("csv").out.split("\r\n");
    expect(rows.filter((r) => r.includes(",lookalike,") && !r.startsWith(",result,"))).toHaveLength(2);
    expect(rows.find((r) => r.includes(",s3,") && r.includes(",malicious,"))).toBeDefined();
  });

  it("SARIF has a rule of its own for them", () => {
    const log = JSON.parse(audit("sarif").out);
    const run = log.runs[0];
    const rule = run.tool.driver.rules.find((r: { id: string }) => r.id === "zoneform/lookalike-host");
    expect(rule.properties.tags).toContain("pci-dss-6.4.3");
    const results = run.results.filter((r: { ruleId: string }) => r.ruleId === "zoneform/lookalike-host");
    expect(results).toHaveLength(2);
    expect(results[0].ruleIndex).toBe(run.tool.driver.rules.indexOf(rule));
    expect(results[0].message.text).toMatch(/^Look-alike host: script https:\/\/js\.stripe\.com\.evil\.example/);
    expect(results[0].properties.lookalike.signals).toEqual(["embedded"]);
  });
});
