// The evidence's provenance and overall result in every format of `audit` (issue 46): the zoneform
// version, the configuration file with the sha256 of its bytes and its git commit and clean-ness (a
// checkout of this test's own; "not in a git checkout" outside one, and without git), the run's instant,
// the zones and pages in scope, and pass or fail as the exit code says it, first where a person reads.
// The Markdown shows no empty section and no punctuation inside a code span; `--out` writes the report whole.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { appendFile, mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { VERSION } from "../../src/cli/command.js";
import { runCli, TEST_NOW, TestEmulator, tempDir, ZONE, zoneId } from "../helpers/cli.js";
import { sarifSchemaErrors } from "../helpers/sarif.js";

const emu = TestEmulator.perFile();
const FORMATS = ["text", "markdown", "json", "csv", "sarif", "html"] as const;
const CONFIG = `version: 1
zones:
  - zone_id: ${ZONE.com}
    name: example.com
    page_shield:
      script_inventory:
        pages: [example.com/checkout*]
        authorized: []
`;

let dir: string;
beforeEach(async () => {
  dir = await tempDir("zoneform-provenance-");
  await writeFile(join(dir, "zoneform.yaml"), CONFIG);
});

const sha256 = async (file: string) =>
  createHash("sha256")
    .update(await readFile(file))
    .digest("hex");

function audit(format: string, ...flags: string[]) {
  return runCli(emu, ["audit", "-c", "zoneform.yaml", "--format", format, ...flags], { cwd: dir });
}

function git(...args: string[]): string {
  const id = ["-c", "user.name=Evidence Test", "-c", "user.email=evidence@example.com"];
  return execFileSync("git", [...id, ...args], { cwd: dir, encoding: "utf8" }).trim();
}

/** The CSV's rows as cells by column (no cell of these rows holds a quoted comma but `reasons`). */
function csvRows(out: string): Array<Record<string, string>> {
  const [head, ...rows] = out.split("\r\n").filter((l) => l !== "");
  const cols = head!.split(",");
  return rows.map((r) => {
    const cells = r.match(/("(?:[^"]|"")*"|[^,]*)(,|$)/g)!.map((c) => c.replace(/,$/, ""));
    return Object.fromEntries(cols.map((c, i) => [c, cells[i] ?? ""]));
  });
}

