// The hostile corpus (test/fixtures/hostile-corpus.ts) through every renderer, as pure functions: plan
// text, Markdown and JSON, the drift report, audit text, Markdown, CSV, JSON and SARIF with a script
// inventory, inventory SARIF, the certificates report and the CSP suggestion. None of the hostile
// constructs survives live in any of them; JSON keeps the data as it was (its escapes are lossless).
import { describe, expect, it } from "vitest";
import { AuditCollector } from "../../src/audit/collector.js";
import { createRenderer, type AuditFormat } from "../../src/audit/renderers.js";
import { totalsOf } from "../../src/audit/run.js";
import { policyBlock, renderSuggestionText } from "../../src/cli/commands/csp.js";
import { CspSuggester } from "../../src/csp/suggest.js";
import { checkInventory } from "../../src/inventory/check.js";
import { classifyConnection, classifyCookie, classifyScript } from "../../src/inventory/classify.js";
import type { Plan } from "../../src/model/plan.js";
import { renderDriftReport } from "../../src/plan/render/compact.js";
import { renderPlanMarkdown } from "../../src/plan/render/markdown.js";
import { renderPlanText } from "../../src/plan/render/text.js";
import { htmlCode, htmlText, mdCell, mdCode, mdCodeBlock, mdCodeCell, mdText } from "../../src/safe-markdown.js";
import { safeJson } from "../../src/safe-text.js";
import { inventorySarif } from "../../src/sarif/inventory.js";
import {
  buildCertificateReport,
  renderCertificateReportText,
} from "../../src/sections/custom_hostnames/certificates.js";
import {
  HOSTILE,
  HOSTILE_PIECES,
  HOSTILE_URL,
  liveMarkdown,
  liveSarif,
  liveTerminal,
} from "../fixtures/hostile-corpus.js";

const Z = "0123456789abcdef0123456789abcdef";
const NOW = new Date("2025-06-01T00:00:00Z");

const plan = {
  format_version: 5,
  created_at: "2026-01-01T00:00:00.000Z",
  summary: { create: 1, update: 1, replace: 0, delete: 1 },
  zones: [
    {
      zone_id: Z,
      name: HOSTILE,
      fingerprints: {},
      errors: [],
      warnings: [`duplicate ${HOSTILE}`],
      changes: [
        {
          kind: "delete",
          resource: "page_shield_policy",
          zone_id: Z,
          identity: HOSTILE,
          live_id: "abc",
          summary: HOSTILE,
          notes: [HOSTILE],
          fields: [{ field: "description", before: HOSTILE }],
          operations: [{ method: "DELETE", path: `zones/${Z}/page_shield/policies/abc` }],
        },
        {
          kind: "update",
          resource: "page_shield_policy",
          zone_id: Z,
          identity: "Checkout",
          live_id: "def",
          fields: [{ field: "value", before: "script-src 'self'", after: `script-src 'self' ${HOSTILE}`, text: true }],
          operations: [{ method: "PUT", path: `zones/${Z}/page_shield/policies/def`, body: { description: HOSTILE } }],
        },
        {
          kind: "create",
          resource: "logpush_job",
          zone_id: Z,
          identity: HOSTILE,
          fields: [{ field: "name", after: HOSTILE }],
          operations: [{ method: "POST", path: `zones/${Z}/logpush/jobs`, body: { name: HOSTILE } }],
        },
      ],
    },
  ],
} as unknown as Plan;

const failed = { ...plan, zones: [{ ...plan.zones[0]!, errors: [`the API said ${HOSTILE}`] }] } as Plan;

function expectInert(problems: string[], what: string): void {
  expect(problems, what).toEqual([]);
}

