// drift and audit (on a schedule): read-only. drift saves the drift (a plan in JSON) and shows it;
// audit shows its Markdown report and saves its SARIF for code scanning. Both files are written
// through files.ts (never through a link in the checkout).
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

/**
 * The zones to audit: the input zone, else every zone of the configuration (`audit -c FILE` audits
 * each with its account's token, in one report, and says so when the file declares none).
 */
function auditArgs(ctx: Context): string[] {
  const zone = ctx.runner.input("zone");
  const config = configPath(ctx);
  return zone ? ["-c", config, "--zone", zone] : ["-c", config];
}

export async function audit(ctx: Context): Promise<void> {
  const { runner } = ctx;
  const sarifPath = outputPath(ctx.workspace, runner.input("sarif-path"), "zoneform-audit.sarif", "sarif-path");
  const args = auditArgs(ctx);
  const md = await ctx.zoneform(["audit", ...args, "--format", "markdown"]);
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
  if (md.code === 2) throw new ActionFailed("audit: findings (the job summary lists them)");
}
