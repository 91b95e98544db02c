// Issue 46, point 6: the period on record, from the records `audit --evidence-dir` keeps: each run's date
// and result, each finding with when it appeared and cleared, gaps of more than 7 days, and an earlier
// record changed after the next run recorded its sha256.
import { mkdtemp, readdir, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { evidencePeriod, sha256, type EvidenceFile } from "../../../src/audit/evidence-period.js";
import {
  periodHolds,
  renderEvidenceHtml,
  renderEvidenceMarkdown,
  renderEvidenceText,
} from "../../../src/audit/render-evidence.js";
import { readEvidenceDir, recordRun } from "../../../src/cli/evidence-store.js";

const Z = "0123456789abcdef0123456789abcdef";

/** An audit's JSON document with these inventory findings (script ids). */
function auditDoc(at: string, scripts: string[]): Record<string, unknown> {
  return {
    format_version: 1,
    generated_at: at,
    zones: [
      {
        zone_id: Z,
        findings: [],
        script_inventory: {
          findings: scripts.map((id) => ({
            type: "unauthorized",
            script_id: id,
            url: `https://x.example/${id}.js`,
            requirement: "6.4.3",
            message: `unauthorized script https://x.example/${id}.js`,
          })),
        },
      },
    ],
    totals: { findings: scripts.length },
    result: { status: scripts.length > 0 ? "fail" : "pass" },
  };
}

/** Records as the store chains them, the dates given. */
async function chain(runs: Array<[string, string[]]>): Promise<{ dir: string; files: EvidenceFile[] }> {
  const dir = await mkdtemp(join(tmpdir(), "zoneform-evidence-"));
  for (const [at, scripts] of runs) await recordRun(dir, auditDoc(at, scripts), new Date(at));
  return { dir, files: await readEvidenceDir(dir, dir) };
}

describe("the period on record", () => {
  it("tells each run, and when each finding appeared and cleared", async () => {
    const { files } = await chain([
      ["2026-11-01T06:00:00Z", []],
      ["2026-11-07T06:00:00Z", ["skim"]],
      ["2026-11-13T06:00:00Z", ["skim", "other"]],
      ["2026-11-19T06:00:00Z", ["other"]],
    ]);
    const p = evidencePeriod(files);
    expect(p.runs.map((r) => [r.run_at, r.result, r.findings])).toEqual([
      ["2026-11-01T06:00:00Z", "pass", 0],
      ["2026-11-07T06:00:00Z", "fail", 1],
      ["2026-11-13T06:00:00Z", "fail", 2],
      ["2026-11-19T06:00:00Z", "fail", 1],
    ]);
    expect(p.findings.map((f) => [f.subject, f.first_seen, f.cleared])).toEqual([
      ["skim", "2026-11-07T06:00:00Z", "2026-11-19T06:00:00Z"],
      ["other", "2026-11-13T06:00:00Z", undefined],
    ]);
    expect(p.gaps).toEqual([]);
    expect(p.tampered).toEqual([]);
    expect(periodHolds(p)).toBe(true);
    expect(renderEvidenceText(p)).toMatch(/^RECORD COMPLETE: 4 runs from 2026-11-01T06:00:00Z/);
    expect(renderEvidenceMarkdown(p)).toContain(
      "`https://x.example/skim.js` | 2026-11-07T06:00:00Z | 2026-11-19T06:00:00Z |",
    );
  });

  it("flags a gap of more than 7 days in the weekly evaluation", async () => {
    const { files } = await chain([
      ["2026-11-01T06:00:00Z", []],
      ["2026-11-08T06:00:00Z", []],
      ["2026-11-20T06:00:00Z", []],
    ]);
    const p = evidencePeriod(files);
    expect(p.gaps).toEqual([{ from: "2026-11-08T06:00:00Z", to: "2026-11-20T06:00:00Z", days: 12 }]);
    expect(periodHolds(p)).toBe(false);
    expect(renderEvidenceText(p)).toContain("2026-11-08T06:00:00Z → 2026-11-20T06:00:00Z: 12 days");
  });

  it("flags an earlier record changed, removed or put in after the next run recorded it", async () => {
    const { dir, files } = await chain([
      ["2026-11-01T06:00:00Z", ["skim"]],
      ["2026-11-07T06:00:00Z", []],
      ["2026-11-13T06:00:00Z", []],
    ]);
    // Someone rewrites the first run to hide the skimmer.
    const edited = files.map((f, i) =>
      i === 0 ? { ...f, text: JSON.stringify(auditDoc("2026-11-01T06:00:00Z", [])) } : f,
    );
    expect(evidencePeriod(edited).tampered).toEqual([
      { file: files[0]!.name, why: `it was changed after ${files[1]!.name} recorded it (sha256 differs)` },
    ]);
    // The middle one removed.
    expect(evidencePeriod([files[0]!, files[2]!]).tampered[0]!.why).toContain(`names ${files[1]!.name}`);
    // Not JSON.
    expect(evidencePeriod([{ name: "zoneform-audit-x.json", text: "{" }]).runs[0]!.result).toBe("unreadable");
    expect(sha256(files[0]!.text)).toMatch(/^[0-9a-f]{64}$/);
    expect((await readdir(dir)).sort()).toEqual(files.map((f) => f.name));
  });

  it("never overwrites a record: a second run in the same second gets the next name", async () => {
    const dir = await mkdtemp(join(tmpdir(), "zoneform-evidence-"));
    const at = new Date("2026-11-01T06:00:00Z");
    const a = await recordRun(dir, auditDoc(at.toISOString(), []), at);
    const b = await recordRun(dir, auditDoc(at.toISOString(), ["x"]), at);
    expect([a, b]).toEqual([
      "zoneform-audit-2026-11-01T06-00-00Z-001.json",
      "zoneform-audit-2026-11-01T06-00-00Z-002.json",
    ]);
    await writeFile(join(dir, "notes.txt"), "not a record");
    expect((await readEvidenceDir(dir, dir)).map((f) => f.name)).toEqual([a, b]);
    expect(evidencePeriod(await readEvidenceDir(dir, dir)).tampered).toEqual([]);
  });

  it("shows what the records hold as data: escaped in HTML and Markdown, printable in text", async () => {
    const hostile = "<img src=x onerror=alert(1)>|`x`\u001b[31m";
    const doc = auditDoc("2026-11-01T06:00:00Z", ["a"]);
    const zone = (doc.zones as Array<{ script_inventory: { findings: Array<{ message: string }> } }>)[0]!;
    zone.script_inventory.findings[0]!.message = hostile;
    const p = evidencePeriod([{ name: "zoneform-audit-2026-11-01T06-00-00Z-001.json", text: JSON.stringify(doc) }]);
    const page = renderEvidenceHtml(p);
    expect(page).not.toContain("<img");
    expect(page).toContain("&lt;img src=x onerror=alert(1)&gt;");
    expect(renderEvidenceMarkdown(p)).not.toMatch(/<img|\| `x` \|/);
    expect(renderEvidenceText(p)).not.toContain("\u001b");
  });

  it("does not read a record without its result as a pass or a fail", () => {
    const { result: _r, ...doc } = auditDoc("2026-11-01T06:00:00Z", []);
    const p = evidencePeriod([{ name: "zoneform-audit-2026-11-01T06-00-00Z-001.json", text: JSON.stringify(doc) }]);
    expect(p.runs[0]!.result).toBe("unreadable");
    expect(periodHolds(p)).toBe(false);
  });
});

describe("a period asked for", () => {
  it("leaves out runs outside it, and counts its edges for gaps", async () => {
    const { files } = await chain([
      ["2026-10-01T06:00:00Z", []],
      ["2026-11-03T06:00:00Z", ["skim"]],
      ["2026-11-10T06:00:00Z", []],
    ]);
    // The gap before November is not November's; the record still chains over every file.
    const nov = evidencePeriod(files, { since: "2026-11-01T00:00:00.000Z", until: "2026-11-15T23:59:59.999Z" });
    expect(nov.runs.map((r) => r.run_at)).toEqual(["2026-11-03T06:00:00Z", "2026-11-10T06:00:00Z"]);
    expect(nov.gaps).toEqual([]);
    expect(nov.tampered).toEqual([]);
    expect(periodHolds(nov)).toBe(true);
    expect(renderEvidenceText(nov)).toMatch(
      /^RECORD COMPLETE for 2026-11-01T00:00:00.000Z to 2026-11-15T23:59:59.999Z: 2 runs/,
    );
    // A period that runs past the last run by more than 7 days has a gap at its end.
    const late = evidencePeriod(files, { since: "2026-11-01T00:00:00.000Z", until: "2026-11-30T00:00:00.000Z" });
    expect(late.gaps).toEqual([{ from: "2026-11-10T06:00:00Z", to: "2026-11-30T00:00:00.000Z", days: 19 }]);
  });
});
