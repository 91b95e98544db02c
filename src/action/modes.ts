// What the Action does in each mode (docs/ci.md): plan on a pull request, apply the reviewed plan after
// the merge, drift and audit on a schedule. Each mode runs the zoneform CLI of this same commit and
// turns its exit codes into the step's result, outputs, job summary and pull-request comment.
import { existsSync, writeFileSync } from "node:fs";
import { basename, resolve } from "node:path";
import { loadConfig } from "../config/index.js";
import { COMMENT_MARKER } from "../plan/render/markdown.js";
import type { Zoneform } from "./cli.js";
import type { GitHub, Comment } from "./github.js";
import type { Runner } from "./runner.js";

export const MODES = ["plan", "apply", "drift", "audit"] as const;
export type Mode = (typeof MODES)[number];

/** Room left under GitHub's 65 536-character comment for the footer. */
const COMMENT_MAX_BYTES = 64_000;
const DIGEST_LINE = /Plan digest: `(sha256:[0-9a-f]{64})`/;

export class ActionFailed extends Error {}

export interface Context {
  runner: Runner;
  zoneform: Zoneform;
  /** The workspace the paths are relative to (the job's checkout). */
  workspace: string;
  /** The environment the CLI sees. */
  cliEnv: Runner["env"];
  github?: GitHub;
}

/** The modes to run: the `mode` input, else the event's. */
export function modesFor(mode: string, eventName: string): Mode[] {
  if (mode !== "") {
    if (!(MODES as readonly string[]).includes(mode))
      throw new ActionFailed(`mode "${mode}": expected one of ${MODES.join(", ")}`);
    return [mode as Mode];
  }
  if (eventName === "pull_request") return ["plan"];
  if (eventName === "push") return ["apply"];
  if (eventName === "schedule") return ["drift", "audit"];
  throw new ActionFailed(`no mode for the event "${eventName}": set the input mode (${MODES.join(", ")})`);
}

function zoneArgs(ctx: Context): string[] {
  const zone = ctx.runner.input("zone");
  return zone ? ["--zone", zone] : [];
}

function configArgs(ctx: Context): string[] {
  const config = ctx.runner.input("config");
  return [...(config ? ["-c", resolve(ctx.workspace, config)] : []), ...zoneArgs(ctx)];
}

function github(ctx: Context): GitHub {
  if (!ctx.github)
    throw new ActionFailed(
      "the input github-token is empty: the Action needs it to comment and to find the reviewed plan",
    );
  return ctx.github;
}

/** The fence for a block of text: longer than any run of backticks in it. */
function codeBlock(text: string): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = "`".repeat(longest + 1);
  return `${fence}\n${text.trimEnd()}\n${fence}\n`;
}

function lastLines(text: string, n = 40): string {
  const lines = text.trimEnd().split("\n");
  return (lines.length > n ? ["…", ...lines.slice(-n)] : lines).join("\n");
}

function runUrl(env: Runner["env"]): string | undefined {
  const { GITHUB_SERVER_URL: server = "https://github.com", GITHUB_REPOSITORY: repo, GITHUB_RUN_ID: run } = env;
  return repo && run ? `${server}/${repo}/actions/runs/${run}` : undefined;
}

/** The comment the Action keeps on a pull request: the first by a bot that starts with the marker. */
export function findPlanComment(comments: Comment[]): Comment | undefined {
  return comments.find(
    (c) => c.user?.type === "Bot" && typeof c.body === "string" && c.body.startsWith(COMMENT_MARKER),
  );
}

async function upsertComment(ctx: Context, issue: number, body: string): Promise<void> {
  const gh = github(ctx);
  const mine = findPlanComment(await gh.listComments(issue));
  if (mine) {
    await gh.updateComment(mine.id, body);
    ctx.runner.log(`Updated the plan comment ${mine.id} on #${issue}.`);
  } else {
    const made = await gh.createComment(issue, body);
    ctx.runner.log(`Created the plan comment ${made?.id ?? ""} on #${issue}.`);
  }
}

/** The saved plan's file name for a commit: also the artifact's name (uploaded with `archive: false`). */
export function planFileName(sha: string): string {
  return `zoneform-plan-${sha}.json`;
}

