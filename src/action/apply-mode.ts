// apply (after the merge): the reviewed plan from the pull request's run, applied. Spec: docs/ci.md.
import { basename } from "node:path";
import { ActionFailed, codeBlock, configArgs, configPath, lastLines, zoneArgs, type Context } from "./context.js";
import { mdCode, mdText } from "../safe-markdown.js";
import { outputPath } from "./files.js";
import { COMMENT_MAX_BYTES } from "./plan-mode.js";
import { reviewedPlan, type Reviewed } from "./reviewed-plan.js";
import { planMarkdown, readSavedPlan } from "./saved-plan.js";

function refused(ctx: Context, message: string): never {
  ctx.runner.setOutput("applied", "false");
  ctx.runner.summary(`### zoneform apply refused\n\n${mdText(message)}\n\nNothing was sent to Cloudflare.\n`);
  throw new ActionFailed(message);
}

export async function apply(ctx: Context): Promise<void> {
  const { runner } = ctx;
  if (ctx.refused !== undefined) refused(ctx, ctx.refused);
  let reviewed: Reviewed;
  try {
    reviewed = await reviewedPlan(ctx);
  } catch (err) {
    // Whatever stopped the search (a refusal, GitHub's answer, a file that could not be written): nothing was sent to
    // Cloudflare.
    refused(ctx, err instanceof Error ? err.message : String(err));
  }
  runner.setOutput("digest", reviewed.digest);
  runner.setOutput("plan-path", reviewed.planPath);
  const what = `${reviewed.source}, ${mdCode(reviewed.digest)}`;
  const applied = await ctx.zoneform([
    "apply",
    reviewed.planPath,
    "-c",
    configPath(ctx),
    "--expect-digest",
    reviewed.digest,
    "--auto-approve",
    ...zoneArgs(ctx),
  ]);
  if (applied.code === 0) {
    runner.setOutput("applied", "true");
    const s = reviewed.saved.summary;
    const zone = runner.input("zone");
    const done = zone
      ? `its changes to the zone ${mdCode(zone)} only (the input zone)`
      : `${s.create} to create, ${s.update} to update, ${s.replace} to replace, ${s.delete} to delete, as reviewed`;
    runner.summary(`### zoneform apply\n\nApplied ${what}: ${done}.\n\n${codeBlock(lastLines(applied.stdout, 200))}`);
    return;
  }
  runner.setOutput("applied", "false");
  if (applied.code !== 1 && applied.code !== 4) {
    runner.summary(
      `### zoneform apply failed\n\nNot applied (exit ${applied.code}): ${what}.\n\n` +
        codeBlock(lastLines(applied.stderr)),
    );
    throw new ActionFailed(`zoneform apply failed (exit ${applied.code}): ${lastLines(applied.stderr, 5)}`);
  }
  const why =
    applied.code === 1
      ? `zoneform apply refused ${reviewed.sourceText} (exit 1): nothing was written.`
      : `zoneform apply stopped part-way (exit 4) applying ${reviewed.sourceText}.`;
  const sha = runner.env.GITHUB_SHA ?? "the checkout";
  const newPath = outputPath(ctx.workspace, runner.input("new-plan-path"), "zoneform-new-plan.json", "new-plan-path");
  const fresh = await ctx.zoneform(["plan", ...configArgs(ctx), "--out", newPath, "--force", "--detailed-exitcode"]);
  const left = fresh.code === 0 || fresh.code === 2 ? await readSavedPlan(newPath) : undefined;
  if (left && left.changes === 0) {
    runner.setOutput("already-applied", "true");
    const message =
      `Already applied: the zones already match the files at ${sha}, so nothing is left to apply and nothing ` +
      `was written. ${why}`;
    runner.notice(message);
    runner.summary(
      `### zoneform apply\n\nAlready applied: the zones already match the files at ${mdCode(sha)}, so nothing ` +
        `is left to apply and nothing was written; ${what} was not applied again. ${mdText(why)} Its ` +
        `message:\n\n${codeBlock(lastLines(applied.stderr))}`,
    );
    return;
  }
  let shown = "";
  if (left) {
    runner.setOutput("new-digest", left.digest);
    runner.setOutput("new-plan-path", newPath);
    shown =
      `A new plan of what is left, from the files at ${mdCode(sha)}, is below, saved as ` +
      `${mdCode(basename(newPath))}: review it, then apply it by its digest (docs/ci.md, "A refused ` +
      `apply").\n\n${planMarkdown(left, { maxBytes: COMMENT_MAX_BYTES })}`;
  } else {
    shown = `Planning again from the files failed too (exit ${fresh.code}):\n\n${codeBlock(lastLines(fresh.stderr))}`;
  }
  runner.summary(
    `### zoneform apply refused\n\n${mdText(why)} The plan: ${what}. Its message:\n\n` +
      `${codeBlock(lastLines(applied.stderr))}\n${shown}`,
  );
  throw new ActionFailed(`${why} ${lastLines(applied.stderr, 6)}`);
}
