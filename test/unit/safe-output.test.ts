// Every renderer shows text from the API or the file printable: control characters, escape sequences
// and bidirectional characters escaped, a newline inside a value as `\n`, zoneform's own colours intact.
import { describe, expect, it } from "vitest";
import { classifyCookie, classifyScript } from "../../src/inventory/classify.js";
import { AuditCollector } from "../../src/audit/collector.js";
import { createRenderer, csvCell, type AuditFormat } from "../../src/audit/renderers.js";
import { totalsOf } from "../../src/audit/run.js";
import {
  buildCertificateReport,
  renderCertificateReportText,
} from "../../src/sections/custom_hostnames/certificates.js";
import { policyBlock, renderSuggestionText } from "../../src/cli/commands/csp.js";
import { memoryIO } from "../../src/cli/io.js";
import { reportError } from "../../src/cli/program.js";
import { describeZone } from "../../src/cli/commands/validate.js";
import type { CspSuggestion } from "../../src/csp/suggest.js";
import { ApiError, RuntimeError, formatProblem } from "../../src/errors.js";
import { headerComment } from "../../src/export/document.js";
import type { Plan } from "../../src/model/plan.js";
import { renderDriftReport } from "../../src/plan/render/compact.js";
import { renderPlanMarkdown } from "../../src/plan/render/markdown.js";
import { renderPlanText } from "../../src/plan/render/text.js";

