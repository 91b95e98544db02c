// drift and audit (on a schedule): read-only.
import { lstatSync } from "node:fs";
import { ActionFailed, codeBlock, configArgs, configPath, lastLines, type Context } from "./context.js";
import { outputPath, writeOutput } from "./files.js";
import { COMMENT_MAX_BYTES } from "./plan-mode.js";
import { parseSavedPlan, planMarkdown } from "./saved-plan.js";

export async function drift(ctx: Context): Promise<void> {
  const { runner } = ctx;
  const path = outputPath(ctx.workspace, runner.input("drift-path"), "zoneform-drift.json", "drift-path");
  const run = await ctx.zoneform(["drift", ...configArgs(ctx), "--format", "json"], { quiet: true });
  if (run.code !== 0 && run.code !== 2) {
    runner.summary(`### zoneform drift failed (exit ${run.code})\n\n${codeBlock(lastLines(run.stderr))}`);
    throw new ActionFailed(`zoneform drift failed (exit ${run.code})`);
  }
  const found = await parseSavedPlan(run.stdout, "(the drift that zoneform drift --format json printed)");
  await writeOutput(ctx.workspace, path, run.stdout, "drift-path");
  runner.setOutput("drift-path", path);
  const drifted = found.changes > 0 || found.plan.zones.some((z) => z.errors.length > 0);
  runner.setOutput("has-drift", drifted ? "true" : "false");
  runner.summary(
    drifted
      ? `### zoneform drift\n\nThe zones no longer match the files: this plan would undo the changes made ` +
          `by hand.\n\n${planMarkdown(found, { maxBytes: COMMENT_MAX_BYTES })}`
      : "### zoneform drift\n\nNo drift: the zones match the files.\n",
  );
  if (drifted) throw new ActionFailed("drift: the zones no longer match the files (the job summary shows how)");
}

function auditArgs(ctx: Context): string[] {
  const zone = ctx.runner.input("zone");
  const config = configPath(ctx);
  return zone ? ["-c", config, "--zone", zone] : ["-c", config];
}

/** The input evidence-dir resolved in the workspace, or undefined when it is empty. */
function evidenceDir(ctx: Context): string | undefined {
  const given = ctx.runner.input("evidence-dir");
  if (!given) return undefined;
  const dir = outputPath(ctx.workspace, given, given, "evidence-dir");
  let linked = false;
  try {
    linked = lstatSync(dir).isSymbolicLink();
  } catch {
    // Not there yet: the CLI makes it.
  }
  if (linked)
    throw new ActionFailed(
      `evidence-dir ${dir}: a symbolic link; the Action writes no file through one (name a folder without links)`,
    );
  return dir;
}

async function showPeriod(ctx: Context, dir: string): Promise<string | undefined> {
  const run = await ctx.zoneform(["evidence", dir, "--format", "markdown"], { quiet: true });
  if (run.code !== 0 && run.code !== 2) {
    ctx.runner.summary(`### zoneform evidence failed (exit ${run.code})\n\n${codeBlock(lastLines(run.stderr))}`);
    return `zoneform evidence failed (exit ${run.code})`;
  }
  // A blank line first: the period is a document of its own after the audit's report.
  ctx.runner.summary(`\n${run.stdout}`);
  if (run.code === 2)
    return (
      `evidence: the record in ${dir} does not hold (a gap of more than 7 days between runs, or a record ` +
      "changed or unreadable: the job summary shows which)"
    );
  return undefined;
}

export async function audit(ctx: Context): Promise<void> {
  const { runner } = ctx;
  const sarifPath = outputPath(ctx.workspace, runner.input("sarif-path"), "zoneform-audit.sarif", "sarif-path");
  const evidence = evidenceDir(ctx);
  const args = auditArgs(ctx);
  // Only this run keeps the record, so that each Action run adds exactly one.
  const md = await ctx.zoneform([
    "audit",
    ...args,
    "--format",
    "markdown",
    ...(evidence ? ["--evidence-dir", evidence] : []),
  ]);
  if (md.code !== 0 && md.code !== 2) {
    runner.summary(`### zoneform audit failed (exit ${md.code})\n\n${codeBlock(lastLines(md.stderr))}`);
    throw new ActionFailed(`zoneform audit failed (exit ${md.code})`);
  }
  runner.summary(md.stdout);
  runner.setOutput("has-findings", md.code === 2 ? "true" : "false");
  const sarif = await ctx.zoneform(["audit", ...args, "--format", "sarif"], { quiet: true });
  if (sarif.code !== 0 && sarif.code !== 2)
    throw new ActionFailed(`zoneform audit --format sarif failed (exit ${sarif.code})`);
  await writeOutput(ctx.workspace, sarifPath, sarif.stdout, "sarif-path");
  runner.setOutput("sarif-path", sarifPath);
  const failures = md.code === 2 ? ["audit: findings (the job summary lists them)"] : [];
  const period = evidence ? await showPeriod(ctx, evidence) : undefined;
  if (period) failures.push(period);
  if (failures.length > 0) throw new ActionFailed(failures.join("; "));
}
