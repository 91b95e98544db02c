// Issue 46, point 6: the period on record. `audit -c FILE --evidence-dir DIR` adds each run's JSON result to
// DIR under a dated name never used before (a run never edits an earlier one), each naming the one before it
// with its sha256; `zoneform evidence DIR` renders the period: each run and its result, each finding with when
// it appeared and cleared, gaps of more than 7 days, and a record changed after the next run recorded it.
import { copyFile, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { TestEmulator, runCli, tempDir } from "../helpers/cli.js";

const emu = TestEmulator.perFile({ now: "2026-11-25T12:00:00Z" });
const SHOP = "455c348a8c93c48cb1db08118a6f1b28";
const SKIMMER = "https://cdn.skimmer.example/s.js";
const RECORD = /^zoneform-audit-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}Z-\d{3}\.json$/;

async function setUp(): Promise<{ dir: string; config: string; evidence: string }> {
  await emu.admin("POST", "zones", { name: "shop.example", plan: "enterprise" });
  await emu.admin("POST", "inventory", {
    zone_id: SHOP,
    scripts: 0,
    connections: 0,
    cookies: 0,
    malicious_ratio: 0,
    payment_pages: true,
  });
  await emu.admin("POST", "scripts", { zone_id: SHOP, event: "seen", url: SKIMMER, page: "shop.example/checkout" });
  const dir = await tempDir();
  const config = join(dir, "zoneform.yaml");
  await copyFile(join(import.meta.dirname, "../../docs/samples/pci-shop.yaml"), config);
  return { dir, config, evidence: join(dir, "evidence") };
}

const auditAt = (config: string, evidence: string, now: string, cwd: string) =>
  runCli(emu, ["audit", "-c", config, "--evidence-dir", evidence, "--format", "markdown"], {
    cwd,
    env: { ZONEFORM_NOW: now },
  });

