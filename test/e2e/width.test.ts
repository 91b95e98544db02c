// Issue 30 item 3: every human output fits 80 columns when the width is 80 (COLUMNS off a terminal,
// the rule of src/cli/width.ts), and a wider width shows more. Issue 47: at 80 columns the rows of
// audit's tables stay distinct, a cell cut in its middle or wrapped in its column.
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { displayWidth } from "../../src/text-width.js";
import { ACCOUNT, TestEmulator, ZONE, runCli, tempDir, writeConfig } from "../helpers/cli.js";
import { createFleet } from "../helpers/fleet.js";

const emu = TestEmulator.perFile();

/** Every line within `width`, but the digest lines: kept whole (84-85 columns) so that the digest copies as one. */
function expectWithin(width: number, ...outputs: string[]): void {
  for (const text of outputs) {
    for (const line of text.split("\n")) {
      if (/^(Plan digest:|Applying plan) sha256:[0-9a-f]{64}$/.test(line)) continue;
      expect(displayWidth(line), line).toBeLessThanOrEqual(width);
    }
  }
}

const widest = (text: string) => Math.max(...text.split("\n").map(displayWidth));

/** The lines of the table whose header starts with `header`, to the blank line after it. */
function tableAt(text: string, header: string): string[] {
  const lines = text.split("\n");
  const from = lines.findIndex((l) => l.startsWith(header));
  expect(from, header).toBeGreaterThanOrEqual(0);
  const to = lines.findIndex((l, i) => i > from && !l.startsWith("  "));
  return lines.slice(from, to < 0 ? undefined : to);
}

/** Each row's text under `title` (to the column `next`), its lines joined with `|`; a row starts with a value. */
function cellsUnder(lines: readonly string[], title: string, next?: string): string[] {
  const from = lines[0]!.indexOf(title);
  const to = next === undefined ? undefined : lines[0]!.indexOf(next);
  const rows: string[][] = [];
  for (const l of lines.slice(1)) {
    if (l[2] !== " " || rows.length === 0) rows.push([]);
    rows.at(-1)!.push(l.slice(from, to).trim());
  }
  return rows.map((r) => r.filter((p) => p !== "").join("|"));
}

