// The Action's input evidence-dir (mode audit): each run adds exactly one record to the folder (the
// Markdown run's `audit --evidence-dir`, never the SARIF run's too), the job summary shows the period
// the folder covers (`zoneform evidence --format markdown`), a record that does not hold (a gap of more
// than 7 days) fails the step once the summary is written, and a folder that is, or is inside, a
// symbolic link is refused before zoneform runs.
import { mkdir, readdir, readFile, symlink } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runAction, workspaceWith } from "../helpers/action-runner.js";
import { TestEmulator, ZONE, tempDir } from "../helpers/cli.js";
import { ACTIONS_BOT, GitHubStandIn } from "../helpers/github-standin.js";

const emu = TestEmulator.perFile();
const REPO = "octo/zones";
const GH_TOKEN = "ghs_standintoken0123456789";
const gh = new GitHubStandIn(REPO);
gh.tokens.set(GH_TOKEN, ACTIONS_BOT);
beforeAll(() => gh.start());
afterAll(() => gh.close());

const CONFIG = `version: 1
zones:
  - zone_id: ${ZONE.com}
    name: example.com
    page_shield:
      enabled: true
`;
const RECORD = /^zoneform-audit-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}Z-\d{3}\.json$/;

const auditAt = (workspace: string, now: string, inputs: Record<string, string> = { "evidence-dir": "evidence" }) =>
  runAction({
    emu,
    gh,
    token: GH_TOKEN,
    workspace,
    event: "schedule",
    payload: {},
    inputs: { mode: "audit", ...inputs },
    env: { ZONEFORM_NOW: now },
  });

const errors = (r: { commands: Array<{ command: string; data: string }> }) =>
  r.commands.filter((c) => c.command === "error").map((c) => c.data);

describe("the Action's evidence-dir", () => {
  it("adds one record per run, shows the period in the summary, and fails once a gap breaks the record", async () => {
    gh.reset();
    const ws = await workspaceWith({ "zoneform.yaml": CONFIG });
    const evidence = join(ws, "evidence");

    const first = await auditAt(ws, "2026-11-25T12:00:00Z");
    // The emulator's zone has findings: the step fails for them, and the run is on record all the same.
    expect(first.outputs).toMatchObject({ mode: "audit", "has-findings": "true" });
    expect(errors(first)).toEqual(["audit: findings (the job summary lists them)"]);
    expect((await readdir(evidence)).filter((n) => RECORD.test(n))).toHaveLength(1);
    // The record comes from the Markdown run alone; the SARIF run keeps none.
    expect(first.log).toContain(
      `$ zoneform audit -c ${join(ws, "zoneform.yaml")} --format markdown --evidence-dir ${evidence}`,
    );
    expect(first.log).toContain(`$ zoneform audit -c ${join(ws, "zoneform.yaml")} --format sarif\n`);
    expect(first.log).toContain(`$ zoneform evidence ${evidence} --format markdown`);
    // After the audit's report, a paragraph apart.
    expect(first.summary).toMatch(/\*\*Findings: [^\n]*\*\*\n\n# Audit evidence of the period\n/);
    expect(first.summary).toContain("**RECORD COMPLETE: 1 run from 2026-11-25T12:00:00.000Z");

    const second = await auditAt(ws, "2026-12-01T12:00:00Z");
    expect(errors(second)).toEqual(["audit: findings (the job summary lists them)"]);
    const names = (await readdir(evidence)).filter((n) => RECORD.test(n)).sort();
    expect(names).toHaveLength(2);
    expect(second.summary).toContain(`\`${names[0]}\``);
    expect(second.summary).toContain(`\`${names[1]}\``);
    const latest = JSON.parse(await readFile(join(evidence, names[1]!), "utf8")) as {
      evidence: { previous: { file: string } };
    };
    expect(latest.evidence.previous.file).toBe(names[0]);

    // Nineteen days without a run: the step fails, after the summary shows the gap.
    const late = await auditAt(ws, "2026-12-20T12:00:00Z");
    expect(late.code).toBe(1);
    expect((await readdir(evidence)).filter((n) => RECORD.test(n))).toHaveLength(3);
    expect(late.summary).toContain("**RECORD INCOMPLETE: 3 runs from 2026-11-25T12:00:00.000Z");
    expect(late.summary).toContain("2026-12-01T12:00:00.000Z → 2026-12-20T12:00:00.000Z: 19 days");
    const message =
      `evidence: the record in ${evidence} does not hold (a gap of more than 7 days between runs, or a record ` +
      "changed or unreadable: the job summary shows which)";
    expect(errors(late)).toEqual([`audit: findings (the job summary lists them); ${message}`]);
    expect(await emu.calls({ writesOnly: true })).toEqual([]);
    expect(gh.calls).toEqual([]);
  });

  it("without evidence-dir: no record, no period", async () => {
    gh.reset();
    const ws = await workspaceWith({ "zoneform.yaml": CONFIG });
    const r = await auditAt(ws, "2026-11-25T12:00:00Z", {});
    expect(r.log).not.toContain("--evidence-dir");
    expect(r.log).not.toContain("$ zoneform evidence");
    expect(r.summary).not.toContain("# Audit evidence of the period");
    expect(await readdir(ws)).not.toContain("evidence");
  });

  it("refuses a folder that is a link, or inside one, before zoneform runs; nothing written there", async () => {
    gh.reset();
    const outside = await tempDir("zoneform-outside-");
    const ws = await workspaceWith({ "zoneform.yaml": CONFIG });
    await symlink(outside, join(ws, "evidence"));
    await mkdir(join(ws, "reports"));
    await symlink(outside, join(ws, "reports/linked"));
    await emu.clearRequests();

    const linked = await auditAt(ws, "2026-11-25T12:00:00Z");
    expect(linked.code).toBe(1);
    expect(errors(linked)).toEqual([
      `evidence-dir ${join(ws, "evidence")}: a symbolic link; the Action writes no file through one (name a ` +
        "folder without links)",
    ]);
    const inside = await auditAt(ws, "2026-11-25T12:00:00Z", { "evidence-dir": "reports/linked/evidence" });
    expect(inside.code).toBe(1);
    expect(errors(inside)).toEqual([
      `evidence-dir ${join(ws, "reports/linked/evidence")}: ${join(ws, "reports/linked")} is a symbolic link; the ` +
        "Action writes no file through one (name a path without links)",
    ]);
    expect(await readdir(outside)).toEqual([]);
    expect(await emu.calls()).toEqual([]); // refused before the CLI ran
  });
});