/** What a hostile description looks like: cursor up, erase line, carriage return, BEL, CSI, RLO, a newline. */
const EVIL = "Legit\u001b[1A\u001b[2K\rhidden\u0007\u009b2K\u202eright\nnext";
const EVIL_SHOWN = "Legit\\u001b[1A\\u001b[2K\\rhidden\\u0007\\u009b2K\\u202eright\\nnext";
/** Any unsafe character except the newline (a renderer's own line breaks). */
const RAW = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
/** The same, but ESC allowed only as the start of a picocolors SGR code (`ESC[<digits>m`). */
const RAW_BUT_COLOUR =
  /\u001b(?!\[\d+m)|[\u0000-\u0009\u000b-\u001a\u001c-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

const Z = "0123456789abcdef0123456789abcdef";

const plan = {
  created_at: "2026-01-01T00:00:00.000Z",
  summary: { create: 1, update: 1, replace: 0, delete: 1 },
  zones: [
    {
      zone_id: Z,
      name: `shop|${EVIL}`,
      fingerprints: {},
      errors: [`reading page_shield_policy: the API said ${EVIL}`],
      warnings: [`duplicate ${EVIL}`],
      changes: [
        {
          kind: "delete",
          resource: "page_shield_policy",
          zone_id: Z,
          identity: EVIL,
          live_id: "abc\u001b[2K",
          summary: `summary ${EVIL}`,
          notes: [`note ${EVIL}`],
          fields: [{ field: "description", before: EVIL }],
          operations: [{ method: "DELETE", path: `zones/${Z}/page_shield/policies/abc\u001b[2K` }],
        },
        {
          kind: "update",
          resource: "page_shield_policy",
          zone_id: Z,
          identity: "Checkout",
          live_id: "def",
          fields: [
            { field: "value", before: "script-src 'self'", after: `script-src 'self' ${EVIL}`, text: true },
            { field: "enabled", before: `x\u007f\u2066`, after: true },
          ],
          operations: [
            {
              method: "PUT",
              path: `zones/${Z}/page_shield/policies/def`,
              body: { description: EVIL, value: "a\u2028b" },
            },
          ],
        },
        {
          kind: "create",
          resource: "logpush_job",
          zone_id: Z,
          identity: "job\u001b]0;title\u0007",
          fields: [{ field: "name", after: "job\u001b]0;title\u0007" }],
          operations: [{ method: "POST", path: `zones/${Z}/logpush/jobs`, body: {} }],
        },
      ],
    },
  ],
} as Omit<Plan, "format_version"> as Plan;

describe("plan renderers", () => {
  it("text: no raw control character, the escaped form instead, the delete line intact", () => {
    const out = renderPlanText(plan, { color: false, verbose: true });
    expect(out).not.toMatch(RAW);
    expect(out).toContain(`  - page_shield_policy "${EVIL_SHOWN}" (id abc\\u001b[2K)\n`);
    expect(out).toContain(`      - description: "${EVIL_SHOWN}"\n`);
    expect(out).toContain(`{+${EVIL_SHOWN}+}`);
    expect(out).toContain('~ enabled: "x\\u007f\\u2066" → true');
    expect(out).toContain(`DELETE zones/${Z}/page_shield/policies/abc\\u001b[2K`);
    expect(out).toContain(`"value": "a\\u2028b"`);
    expect(out).toContain(`# summary ${EVIL_SHOWN}\n`);
    expect(out).toContain(`! note ${EVIL_SHOWN}\n`);
    expect(out).toContain(`Error: reading page_shield_policy: the API said ${EVIL_SHOWN}\n`);
    expect(out).toContain(`Warning: [shop|${EVIL_SHOWN}] duplicate ${EVIL_SHOWN}\n`);
    expect(out).toContain('+ logpush_job "job\\u001b]0;title\\u0007"');
    // A zone could not be planned: no Plan: summary, which would leave it out.
    expect(out).not.toContain("Plan:");
    expect(out).toContain("1 zone could not be planned");
  });

  it("text with colour: zoneform's colours stay, the untrusted text is escaped inside them", () => {
    const out = renderPlanText(plan, { color: true });
    expect(out).not.toMatch(RAW_BUT_COLOUR);
    expect(out).toContain("\u001b[31m-\u001b[39m");
    expect(out).toContain(`\u001b[1mpage_shield_policy "${EVIL_SHOWN}" (id abc\\u001b[2K)\u001b[22m`);
    expect(out).toContain(`\u001b[32m{+${EVIL_SHOWN}+}\u001b[39m`);
  });

  it("drift report: one line per zone, escaped", () => {
    const out = renderDriftReport(plan);
    expect(out).not.toMatch(RAW);
    expect(out.split("\n")).toHaveLength(4);
    expect(out).toContain(`delete page_shield_policy "${EVIL_SHOWN}"`);
  });

  it("markdown: table rows hold (| and newlines escaped), diff lines stay lines", () => {
    const out = renderPlanMarkdown(plan);
    expect(out).not.toMatch(RAW);
    const row = out.split("\n").find((l) => l.startsWith("| shop"))!;
    // In Markdown text, `\` `[` `|` are escaped: the cell shows the escaped form as it is.
    const md = (t: string) => t.replace(/[\\[|]/g, "\\$&");
    expect(row).toBe(`| ${md(`shop|${EVIL_SHOWN}`)} | 1 | 1 | 0 | 1 | 1 |`);
    // Six cells: every pipe but the escaped one separates.
    expect(row.split(/(?<!\\)\|/)).toHaveLength(8);
    expect(out).toContain(`- - page_shield_policy "${EVIL_SHOWN}" (id abc\\u001b[2K)\n`);
    expect(out).toContain(`-     description: "${EVIL_SHOWN}"\n`);
    expect(out).toContain(`+     value: "script-src 'self' ${EVIL_SHOWN}"\n`);
    expect(out).toContain(`<summary><code>shop|${EVIL_SHOWN}</code> (<code>${Z}</code>)</summary>`);
    expect(out).toContain(`> **Error:** reading page\\_shield\\_policy: the API said ${md(EVIL_SHOWN)}\n`);
    expect(out).toContain(`> **Warning:** duplicate ${md(EVIL_SHOWN)}\n`);
  });
});

function renderAudit(format: AuditFormat): string {
  let out = "";
  const r = createRenderer(format, (t) => (out += t), { now: () => new Date("2025-06-01T00:00:00Z") });
  const c = new AuditCollector(10);
  const findings = [
    classifyScript({
      id: "s1",
      url: `https://evil.test/a|b.js?${EVIL}`,
      host: "example.com\u001b[2K",
      status: "active\r",
      js_integrity_score: 12,
      domain_reported_malicious: true,
      malicious_domain_categories: [`Malware\u001b[1A`],
    })!,
    classifyCookie({ id: "k1", name: `=sid\n\u001b[2K`, host: "example.com", secure_attribute: false })!,
  ];
  r.begin();
  r.zoneStart(Z, { status: ["active"], hosts: ["shop\u0007.example"], malicious_below: 10, threat_below: 10 });
  for (const f of findings) {
    c.countRead(f.kind);
    c.add(f);
    r.finding(Z, f);
  }
  r.zoneEnd(Z, c);
  r.end(totalsOf([{ zone_id: Z, summary: c.summary }]));
  return out;
}

describe("audit renderers", () => {
  it("text: cells, filters and categories escaped, one line per row", () => {
    const out = renderAudit("text");
    expect(out).not.toMatch(RAW);
    expect(out).toContain("host shop\\u0007.example");
    expect(out).toContain("malicious domain categories: Malware\\u001b[1A 1");
    const row = out.split("\n").find((l) => l.includes("https://evil.test"))!;
    expect(row).toContain("example.com\\u001b[2K");
    expect(row).toContain("active\\r");
    expect(out.split("\n").find((l) => l.includes("=sid"))).toContain("=sid\\n\\u001b[2K");
  });

  it("markdown: table rows hold", () => {
    const out = renderAudit("markdown");
    expect(out).not.toMatch(RAW);
    const row = out.split("\n").find((l) => l.includes("https://evil.test"))!;
    expect(row).toContain("a\\|b.js");
    expect(row).toContain("example.com\\\\u001b\\[2K");
    // Severity, score, URL, host, status, why: six cells.
    expect(row.split(/(?<!\\)\|/)).toHaveLength(8);
    expect(out).toContain("=sid\\\\n\\\\u001b\\[2K");
  });

  it("csv: one record per line, cells escaped, formulas still defused", () => {
    const out = renderAudit("csv");
    expect(out).not.toMatch(/[\u0000-\u0009\u000b\u000c\u000e-\u001f\u007f-\u009f\u202a-\u202e]/);
    // The header, the provenance rows (version, run), the two findings, the result row.
    const records = out.split("\r\n").filter((l) => l !== "");
    expect(records).toHaveLength(6);
    for (const r of records) expect(r).not.toContain("\n");
    expect(records[4]).toContain("'=sid\\n\\u001b[2K");
    expect(csvCell("\tcmd")).toBe("\\tcmd");
    expect(csvCell("a\r\nb")).toBe("a\\r\\nb");
    expect(csvCell("=1+1")).toBe("'=1+1");
  });

  it("json stays JSON: the values are kept, escaped by JSON itself", () => {
    const doc = JSON.parse(renderAudit("json"));
    expect(doc.zones[0].findings[0].host).toBe("example.com\u001b[2K");
  });
});

describe("other reports", () => {
  it("certificates: hostname, CA, status and method escaped, the table aligned", () => {
    const report = buildCertificateReport([
      {
        zone_id: Z,
        hostnames: [
          {
            id: "1",
            hostname: "a.example\u001b[1A\u001b[2K",
            ssl: { certificate_authority: "lets\u202e_encrypt", status: "active\r", method: "http\n" },
          },
          { id: "2", hostname: "b.example", ssl: { certificate_authority: "google", status: "active", method: "txt" } },
        ],
      },
    ]);
    const out = renderCertificateReportText(report);
    expect(out).not.toMatch(RAW);
    const lines = out.split("\n");
    const a = lines.find((l) => l.includes("a.example"))!;
    expect(a.trim()).toBe("a.example\\u001b[1A\\u001b[2K  lets\\u202e_encrypt  active\\r    http\\n");
    // The columns line up: escaped text is as wide as it is long.
    expect(lines.find((l) => l.includes("b.example"))!.indexOf("google")).toBe(a.indexOf("lets"));
    expect(out).toContain("by CA: google 1, lets\\u202e_encrypt 1");
  });

  it("csp suggest: excluded hosts, reasons and example URLs escaped; the YAML comment stays a comment", () => {
    const s: CspSuggestion = {
      script_src: ["'self'"],
      connect_src: [],
      value: "script-src 'self'",
      excluded: [
        {
          host: "evil.test",
          scripts: 1,
          connections: 0,
          reasons: [`domain reported malicious (Malware\nbad: yaml\u001b[2K)`],
        },
      ],
      self_hosted_malicious: { count: 1, examples: [`https://example.com/x.js?${EVIL}`] },
      page_hosts: ["example.com\u202e"],
      dropped: [],
      dropped_more: 0,
      counts: { scripts: 2, connections: 0, skipped: 0, dropped: 0 },
      malicious_below: 10,
      threat_below: 10,
    };
    const block = policyBlock(s, { description: "Suggested", action: "log" });
    expect(block.split("\n").filter((l) => l.includes("bad: yaml"))).toEqual([
      "#   evil.test: domain reported malicious (Malware\\nbad: yaml\\u001b[2K)",
    ]);
    const out = renderSuggestionText(Z, s, block);
    expect(out).not.toMatch(RAW);
    expect(out).toContain(`  https://example.com/x.js?${EVIL_SHOWN}\n`);
    // A bidirectional character in YAML: the string double-quoted, the character a YAML escape.
    expect(out).toContain('expression: "http.host eq \\"example.com\\u202e\\""');
  });

  it("export header: an API job name with a newline cannot end the comment", () => {
    const text = headerComment(
      {
        schemaRef: "schema.json",
        version: "0.1.0",
        exportedAt: new Date("2025-01-01T00:00:00Z"),
        zones: [Z],
        sections: ["logpush"],
      },
      {
        warnings: [],
        env: [{ name: "JOB_SECRET", zone_id: Z, purpose: "logpush job a\nzones: []\u001b[2K: the secret parameter" }],
        remarks: ["r\u0007"],
      } as never,
    );
    expect(text).not.toMatch(RAW);
    for (const line of text.trimEnd().split("\n")) expect(line.startsWith("#")).toBe(true);
    expect(text).toContain("logpush job a\\nzones: []\\u001b[2K: the secret parameter");
  });

  it("validate --verbose: a zone name from the file stays on its line", () => {
    expect(describeZone({ zone_id: Z, name: "shop\u001b[2K\nx" } as never)).toBe(
      `shop\\u001b[2K\\nx (${Z}): nothing managed`,
    );
  });
});

describe("errors on stderr", () => {
  it("a config problem is one line, the file's text escaped", () => {
    const line = formatProblem({
      file: "z.yaml",
      line: 3,
      column: 5,
      pointer: "/zones/0/name",
      message: 'got "a\u001b[1A\nb"',
    });
    expect(line).toBe('z.yaml:3:5  /zones/0/name  got "a\\u001b[1A\\nb"');
  });

  it("a pointer thousands of levels deep keeps its start and end, the levels between counted", () => {
    const deep = `/zones/0/name${"/0".repeat(10_000)}`;
    const line = formatProblem({ file: "deep.yaml", line: 4, column: 9, pointer: deep, message: "too deep" });
    expect(line.length).toBeLessThan(300);
    expect(line).toMatch(/^deep\.yaml:4:9 {2}\/zones\/0\/name\/0\/0(\/0)*\/…\(\d+ levels\)…(\/0)+ {2}too deep$/);
    const left = Number(/\((\d+) levels\)/.exec(line)![1]);
    const shown = line
      .split("  ")[1]!
      .replace(/…\(\d+ levels\)…/, "")
      .split("/")
      .filter(Boolean).length;
    expect(shown + left).toBe(deep.split("/").length - 1);
    // A pointer of a readable length is shown whole.
    const whole = `/zones/0/page_shield/policies/12/value`;
    expect(formatProblem({ file: "z.yaml", line: 1, column: 1, pointer: whole, message: "m" })).toContain(whole);
  });

  it("the one catch keeps zoneform's newlines and escapes every other control character", () => {
    const { io, stderr } = memoryIO();
    reportError(new RuntimeError(`2 zones could not be planned:\n  [shop] the API said ${EVIL}`), io, false);
    expect(stderr()).toBe(
      `Error: 2 zones could not be planned:\n  [shop] the API said ` +
        `Legit\\u001b[1A\\u001b[2K\\rhidden\\u0007\\u009b2K\\u202eright\nnext\n`,
    );
    const api = memoryIO();
    const err = new ApiError(`GET zones/x was rejected with HTTP 400 (Cloudflare: bad\u001b[2K\r\u0007)`, {
      status: 400,
      method: "GET",
      path: "zones/x",
      errors: [],
      retryable: false,
    });
    expect(reportError(err, api.io, false)).toBe(1);
    expect(api.stderr()).toBe("Error: GET zones/x was rejected with HTTP 400 (Cloudflare: bad\\u001b[2K\\r\\u0007)\n");
    const internal = memoryIO();
    reportError(new TypeError("boom\u001b[2K"), internal.io, true);
    expect(internal.stderr()).not.toMatch(RAW);
    expect(internal.stderr()).toContain("Internal error: boom\\u001b[2K\n");
  });
});