describe("the Markdown encoder", () => {
  it("leaves no piece of the corpus live, alone or together, in text, cells and code", () => {
    for (const piece of [...HOSTILE_PIECES, HOSTILE]) {
      expectInert(liveMarkdown(`Text: ${mdText(piece)}`), `mdText ${JSON.stringify(piece)}`);
      expectInert(liveMarkdown(mdText(piece)), `mdText at the start ${JSON.stringify(piece)}`);
      expectInert(liveMarkdown(`| a | b |\n|---|---|\n| ${mdCell(piece)} | ${mdCodeCell(piece)} |`), `cells ${piece}`);
      expectInert(liveMarkdown(`Code: ${mdCode(piece)}`), `mdCode ${JSON.stringify(piece)}`);
      expectInert(liveMarkdown(`${mdCodeBlock([piece, `+ ${piece}`], "diff")}\nafter`), `block ${piece}`);
      expectInert(liveMarkdown(`<details><summary>${htmlCode(piece)} ${htmlText("x")}</summary>`), `html ${piece}`);
    }
  });

  it("writes code spans and blocks with a fence longer than any backtick run, and cuts long cells", () => {
    expect(mdCode("a ``` b")).toBe("````a ``` b````");
    expect(mdCode("`x")).toBe("`` `x ``");
    expect(mdCodeBlock(["```", "````"])).toBe("`````\n```\n````\n`````");
    const cell = mdCell("x".repeat(500), 40);
    expect(cell).toBe(`${"x".repeat(39)}…`);
    expect(mdText("# not a heading")).toBe("\\# not a heading");
    expect(mdText("1. not a list")).toBe("1\\. not a list");
    expect(mdText("a_b *c* [d](e) <f> & @g #1")).toBe("a\\_b \\*c\\* \\[d\\](e) &lt;f&gt; &amp; `@g` `#1`");
  });
});