describe("output at 80 columns", () => {
  it("plan, apply, plan again, show, drift: every line within 80 columns, nothing of a value lost", async () => {
    const fleet = await createFleet(emu, 2);
    const at = (columns: number) => ({ env: { ...fleet.env, COLUMNS: String(columns) } });
    const dir = await tempDir();
    const saved = join(dir, "plan.json");

    const wide = await runCli(emu, ["plan", "-c", fleet.config], { env: fleet.env });
    expect(wide.code, wide.stderr).toBe(0);
    expect(widest(wide.stdout)).toBeGreaterThan(80);

    const plan = await runCli(emu, ["plan", "-c", fleet.config, "--out", saved], at(80));
    expect(plan.code, plan.stderr).toBe(0);
    expectWithin(80, plan.stdout, plan.stderr);
    // The one-line JSON of output_options is broken over lines, not cut: every character is there.
    const joined = (s: string) =>
      s
        .split("\n")
        .map((l) => l.trim())
        .join("");
    expect(joined(plan.stdout)).toContain('"field_names":["RayID","ClientIP","ClientRequestHost"]');

    const show = await runCli(emu, ["show", saved], at(80));
    expect(show.code, show.stderr).toBe(0);
    expectWithin(80, show.stdout, show.stderr);

    const drift = await runCli(emu, ["drift", "-c", fleet.config], at(80));
    expect(drift.code).toBe(2);
    expectWithin(80, drift.stdout, drift.stderr);

    const apply = await runCli(emu, ["apply", "-c", fleet.config, "--auto-approve"], at(80));
    expect(apply.code, apply.stderr).toBe(0);
    expectWithin(80, apply.stdout, apply.stderr);

    const again = await runCli(emu, ["plan", "-c", fleet.config, "--detailed-exitcode"], at(80));
    expect(again.code, again.stdout).toBe(0);
    expect(again.stdout).toContain("No changes.");
  });

  it("audit: within 80 columns, a row per finding; 120 columns show more of each row", async () => {
    const at80 = await runCli(emu, ["audit", "--zone", ZONE.com], { env: { COLUMNS: "80" } });
    expect(at80.code, at80.stderr).toBe(2);
    expectWithin(80, at80.stdout, at80.stderr);
    const at120 = await runCli(emu, ["audit", "--zone", ZONE.com], { env: { COLUMNS: "120" } });
    expectWithin(120, at120.stdout, at120.stderr);
    expect(widest(at120.stdout)).toBeGreaterThan(widest(at80.stdout));
    // A row's first line starts with its severity (its wrapped cells go on below): as many at 80 columns as at 120.
    const rows = (s: string) => s.split("\n").filter((l) => /^ {2}(high|medium|low|critical)\b/i.test(l)).length;
    expect(rows(at80.stdout)).toBeGreaterThan(0);
    expect(rows(at80.stdout)).toBe(rows(at120.stdout));
    // Issue 38: a URL cut keeps its scheme and host, then …, then its end (the file name); never `https:/…`.
    const cutUrls = [...at80.stdout.matchAll(/https?:\/\/[^\s…]*…\S*/g)].map((m) => m[0]);
    expect(cutUrls.length).toBeGreaterThan(0);
    for (const u of cutUrls) expect(u, u).toMatch(/^https?:\/\/[a-z0-9.-]+\.[a-z]{2,}\/?…\/?[^\s/…]+/);
    expect(at80.stdout).not.toMatch(/https?:\/?…/);
  });

  it("audit at 80 columns: alert types sharing a long start and the WHY reasons stay whole and distinct", async () => {
    const types = ["scriptmonitor_alert_new_resources", "scriptmonitor_alert_new_max_length_resource_url"];
    for (const [k, alert_type] of types.entries()) {
      const res = await emu.call("POST", `accounts/${ACCOUNT}/alerting/v3/policies`, {
        name: `Payment page alert ${k + 1}`,
        alert_type,
        enabled: true,
        mechanisms: { email: [{ id: "secops@example.com" }] },
        filters: { zones: [ZONE.com] },
      });
      expect(res.status, JSON.stringify(res.body.errors)).toBe(200);
    }
    const cfg = await writeConfig(
      `version: 1\naccount_id: ${ACCOUNT}\nzones:\n  - zone_id: ${ZONE.com}\n    name: example.com\n`,
    );
    const r = await runCli(emu, ["audit", "-c", cfg], { env: { COLUMNS: "80" } });
    expect(r.code, r.stderr).toBe(2);
    expectWithin(80, r.stdout, r.stderr);
    const json = await runCli(emu, ["audit", "-c", cfg, "--format", "json"]);
    const findings = JSON.parse(json.stdout).zones[0].findings as Array<{ kind: string; reasons: string[] }>;

    const alerting = cellsUnder(tableAt(r.stdout, "  POLICY"), "ALERT TYPE", "STATE");
    expect(alerting).toHaveLength(2);
    expect(new Set(alerting).size, alerting.join(" / ")).toBe(2);
    // Each keeps its start and its end, whether cut in its middle or wrapped: it names one alert type only.
    for (const t of alerting) {
      const [start, end] = [t.split(/[…|]/)[0]!, t.split(/[…|]/).at(-1)!];
      expect(
        types.filter((type) => type.startsWith(start) && type.endsWith(end)),
        t,
      ).toHaveLength(1);
    }
    expect(r.stdout).not.toContain("scriptmonitor_a…");

    const why = cellsUnder(tableAt(r.stdout, "  SEVERITY  INTEGRITY"), "WHY").map((c) => c.replaceAll("|", " "));
    const scripts = findings.filter((f) => f.kind === "script");
    expect(why).toHaveLength(scripts.length);
    expect(new Set(why).size).toBe(why.length);
    // Every reason whole, or wrapped at a space (read back by joining its lines): never cut.
    expect([...why].sort()).toEqual(scripts.map((f) => f.reasons.join("; ")).sort());
    expect(r.stdout).not.toMatch(/[<‹] …/);
  });

  it("certificates and an error message fit 80 columns", async () => {
    const certs = await runCli(emu, ["certificates", "--zone", ZONE.com], { env: { COLUMNS: "80" } });
    expectWithin(80, certs.stdout, certs.stderr);
    // The common flags are taken by certificates and whoami too (issue 38), and change nothing of the report.
    const flagged = await runCli(emu, ["certificates", "--zone", ZONE.com, "--no-color", "--quiet"], {
      env: { COLUMNS: "80" },
    });
    expect(flagged.code, flagged.stderr).toBe(certs.code);
    expect(flagged.stdout).toBe(certs.stdout);
    const who = await runCli(emu, ["whoami", "--no-color", "--quiet"], { env: { COLUMNS: "80" } });
    expect(who.stderr).not.toContain("unknown option");
    expect(who.code, who.stderr).toBe(0);
    const fleet = await createFleet(emu, 3);
    const err = await runCli(emu, ["plan", "-c", fleet.config], {
      env: { ...fleet.env, COLUMNS: "80", CLOUDFLARE_API_TOKEN: "mistyped-token-0000000000000000000000000" },
    });
    expect(err.code).toBe(1);
    expectWithin(80, err.stdout, err.stderr);
    expect(err.stderr.replace(/\n\s*/g, " ")).toContain("set it to a current token (My Profile → API Tokens");
  });
});