describe("audit: provenance and the overall result in every format", () => {
  it("outside a git checkout: version, sha256, run, zones and pages, the result first, in every format", async () => {
    const sha = await sha256(join(dir, "zoneform.yaml"));
    const out: Record<string, string> = {};
    for (const format of FORMATS) {
      const r = await audit(format);
      expect(r.code, `${format}: ${r.stderr}`).toBe(2);
      out[format] = r.stdout;
    }
    const text = out.text!.split("\n");
    expect(text[0]).toMatch(/^Result: FAIL \(exit 2\) on \d+ malicious scripts or connections, \d+ unauthorized/);
    expect(text.slice(1, 4)).toEqual([
      `  zoneform ${VERSION}, run at ${TEST_NOW}`,
      `  configuration zoneform.yaml: sha256 ${sha}, not in a git checkout`,
      `  zone ${ZONE.com} (example.com): payment pages example.com/checkout*`,
    ]);
    expect(out.markdown).toMatch(/^# Page Shield audit\n\n\*\*Result: FAIL \(exit 2\) on /);
    expect(out.markdown).toContain(`- Configuration: \`zoneform.yaml\`, sha256 \`${sha}\`, not in a git checkout\n`);

    const doc = JSON.parse(out.json!);
    expect(Object.keys(doc)).toEqual(["format_version", "generated_at", "provenance", "zones", "totals", "result"]);
    expect(doc.provenance).toEqual({
      zoneform_version: VERSION,
      files: [{ path: "zoneform.yaml", sha256: sha, git: null }],
      run_at: TEST_NOW,
      zones: [{ zone_id: ZONE.com, name: "example.com", pages: ["example.com/checkout*"] }],
    });
    expect(doc.result).toMatchObject({ status: "fail", exit_code: 2, failed_on: ["malicious", "unauthorized"] });
    expect(doc.result.counts.findings).toBe(doc.totals.findings);

    const rows = csvRows(out.csv!);
    expect(rows.slice(0, 3).map((r) => [r.kind, r.finding, r.subject])).toEqual([
      ["provenance", "zoneform_version", VERSION],
      ["provenance", "run_at", TEST_NOW],
      ["provenance", "config_file", "zoneform.yaml"],
    ]);
    expect(rows[2]).toMatchObject({ seen_hash: sha, status: "not in a git checkout" });
    expect(rows.at(-1)).toMatchObject({ kind: "result", finding: "result", status: "fail" });

    const log = JSON.parse(out.sarif!);
    expect(sarifSchemaErrors(log)).toEqual([]);
    const run = log.runs[0];
    expect(Object.keys(run).indexOf("invocations")).toBeLessThan(Object.keys(run).indexOf("results"));
    expect(run.invocations).toEqual([
      expect.objectContaining({ executionSuccessful: true, exitCode: 2, startTimeUtc: TEST_NOW }),
    ]);
    expect(run.artifacts).toEqual([
      {
        location: { uri: "zoneform.yaml" },
        roles: ["analysisTarget"],
        hashes: { "sha-256": sha },
        properties: { git: null },
      },
    ]);
    expect(run.properties.provenance).toEqual(doc.provenance);
    expect(run.properties.result).toEqual(doc.result);

    const html = out.html!;
    expect(html).toContain(`<code>${sha}</code>`);
    expect(html.indexOf("Result: FAIL (exit 2)")).toBeLessThan(html.indexOf("<h2>Provenance</h2>"));
    expect(html.indexOf("<h2>Provenance</h2>")).toBeLessThan(html.indexOf('<section class="zone"'));
  });

  it("in a git checkout: the commit and clean; the file changed, untracked or ignored: not clean", async () => {
    git("init", "-q");
    await writeFile(join(dir, "other.txt"), "x\n");
    git("add", "zoneform.yaml", "other.txt");
    git("commit", "-qm", "the configuration");
    const head = git("rev-parse", "HEAD");
    const gitOf = async () => JSON.parse((await audit("json")).stdout).provenance.files[0].git;
    expect(await gitOf()).toEqual({ commit: head, clean: true });
    // Another file's change is not the evidence's.
    await appendFile(join(dir, "other.txt"), "y\n");
    expect(await gitOf()).toEqual({ commit: head, clean: true });
    expect((await audit("text")).stdout).toContain(`git commit ${head} (clean: the file is the commit's)`);

    await appendFile(join(dir, "zoneform.yaml"), "# edited after the commit\n");
    const sha = await sha256(join(dir, "zoneform.yaml"));
    expect(await gitOf()).toEqual({ commit: head, clean: false });
    expect((await audit("text")).stdout).toContain(
      `configuration zoneform.yaml: sha256 ${sha}, git commit ${head} (not clean: the file differs from the commit's)`,
    );
    expect((await audit("markdown")).stdout).toContain(`git commit \`${head}\`, **not clean**`);
    expect(csvRows((await audit("csv")).stdout)[2]).toMatchObject({ id: head, status: "modified", seen_hash: sha });
    const artifact = JSON.parse((await audit("sarif")).stdout).runs[0].artifacts[0];
    expect(artifact).toMatchObject({ hashes: { "sha-256": sha }, properties: { git: { commit: head, clean: false } } });
    expect((await audit("html")).stdout).toContain("not clean: the file differs from the commit&#39;s");

    // Staged is not committed; a file git does not track, or ignores, is not the commit's either.
    git("add", "zoneform.yaml");
    expect(await gitOf()).toEqual({ commit: head, clean: false });
    git("rm", "-q", "--cached", "zoneform.yaml");
    expect(await gitOf()).toEqual({ commit: head, clean: false });
    await writeFile(join(dir, ".gitignore"), "zoneform.yaml\n");
    expect(await gitOf()).toEqual({ commit: head, clean: false });
  });

  it("a checkout without a commit yet, and a machine without git", async () => {
    git("init", "-q");
    const first = JSON.parse((await audit("json")).stdout).provenance.files[0].git;
    expect(first).toEqual({ commit: null, clean: false });
    const empty = join(dir, "no-git-here");
    await mkdir(empty);
    const r = await runCli(emu, ["audit", "-c", "zoneform.yaml", "--format", "json"], {
      cwd: dir,
      env: { PATH: empty },
    });
    expect(JSON.parse(r.stdout).provenance.files[0].git).toBeNull();
  });

  it("passes under --fail-on none, and says so first in every format", async () => {
    for (const format of FORMATS) {
      const r = await audit(format, "--fail-on", "none");
      expect(r.code, `${format}: ${r.stderr}`).toBe(0);
      if (format === "text") expect(r.stdout).toMatch(/^Result: PASS \(exit 0\): nothing that --fail-on none counts; /);
      if (format === "markdown") expect(r.stdout).toMatch(/^# Page Shield audit\n\n\*\*Result: PASS \(exit 0\)/);
      if (format === "json") expect(JSON.parse(r.stdout).result).toMatchObject({ status: "pass", exit_code: 0 });
      if (format === "csv") expect(csvRows(r.stdout).at(-1)).toMatchObject({ kind: "result", status: "pass" });
      if (format === "sarif") expect(JSON.parse(r.stdout).runs[0].invocations[0].exitCode).toBe(0);
      if (format === "html") expect(r.stdout).toContain('<div class="result pass"><p><strong>PASS</strong>');
    }
  });

  it("Markdown: no empty section, and code spans hold only their code", async () => {
    // A zone with an inventory and no connection or cookie: the lists it has nothing of show no section.
    const shop = zoneId("shop.example");
    await emu.admin("POST", "/zones", { name: "shop.example", plan: "enterprise" });
    const page = "shop.example/checkout";
    await emu.admin("POST", "/scripts", {
      zone_id: shop,
      event: "seen",
      url: "https://cdn.skimmer.example/s.js",
      page,
    });
    await writeFile(
      join(dir, "zoneform.yaml"),
      `version: 1\nzones:\n  - zone_id: ${shop}\n    name: shop.example\n    page_shield:\n` +
        "      script_inventory:\n        pages: [shop.example/checkout*]\n        authorized: []\n",
    );
    const md = (await audit("markdown")).stdout;
    expect(md).toContain("- Connections: 0 read, 0 malicious\n- Cookies: 0 read, 0 insecure\n");
    expect(md).not.toMatch(/^#+ (Scripts|Connections|Cookies)\b/m);
    const lines = md.split("\n");
    lines.forEach((line, i) => {
      const level = /^(#+) /.exec(line)?.[1]?.length;
      if (level === undefined) return;
      const next = lines.slice(i + 1).find((l) => l.trim() !== "");
      const nextLevel = next === undefined ? 0 : (/^(#+) /.exec(next)?.[1]?.length ?? Number.POSITIVE_INFINITY);
      expect(nextLevel, `section "${line}" is empty`).toBeGreaterThan(level);
    });
    expect(md).toContain("unauthorized script `https://cdn.skimmer.example/s.js`: seen on shop.example/checkout");
    const spans = [...md.matchAll(/(`+)(?!`)([\s\S]*?[^`])\1(?!`)/g)].map((m) => m[2]!.trim());
    expect(spans.length).toBeGreaterThan(5);
    expect(spans.filter((s) => /[:,;.!?]$|^[(]/.test(s))).toEqual([]);
  });

  it("--out writes the report whole when the audit ends; an existing file needs --force", async () => {
    const r = await audit("html", "--out", "audit.html");
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout).toBe("");
    expect(await readFile(join(dir, "audit.html"), "utf8")).toMatch(/^<!DOCTYPE html>[\s\S]*<\/html>\n$/);
    const again = await audit("text", "--out", "audit.html");
    expect(again.code).toBe(3);
    expect(again.stderr).toContain("--out audit.html: the file exists; pass --force to overwrite it");
    expect((await audit("text", "--out", "audit.html", "--force")).code).toBe(2);
    expect(await readFile(join(dir, "audit.html"), "utf8")).toMatch(/^Result: FAIL \(exit 2\)/);
  });
});