// --- plan ---------------------------------------------------------------------------------------------

export async function plan(ctx: Context): Promise<void> {
  const { runner } = ctx;
  const pr = runner.event.pull_request as { number?: number; head?: { sha?: string } } | undefined;
  const sha = pr?.head?.sha ?? runner.env.GITHUB_SHA ?? "local";
  const planPath = resolve(ctx.workspace, runner.input("plan-path") || planFileName(sha));
  runner.setOutput("plan-path", planPath);
  const fail = async (what: string, detail: string): Promise<never> => {
    const text =
      `${COMMENT_MARKER}\n### zoneform plan failed\n\n${what} at ${sha}; no plan was saved, so ` +
      `nothing can be applied from this commit.\n\n${codeBlock(lastLines(detail))}`;
    runner.summary(text);
    if (pr?.number !== undefined) await upsertComment(ctx, pr.number, text);
    throw new ActionFailed(`${what}: ${lastLines(detail, 3)}`);
  };

  const validate = await ctx.zoneform(["validate", ...configArgs(ctx)]);
  if (validate.code !== 0)
    await fail(`zoneform validate failed (exit ${validate.code})`, validate.stderr || validate.stdout);
  const made = await ctx.zoneform(["plan", ...configArgs(ctx), "--out", planPath, "--force", "--detailed-exitcode"]);
  if (made.code !== 0 && made.code !== 2)
    await fail(`zoneform plan failed (exit ${made.code})`, made.stderr || made.stdout);
  const shown = await ctx.zoneform([
    "show",
    planPath,
    "--format",
    "markdown",
    "--max-bytes",
    String(COMMENT_MAX_BYTES),
  ]);
  if (shown.code !== 0) await fail(`zoneform show failed (exit ${shown.code})`, shown.stderr);
  const digest = DIGEST_LINE.exec(shown.stdout)?.[1];
  if (!digest) throw new ActionFailed("zoneform show printed no plan digest");

  runner.setOutput("has-changes", made.code === 2 ? "true" : "false");
  runner.setOutput("digest", digest);
  runner.summary(shown.stdout);
  if (pr?.number !== undefined) {
    const run = runUrl(runner.env);
    const footer =
      `\nFull plan: artifact ` +
      `\`${basename(planPath)}\`${run ? ` of [run ${runner.env.GITHUB_RUN_ID}](${run})` : ""}; ` +
      `read it with \`zoneform show ${basename(planPath)}\`.\n`;
    await upsertComment(ctx, pr.number, `${shown.stdout.trimEnd()}\n${footer}`);
  }
}

// --- apply --------------------------------------------------------------------------------------------

interface Reviewed {
  digest: string;
  planPath: string;
  /** Where the plan comes from, for messages. */
  source: string;
}

