// plan (on a pull request): validate, `plan --out`, the outputs, the job summary and the one comment.
// Spec: docs/ci.md.
import { basename } from "node:path";
import { planCommentToUpdate } from "./comments.js";
import {
  ActionFailed,
  codeBlock,
  configArgs,
  configPath,
  github,
  lastLines,
  runLink,
  type Context,
} from "./context.js";
import { mdCode, mdText } from "../safe-markdown.js";
import { readBaseConfig } from "./base-config.js";
import { outputPath } from "./files.js";
import { isCommitSha, isRunId, markerLine, type PlanMarker } from "./marker.js";
import { planMarkdown, readSavedPlan } from "./saved-plan.js";

export const COMMENT_MAX_BYTES = 62_000;

export function planFileName(sha: string): string {
  return `zoneform-plan-${sha}.json`;
}

interface PullRequestEvent {
  number: number;
  head: string;
  /** The base commit, as the event names it (checked where it is read). */
  base: unknown;
}

function pullRequestOf(ctx: Context): PullRequestEvent | undefined {
  const pr = ctx.runner.event.pull_request as
    | { number?: unknown; head?: { sha?: unknown }; base?: { sha?: unknown } }
    | undefined;
  if (pr === undefined || pr === null) return undefined;
  const head = pr.head?.sha;
  if (!Number.isSafeInteger(pr.number) || (pr.number as number) <= 0 || !isCommitSha(head))
    throw new ActionFailed("the event's pull_request has no number or no head commit (40 hex characters)");
  return { number: pr.number as number, head, base: pr.base?.sha };
}

/** Creates the plan comment, or updates the Action's own (comments.ts): one per pull request. */
async function upsertPlanComment(ctx: Context, issue: number, body: string): Promise<void> {
  const gh = github(ctx);
  const mine = planCommentToUpdate(await gh.listComments(issue), await ctx.identity());
  if (mine) {
    await gh.updateComment(mine.id, body);
    ctx.runner.log(`Updated the plan comment ${mine.id} on #${issue}.`);
  } else {
    const made = await gh.createComment(issue, body);
    ctx.runner.log(`Created the plan comment ${Number(made?.id) || ""} on #${issue}.`);
  }
}

export async function plan(ctx: Context): Promise<void> {
  const { runner } = ctx;
  const pr = pullRequestOf(ctx);
  const runId = runner.env.GITHUB_RUN_ID ?? "";
  if (pr && !isRunId(runId)) throw new ActionFailed(`GITHUB_RUN_ID "${runId}" is not a run id`);
  const head = pr?.head ?? (isCommitSha(runner.env.GITHUB_SHA) ? runner.env.GITHUB_SHA : "local");
  const planPath = outputPath(ctx.workspace, runner.input("plan-path"), planFileName(head), "plan-path");
  const where = pr ? `#${pr.number} at ${head}` : head;
  const made = pr ? `Pull request #${pr.number}, head \`${head}\`, ${runLink(runner.env, runId)}` : "";

  const fail = async (what: string, detail: string): Promise<never> => {
    const text =
      `### zoneform plan failed\n\n${what} for ${where}: there is no reviewed plan of this commit, so ` +
      `nothing is applied from it.\n\n${codeBlock(lastLines(detail))}${made ? `\n${made}.\n` : ""}`;
    runner.summary(text);
    let commented = "";
    if (pr) {
      const marker: PlanMarker = { kind: "failed", head: pr.head, run: runId };
      try {
        await upsertPlanComment(ctx, pr.number, `${markerLine(marker)}\n${text}`);
      } catch (err) {
        commented = ` (and the pull request's comment could not say so: ${(err as Error).message})`;
      }
    }
    throw new ActionFailed(`${what}${commented}: ${lastLines(detail, 3)}`);
  };

  if (ctx.refused !== undefined) await fail("zoneform plan was not run", ctx.refused);
  const validate = await ctx.zoneform(["validate", ...configArgs(ctx)]);
  if (validate.code !== 0)
    await fail(`zoneform validate failed (exit ${validate.code})`, validate.stderr || validate.stdout);
  // What audit checks is shown as its diff with the base branch's configuration, when git can read it.
  const base = pr ? await readBaseConfig(ctx.workspace, configPath(ctx), pr.base) : undefined;
  const baseArgs = base && "path" in base ? ["--base", base.path] : [];
  const planned = await ctx.zoneform([
    "plan",
    ...configArgs(ctx),
    ...baseArgs,
    "--out",
    planPath,
    "--force",
    "--detailed-exitcode",
  ]);
  if (planned.code !== 0 && planned.code !== 2)
    await fail(`zoneform plan failed (exit ${planned.code})`, planned.stderr || planned.stdout);

  const saved = await readSavedPlan(planPath);
  runner.setOutput("plan-path", planPath);
  runner.setOutput("has-changes", saved.changes > 0 ? "true" : "false");
  runner.setOutput("digest", saved.digest);
  const file = basename(planPath);
  const shown = planMarkdown(saved, {
    maxBytes: COMMENT_MAX_BYTES,
    fullPlan: `the artifact ${mdCode(file)}: ${mdCode(`zoneform show ${file}`)}`,
  });
  if (!pr) {
    runner.summary(shown);
    return;
  }
  const unread =
    base && "why" in base
      ? `\n> The base branch's configuration could not be read (${mdText(base.why)}): what audit checks is ` +
        "listed, not compared.\n"
      : "";
  const footer =
    `${unread}\n${made}: the plan is saved as the artifact ${mdCode(file)} of that run; read it with ` +
    `${mdCode(`zoneform show ${file}`)}. After the merge, the apply applies exactly this plan (this digest, ` +
    `from that artifact) or nothing.\n`;
  runner.summary(`${shown}${footer}`);
  const marker: PlanMarker = { kind: "plan", digest: saved.digest, head: pr.head, run: runId };
  await upsertPlanComment(ctx, pr.number, `${markerLine(marker)}\n${shown}${footer}`);
}