describe("the period on record", () => {
  it("keeps each run, and renders the period: results, findings appearing and clearing, gaps, changes", async () => {
    const { dir, config, evidence } = await setUp();
    const first = await auditAt(config, evidence, "2026-11-25T12:00:00Z", dir);
    expect(first.code, first.stderr).toBe(2);
    expect(first.stderr).toMatch(/Recorded this run as \S*evidence\/zoneform-audit-2026-11-25T12-00-00Z-001\.json/);
    // The skimmer handled: reviewed and authorized (what an engineer does once it is explained).
    const reviewed = (await readFile(config, "utf8")).replace(
      "        authorized:\n",
      `        authorized:\n          - url: ${SKIMMER}\n            justification: reviewed, a vendor's\n            owner: payments\n`,
    );
    await writeFile(config, reviewed);
    expect((await auditAt(config, evidence, "2026-12-01T12:00:00Z", dir)).code).toBeLessThan(3);
    // Nineteen days without a run, then one.
    expect((await auditAt(config, evidence, "2026-12-20T12:00:00Z", dir)).code).toBeLessThan(3);

    const names = (await readdir(evidence)).sort();
    expect(names).toHaveLength(3);
    for (const n of names) expect(n).toMatch(RECORD);
    const records = await Promise.all(names.map(async (n) => JSON.parse(await readFile(join(evidence, n), "utf8"))));
    expect(records[0].evidence.previous).toBeNull();
    expect(records[1].evidence.previous.file).toBe(names[0]);
    expect(records[0].provenance.run_at).toBe("2026-11-25T12:00:00.000Z");
    expect(records[0].result.status).toBe("fail");

    const text = await runCli(emu, ["evidence", evidence], { cwd: dir });
    expect(text.code, text.stderr).toBe(2);
    expect(text.stdout.split("\n")[0]).toMatch(
      /^RECORD INCOMPLETE: 3 runs from 2026-11-25T12:00:00.000Z to 2026-12-20/,
    );
    expect(text.stdout).toContain("2026-12-01T12:00:00.000Z → 2026-12-20T12:00:00.000Z: 19 days");
    const json = await runCli(emu, ["evidence", evidence, "--format", "json"], { cwd: dir });
    const period = JSON.parse(json.stdout);
    expect(period.holds).toBe(false);
    expect(period.runs.map((r: { result: string }) => r.result)[0]).toBe("fail");
    // A finding is known across runs by what it is about (here the script's id), its message shown.
    const skimmer = period.findings.find((f: { message: string }) => f.message.includes(SKIMMER));
    expect(skimmer).toMatchObject({
      type: "unauthorized",
      requirement: "6.4.3",
      first_seen: "2026-11-25T12:00:00.000Z",
      cleared: "2026-12-01T12:00:00.000Z",
    });
    expect(period.gaps).toEqual([{ from: "2026-12-01T12:00:00.000Z", to: "2026-12-20T12:00:00.000Z", days: 19 }]);
    expect(period.tampered).toEqual([]);

    // The assessment's own period: the gap before it is not its.
    const since = await runCli(emu, ["evidence", evidence, "--since", "2026-12-15", "--format", "json"], { cwd: dir });
    expect(since.code, since.stderr).toBe(0);
    expect(JSON.parse(since.stdout)).toMatchObject({ holds: true, runs: [{ run_at: "2026-12-20T12:00:00.000Z" }] });
    const bad = await runCli(emu, ["evidence", evidence, "--since", "last week"], { cwd: dir });
    expect(bad.code).toBe(3);
    expect(bad.stderr).toContain("--since last week: expected an ISO 8601 date or instant");

    // An earlier record edited afterwards: the next one's hash of it no longer holds.
    const firstPath = join(evidence, names[0]!);
    await writeFile(firstPath, (await readFile(firstPath, "utf8")).replace('"fail"', '"pass"'));
    const edited = JSON.parse((await runCli(emu, ["evidence", evidence, "--format", "json"], { cwd: dir })).stdout);
    expect(edited.tampered).toEqual([
      { file: names[0], why: `it was changed after ${names[1]} recorded it (sha256 differs)` },
    ]);

    const page = await runCli(emu, ["evidence", evidence, "--format", "html"], { cwd: dir });
    expect(page.stdout).toMatch(/^<!DOCTYPE html>/);
    expect(page.stdout).toContain('http-equiv="Content-Security-Policy" content="default-src \'none\';');
    expect(page.stdout).not.toMatch(/<script|<img|<link/i);
    const md = await runCli(emu, ["evidence", evidence, "--format", "markdown"], { cwd: dir });
    expect(md.stdout).toContain("## Gaps in the weekly evaluation");
  });

  it("never reuses a name: runs of the same second get the next number", async () => {
    const { dir, config, evidence } = await setUp();
    for (let i = 0; i < 2; i++) await auditAt(config, evidence, "2026-11-25T12:00:00Z", dir);
    expect((await readdir(evidence)).sort()).toEqual([
      "zoneform-audit-2026-11-25T12-00-00Z-001.json",
      "zoneform-audit-2026-11-25T12-00-00Z-002.json",
    ]);
    const weekly = await runCli(emu, ["evidence", evidence], { cwd: dir });
    expect(weekly.stdout.split("\n")[0]).toMatch(/^RECORD COMPLETE: 2 runs/);
  });

  it("refuses a directory it cannot keep the record in before any call, and an empty one to render", async () => {
    const { dir, config } = await setUp();
    const file = join(dir, "not-a-dir");
    await writeFile(file, "x");
    await emu.clearRequests();
    const r = await runCli(emu, ["audit", "-c", config, "--evidence-dir", file], { cwd: dir });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/^Error: --evidence-dir \S+: the directory cannot be made or written \(E[A-Z]+\)\n$/);
    expect(await emu.requests()).toEqual([]);
    const empty = await runCli(emu, ["evidence", dir], { cwd: dir });
    expect(empty.code).toBe(3);
    expect(empty.stderr).toContain("no record of a run");
  });
});