/** The reviewed plan and digest: the inputs, else the merged pull request's comment and artifact. */
async function reviewedPlan(ctx: Context): Promise<Reviewed> {
  const { runner } = ctx;
  const digestInput = runner.input("digest");
  const pathInput = runner.input("plan-path");
  if (digestInput !== "") {
    if (!/^sha256:[0-9a-f]{64}$/.test(digestInput))
      throw new ActionFailed(`the input digest "${digestInput}" is not sha256: and 64 hex characters`);
    if (pathInput === "")
      throw new ActionFailed(
        "with the input digest, give plan-path: the plan file of that digest (downloaded by an earlier step)",
      );
    return { digest: digestInput, planPath: resolve(ctx.workspace, pathInput), source: "the inputs" };
  }
  const sha = runner.env.GITHUB_SHA;
  if (!sha) throw new ActionFailed("GITHUB_SHA is not set: no commit to find the reviewed plan of");
  const gh = github(ctx);
  const branch = (runner.env.GITHUB_REF ?? "").replace(/^refs\/heads\//, "");
  const pr = (await gh.pullsOfCommit(sha)).find((p) => p.merged_at && p.base?.ref === branch);
  if (!pr)
    throw new ActionFailed(
      `${sha} is not the merge of a pull request into ${branch || "this branch"}: changes go through one, ` +
        `so that their plan is reviewed (or run with the inputs digest and plan-path)`,
    );
  const comment = findPlanComment(await gh.listComments(pr.number));
  const digest = comment ? DIGEST_LINE.exec(comment.body)?.[1] : undefined;
  if (!digest) throw new ActionFailed(`#${pr.number} has no plan comment with a digest: nothing was reviewed`);
  const planPath = resolve(ctx.workspace, pathInput || planFileName(pr.head.sha));
  if (!existsSync(planPath)) {
    const name = planFileName(pr.head.sha);
    const artifact = (await gh.artifactsNamed(name))
      .filter((a) => !a.expired)
      .sort((a, b) => Date.parse(b.created_at) - Date.parse(a.created_at))[0];
    if (!artifact)
      throw new ActionFailed(
        `no artifact ${name}: the plan of #${pr.number}'s last commit did not succeed, was not uploaded, or ` +
          `has expired`,
      );
    const text = await gh.downloadArtifact(artifact.id);
    if (text.startsWith("PK\u0003\u0004"))
      throw new ActionFailed(
        `the artifact ${name} is a zip: upload the plan with actions/upload-artifact and \`archive: false\` ` +
          `(docs/ci.md)`,
      );
    writeFileSync(planPath, text, { mode: 0o600 });
    runner.log(`Downloaded the artifact ${name} (${artifact.id}) to ${planPath}.`);
  }
  return { digest, planPath, source: `#${pr.number}` };
}

export async function apply(ctx: Context): Promise<void> {
  const { runner } = ctx;
  const reviewed = await reviewedPlan(ctx);
  runner.setOutput("digest", reviewed.digest);
  runner.setOutput("plan-path", reviewed.planPath);
  const applied = await ctx.zoneform([
    "apply",
    reviewed.planPath,
    "--expect-digest",
    reviewed.digest,
    "--auto-approve",
    ...zoneArgs(ctx),
  ]);
  if (applied.code === 0) {
    runner.setOutput("applied", "true");
    runner.summary(
      `### zoneform apply\n\nApplied the plan reviewed on ${reviewed.source}, ` +
        `\`${reviewed.digest}\`.\n\n${codeBlock(lastLines(applied.stdout, 200))}`,
    );
    return;
  }
  runner.setOutput("applied", "false");
  const stale = applied.code === 1 && /\bstale\b/.test(applied.stderr);
  if (!stale && applied.code !== 4) {
    runner.summary(
      `### zoneform apply failed\n\nThe plan reviewed on ${reviewed.source} (\`${reviewed.digest}\`) was ` +
        `not applied (exit ${applied.code}).\n\n${codeBlock(lastLines(applied.stderr))}`,
    );
    throw new ActionFailed(`zoneform apply failed (exit ${applied.code}): ${lastLines(applied.stderr, 5)}`);
  }
  // Stale (nothing written) or stopped part-way: what is left to do, planned from the files now.
  const sha = runner.env.GITHUB_SHA ?? "local";
  const newPath = resolve(ctx.workspace, runner.input("new-plan-path") || "zoneform-new-plan.json");
  const fresh = await ctx.zoneform(["plan", ...configArgs(ctx), "--out", newPath, "--force", "--detailed-exitcode"]);
  if (fresh.code === 0) {
    runner.setOutput("already-applied", "true");
    const message =
      `Already applied: the zones already match the files at ${sha}, so the plan reviewed on ` +
      `${reviewed.source} has nothing left to do (an earlier run applied it). Nothing ` +
      `was written.`;
    runner.notice(message);
    runner.summary(`### zoneform apply\n\n${message}\n`);
    return;
  }
  const why = stale
    ? "The reviewed plan is stale: the zones changed since it was reviewed, and nothing was written."
    : "The apply stopped part-way (exit 4).";
  let shown = "";
  if (fresh.code === 2) {
    const md = await ctx.zoneform(["show", newPath, "--format", "markdown", "--max-bytes", String(COMMENT_MAX_BYTES)]);
    shown = md.code === 0 ? md.stdout : "";
    const digest = DIGEST_LINE.exec(shown)?.[1];
    if (digest) runner.setOutput("new-digest", digest);
    runner.setOutput("new-plan-path", newPath);
  }
  runner.summary(
    `### zoneform apply refused\n\n${why}\n\n${codeBlock(lastLines(applied.stderr))}\n` +
      (shown
        ? `A new plan of what is left is below, saved as \`${basename(newPath)}\`: review it, then apply it ` +
          `by its digest (docs/ci.md, "After a refused apply").\n\n${shown}`
        : `Planning again failed too (exit ${fresh.code}):\n\n${codeBlock(lastLines(fresh.stderr))}`),
  );
  throw new ActionFailed(`${why} ${lastLines(applied.stderr, 6)}`);
}

// --- drift and audit ----------------------------------------------------------------------------------

export async function drift(ctx: Context): Promise<void> {
  const { runner } = ctx;
  const path = resolve(ctx.workspace, runner.input("drift-path") || "zoneform-drift.json");
  const run = await ctx.zoneform(["drift", ...configArgs(ctx), "--format", "json"], { quiet: true });
  if (run.code !== 0 && run.code !== 2) {
    runner.summary(`### zoneform drift failed (exit ${run.code})\n\n${codeBlock(lastLines(run.stderr))}`);
    throw new ActionFailed(`zoneform drift failed (exit ${run.code})`);
  }
  writeFileSync(path, run.stdout, { mode: 0o600 });
  runner.setOutput("drift-path", path);
  runner.setOutput("has-drift", run.code === 2 ? "true" : "false");
  const shown = await ctx.zoneform(["show", path, "--format", "markdown", "--max-bytes", String(COMMENT_MAX_BYTES)]);
  runner.summary(
    run.code === 2
      ? `### zoneform drift\n\nThe zones no longer match the files: this plan would undo the changes made ` +
          `by hand.\n\n${shown.stdout}`
      : "### zoneform drift\n\nNo drift: the zones match the files.\n",
  );
  if (run.code === 2) throw new ActionFailed("drift: the zones no longer match the files (the job summary shows how)");
}

/** The zones to audit: the input zone, else every zone the configuration declares. */
async function auditArgs(ctx: Context): Promise<string[]> {
  const config = ctx.runner.input("config");
  const zone = ctx.runner.input("zone");
  const configArg = config ? ["-c", resolve(ctx.workspace, config)] : [];
  if (zone) return [...configArg, "--zone", zone];
  let ids: string[];
  try {
    const { desired } = await loadConfig(config ? resolve(ctx.workspace, config) : undefined, {
      env: ctx.cliEnv,
      cwd: ctx.workspace,
    });
    ids = desired.zones.map((z) => z.zone_id);
  } catch (err) {
    throw new ActionFailed(`audit: the configuration could not be read to list its zones: ${(err as Error).message}`);
  }
  if (ids.length === 0) throw new ActionFailed("audit: the configuration declares no zone (or set the input zone)");
  return [...configArg, ...ids.flatMap((id) => ["--zone", id])];
}

export async function audit(ctx: Context): Promise<void> {
  const { runner } = ctx;
  const args = await auditArgs(ctx);
  const md = await ctx.zoneform(["audit", ...args, "--format", "markdown"]);
  if (md.code !== 0 && md.code !== 2) {
    runner.summary(`### zoneform audit failed (exit ${md.code})\n\n${codeBlock(lastLines(md.stderr))}`);
    throw new ActionFailed(`zoneform audit failed (exit ${md.code})`);
  }
  runner.summary(md.stdout);
  runner.setOutput("has-findings", md.code === 2 ? "true" : "false");
  const sarifPath = resolve(ctx.workspace, runner.input("sarif-path") || "zoneform-audit.sarif");
  const sarif = await ctx.zoneform(["audit", ...args, "--format", "sarif"], { quiet: true });
  if (sarif.code === 3 && /--format sarif/.test(sarif.stderr)) {
    runner.warning("this zoneform has no SARIF output (audit --format sarif): no file for code scanning");
  } else if (sarif.code === 0 || sarif.code === 2) {
    writeFileSync(sarifPath, sarif.stdout);
    runner.setOutput("sarif-path", sarifPath);
  } else {
    throw new ActionFailed(`zoneform audit --format sarif failed (exit ${sarif.code})`);
  }
  if (md.code === 2) throw new ActionFailed("audit: findings (the job summary lists them)");
}