describe("plan renderers", () => {
  it("text and the drift report: nothing a terminal acts on or hides", () => {
    for (const p of [plan, failed]) {
      expectInert(liveTerminal(renderPlanText(p, { color: false, verbose: true })), "plan text");
      expectInert(
        liveTerminal(renderPlanText(p, { color: true, verbose: true }).replace(/\u001b\[\d+m/g, "")),
        "colour",
      );
      expectInert(liveTerminal(renderDriftReport(p)), "drift");
    }
  });

  it("Markdown: nothing live, the marker and the zone's blocks intact", () => {
    for (const p of [plan, failed]) {
      const md = renderPlanMarkdown(p);
      expectInert(liveMarkdown(md), "plan markdown");
      expect(md.startsWith("<!-- zoneform plan -->\n")).toBe(true);
      const lines = md.split("\n");
      expect(lines.filter((l) => l.startsWith("<details"))).toHaveLength(
        lines.filter((l) => l === "</details>").length,
      );
      // Data's own `<!--` is only ever inside the diff block (code), never a comment of its own.
      expect(lines.filter((l) => l.includes("<!--") && !/^[-+!#] /.test(l))).toEqual(["<!-- zoneform plan -->"]);
    }
  });

  it("JSON: nothing raw, the same data read back", () => {
    const text = safeJson(plan, 2);
    expectInert(liveTerminal(text), "plan json");
    expect(JSON.parse(text)).toEqual(plan);
  });
});

function renderAudit(format: AuditFormat): string {
  let out = "";
  const r = createRenderer(format, (t) => (out += t), {
    now: () => NOW,
    sarif: { version: "0.0.0", zoneNames: new Map([[Z, HOSTILE]]) },
  });
  const c = new AuditCollector(10);
  const findings = [
    classifyScript({
      id: "s1",
      url: HOSTILE_URL,
      host: HOSTILE,
      status: HOSTILE,
      first_page_url: HOSTILE,
      js_integrity_score: 3,
      malicious_domain_categories: [HOSTILE],
    })!,
    classifyConnection({ id: "c1", url: HOSTILE_URL, host: HOSTILE, url_reported_malicious: true })!,
    classifyCookie({ id: "k1", name: HOSTILE, host: HOSTILE, secure_attribute: false })!,
  ];
  r.begin();
  r.zoneStart(Z, { hosts: [HOSTILE], page_url: [HOSTILE], malicious_below: 10, threat_below: 10 });
  for (const f of findings) {
    c.countRead(f.kind);
    c.add(f);
    r.finding(Z, f);
  }
  const check = checkInventory(
    {
      pages: [HOSTILE],
      authorized: [
        { url: HOSTILE_URL, justification: HOSTILE, owner: HOSTILE, hash: "a".repeat(64) },
        { url: "https://stale.example/x.js", justification: HOSTILE },
      ],
    },
    [
      { id: "u1", url: `${HOSTILE_URL}&other`, first_page_url: HOSTILE, last_seen_at: "2025-05-30T00:00:00Z" },
      { id: "u2", url: HOSTILE_URL, hash: "b".repeat(64), last_seen_at: "2025-05-30T00:00:00Z" },
    ],
    new Map(),
    { now: NOW, staleDays: 90 },
  );
  expect(check.findings.length).toBeGreaterThan(1);
  r.inventory(Z, check, {
    checked_at: NOW.toISOString(),
    zone_name: HOSTILE,
    source: HOSTILE,
    query: { page_url: HOSTILE },
  });
  r.zoneEnd(Z, c);
  r.end(totalsOf([{ zone_id: Z, summary: c.summary, inventory: check }]));
  return out;
}

describe("audit renderers", () => {
  it("text and CSV: nothing raw", () => {
    expectInert(liveTerminal(renderAudit("text")), "audit text");
    expectInert(liveTerminal(renderAudit("csv").replace(/\r\n/g, "\n")), "audit csv");
  });

  it("Markdown: nothing live in headings, lists, tables and the inventory's evidence", () => {
    const md = renderAudit("markdown");
    expectInert(liveMarkdown(md), "audit markdown");
    expect(md).toContain("### Script inventory of the payment pages");
  });

  it("JSON: nothing raw, the data kept", () => {
    const text = renderAudit("json");
    expectInert(liveTerminal(text), "audit json");
    const doc = JSON.parse(text);
    expect(doc.zones[0].findings[0].host).toBe(HOSTILE);
    expect(doc.zones[0].script_inventory.authorized[0].justification).toBe(HOSTILE);
  });

  it("SARIF: no embedded link in any message, nothing raw; properties keep the data", () => {
    const text = renderAudit("sarif");
    expectInert(liveSarif(text), "audit sarif");
    const log = JSON.parse(text);
    expect(log.runs[0].results.length).toBeGreaterThan(3);
    expect(log.runs[0].results[0].properties.host).toBe(HOSTILE);
  });

  it("inventory SARIF: no embedded link, nothing raw", () => {
    const { log } = inventorySarif({
      zone: { id: Z, name: HOSTILE },
      pages: [HOSTILE],
      scripts: [{ id: "m1", url: HOSTILE_URL, malicious: [HOSTILE], first_page_url: HOSTILE }],
      now: NOW,
      version: "0.0.0",
    });
    expectInert(liveSarif(safeJson(log, 2)), "inventory sarif");
  });
});

describe("other reports", () => {
  it("certificates: text and JSON", () => {
    const report = buildCertificateReport([
      {
        zone_id: Z,
        hostnames: [
          {
            id: HOSTILE,
            hostname: HOSTILE,
            ssl: { certificate_authority: HOSTILE, status: HOSTILE, method: HOSTILE, issuer: HOSTILE },
          },
        ],
      },
    ]);
    expectInert(liveTerminal(renderCertificateReportText(report)), "certificates text");
    expectInert(liveTerminal(safeJson(report, 2)), "certificates json");
  });

  it("csp suggest: text and the YAML block", () => {
    // Read as `csp suggest` reads them: a page's own script, a hostile one, a malicious one, a connection.
    const suggester = new CspSuggester();
    suggester.add("script", { url: "https://example.com/app.js", first_page_url: `example.com/${HOSTILE}` });
    suggester.add("script", { url: HOSTILE_URL, first_page_url: HOSTILE, js_integrity_score: 80 });
    suggester.add("script", { url: `https://${HOSTILE}/x.js`, first_page_url: "example.com/", js_integrity_score: 80 });
    suggester.add("script", {
      url: "https://evil.example/skim.js",
      host: HOSTILE,
      first_page_url: "example.com/",
      js_integrity_score: 2,
      malicious_domain_categories: [HOSTILE],
    });
    suggester.add("script", {
      url: `https://example.com/${HOSTILE}`,
      first_page_url: "example.com/",
      js_integrity_score: 1,
    });
    suggester.add("connection", { url: HOSTILE_URL, first_page_url: HOSTILE });
    const s = suggester.result();
    const block = policyBlock(s, { description: HOSTILE, action: "log" });
    expectInert(liveTerminal(block), "csp yaml");
    expectInert(liveTerminal(renderSuggestionText(Z, s, block)), "csp text");
  });
});
