import { describe, expect, it } from "vitest";
import { classifyCookie, classifyScript } from "../../../src/inventory/classify.js";
import { AuditCollector } from "../../../src/audit/collector.js";
import { createRenderer, csvCell, describeTotals } from "../../../src/audit/renderers.js";
import { shouldFail, totalsOf } from "../../../src/audit/run.js";

const Z = "0123456789abcdef0123456789abcdef";

function render(format: "text" | "json" | "markdown" | "csv") {
  let out = "";
  const r = createRenderer(format, (t) => (out += t), { now: () => new Date("2025-06-01T00:00:00Z") });
  const c = new AuditCollector(10);
  const findings = [
    classifyScript({
      id: "s1",
      url: "https://evil.test/a|b.js",
      host: "example.com",
      status: "active",
      js_integrity_score: 6,
    })!,
    classifyCookie({ id: "k1", name: "=cmd", host: "example.com", secure_attribute: false })!,
  ];
  r.begin();
  r.zoneStart(Z, { status: ["active"], malicious_below: 10, threat_below: 10 });
  for (const f of findings) {
    c.countRead(f.kind);
    c.add(f);
    r.finding(Z, f);
  }
  r.zoneEnd(Z, c);
  const totals = totalsOf([{ zone_id: Z, summary: c.summary }]);
  r.end(totals);
  return { out, totals };
}

describe("audit renderers", () => {
  it("json is one valid document streamed finding by finding", () => {
    const doc = JSON.parse(render("json").out);
    expect(doc.generated_at).toBe("2025-06-01T00:00:00.000Z");
    expect(doc.zones[0].filters).toEqual({ status: ["active"], malicious_below: 10, threat_below: 10 });
    expect(doc.zones[0].findings.map((f: { id: string }) => f.id)).toEqual(["s1", "k1"]);
    expect(doc.totals).toMatchObject({ findings: 2, malicious_scripts: 1, insecure_cookies: 1 });
  });

  it("csv quotes cells and defuses spreadsheet formulas", () => {
    const lines = render("csv").out.split("\r\n");
    expect(lines[0]!.startsWith("zone_id,kind,severity,id,subject")).toBe(true);
    // After the header, the provenance rows (zoneform_version, run_at) and the script's row.
    expect(lines[4]).toContain(",'=cmd,");
    expect(csvCell('a "b", c')).toBe('"a ""b"", c"');
    expect(csvCell("+1")).toBe("'+1");
  });

  it("markdown escapes pipes inside cells", () => {
    expect(render("markdown").out).toContain("https://evil.test/a\\|b.js");
  });

  it("text ends with the totals line", () => {
    const { out } = render("text");
    expect(out.trimEnd().split("\n").pop()).toBe(
      "Findings: 1 malicious script, 0 malicious connections, 1 insecure cookie.",
    );
  });
});

describe("--fail-on", () => {
  it("malicious counts scripts and connections, any counts cookies too, none never fails", () => {
    const { totals } = render("text");
    expect(shouldFail(totals, "malicious")).toBe(true);
    const cookiesOnly = { ...totals, malicious_scripts: 0, high: 0, findings: 1 };
    expect(shouldFail(cookiesOnly, "malicious")).toBe(false);
    expect(shouldFail(cookiesOnly, "any")).toBe(true);
    expect(shouldFail(totals, "none")).toBe(false);
    expect(describeTotals({ ...totals, findings: 0 })).toMatch(/^No findings/);
  });
});
