// apply's input: the plan a person reviewed, bound link by link to the merged pull request.
import { ownMarkedComments } from "./comments.js";
import { ActionFailed, github, runLink, type Context } from "./context.js";
import { outputPath, writeOutput } from "./files.js";
import type { GitHub, PullRequest } from "./github.js";
import { isCommitSha, isDigest, type PlanMarker } from "./marker.js";
import { planFileName } from "./plan-mode.js";
import { parseSavedPlan, readSavedPlan, type SavedPlan } from "./saved-plan.js";

export interface Reviewed {
  digest: string;
  planPath: string;
  saved: SavedPlan;
  source: string;
  /** The same in plain text (messages). */
  sourceText: string;
}

const sameRepo = (a: unknown, b: string) => typeof a === "string" && a.toLowerCase() === b.toLowerCase();
/** A value from GitHub's answer, quoted for a message. */
const quoted = (v: unknown) => (v === undefined ? "(none)" : JSON.stringify(v));

/** The reviewed plan: the inputs digest and plan-path, else the merged pull request's. */
export async function reviewedPlan(ctx: Context): Promise<Reviewed> {
  const digest = ctx.runner.input("digest");
  const path = ctx.runner.input("plan-path");
  if (digest !== "") return byHand(ctx, digest, path);
  return fromPullRequest(ctx);
}

async function byHand(ctx: Context, digest: string, path: string): Promise<Reviewed> {
  if (!isDigest(digest))
    throw new ActionFailed(
      `the input digest ${quoted(digest)} is not sha256: and 64 hex characters (the digest of the plan you reviewed)`,
    );
  if (path === "")
    throw new ActionFailed(
      "with the input digest, give plan-path: the plan file of that digest (downloaded by a step)",
    );
  const planPath = outputPath(ctx.workspace, path, path, "plan-path");
  const saved = await readSavedPlan(planPath);
  if (saved.digest !== digest)
    throw new ActionFailed(
      `the plan file ${planPath} hashes to ${saved.digest}, not to the reviewed digest ${digest}: nothing is applied`,
    );
  const named = "the plan a person reviewed, named by the inputs";
  return { digest, planPath, saved, source: `${named} \`digest\` and \`plan-path\``, sourceText: named };
}

/** The one pull request merged as `sha` into `branch` of this repository. */
async function mergedPullRequest(gh: GitHub, sha: string, branch: string): Promise<PullRequest> {
  const merged = (await gh.pullsOfCommit(sha)).filter(
    (p) =>
      p.merged_at !== null &&
      p.merged_at !== undefined &&
      p.merge_commit_sha === sha &&
      p.base?.ref === branch &&
      sameRepo(p.base?.repo?.full_name, gh.repo),
  );
  if (merged.length === 0)
    throw new ActionFailed(
      `${sha} is not the merge commit of a pull request into ${branch}: changes go through one, so that their ` +
        `plan is reviewed (or run the Action with the inputs digest and plan-path). Nothing is applied.`,
    );
  if (merged.length > 1)
    throw new ActionFailed(
      `${sha} is the merge commit of ${merged.map((p) => `#${p.number}`).join(", ")}: which one's plan to ` +
        `apply is not clear, so none is. Nothing is applied.`,
    );
  const pr = merged[0]!;
  if (!isCommitSha(pr.head?.sha))
    throw new ActionFailed(`#${pr.number}: GitHub gave no head commit (${quoted(pr.head?.sha)}). Nothing is applied.`);
  return pr;
}

async function reviewedMarker(ctx: Context, gh: GitHub, pr: number, head: string): Promise<PlanMarker> {
  const who = await ctx.identity();
  const own = ownMarkedComments(await gh.listComments(pr), who);
  if (own.length === 0)
    throw new ActionFailed(
      `#${pr} has no plan comment by ${who.login} (the Action's, its first line <!-- zoneform:plan v2 … -->): ` +
        `nothing was reviewed to apply; comments by other accounts are never read. Nothing is applied.`,
    );
  const forHead = own.filter((m) => m.marker.head === head);
  if (forHead.length === 0)
    throw new ActionFailed(
      `the plan comment on #${pr} is for ${[...new Set(own.map((m) => m.marker.head))].join(", ")}, not for ` +
        `${head}, the head #${pr} was merged at: the last commit's plan did not finish. Nothing is applied.`,
    );
  const distinct = new Map(forHead.map((m) => [JSON.stringify(m.marker), m]));
  if (distinct.size > 1)
    throw new ActionFailed(
      `#${pr} has ${distinct.size} different plan comments by ${who.login} for ${head} ` +
        `(${forHead.map((m) => m.comment.id).join(", ")}): which was reviewed is not clear. Nothing is applied.`,
    );
  const marker = forHead[0]!.marker;
  if (marker.kind === "failed")
    throw new ActionFailed(
      `the plan of #${pr} at ${head} failed (run ${marker.run}): nothing was reviewed to apply. Nothing is applied.`,
    );
  return marker;
}

async function checkRun(gh: GitHub, runId: string, head: string, pr: number): Promise<void> {
  const expected = `run ${runId} of ${gh.repo}: a pull_request run of ${head}, in ${gh.repo} itself`;
  let run;
  try {
    run = await gh.workflowRun(runId);
  } catch (err) {
    throw new ActionFailed(
      `the plan comment on #${pr} names run ${runId}, which could not be read (${(err as Error).message}); ` +
        `expected ${expected}. Nothing is applied.`,
    );
  }
  const problems: string[] = [];
  if (run.id !== Number(runId)) problems.push(`GitHub answered with run ${quoted(run.id)}`);
  if (run.head_sha !== head) problems.push(`its head commit is ${quoted(run.head_sha)}`);
  if (run.event !== "pull_request") problems.push(`its event is ${quoted(run.event)}`);
  if (!sameRepo(run.repository?.full_name, gh.repo))
    problems.push(`it belongs to ${quoted(run.repository?.full_name)}`);
  if (!sameRepo(run.head_repository?.full_name, gh.repo))
    problems.push(`its head repository is ${quoted(run.head_repository?.full_name)} (a fork's run)`);
  if (problems.length > 0)
    throw new ActionFailed(
      `the plan comment on #${pr} names run ${runId}, which is not the run that planned it: ` +
        `${problems.join("; ")}; expected ${expected}. Nothing is applied.`,
    );
}

async function fromPullRequest(ctx: Context): Promise<Reviewed> {
  const { runner } = ctx;
  const sha = runner.env.GITHUB_SHA;
  if (!isCommitSha(sha)) throw new ActionFailed(`GITHUB_SHA ${quoted(sha)}: no commit to find the reviewed plan of`);
  const ref = runner.env.GITHUB_REF ?? "";
  if (!ref.startsWith("refs/heads/"))
    throw new ActionFailed(
      `GITHUB_REF ${quoted(ref)} is not a branch: apply after a merge runs on a push to one ` +
        `(or give the inputs digest and plan-path)`,
    );
  const gh = github(ctx);
  const pr = await mergedPullRequest(gh, sha, ref.slice("refs/heads/".length));
  const head = pr.head.sha;
  const marker = await reviewedMarker(ctx, gh, pr.number, head);
  if (marker.kind !== "plan") throw new ActionFailed("unreachable: a failed marker is refused above");
  await checkRun(gh, marker.run, head, pr.number);

  const name = planFileName(head);
  const from = `run ${marker.run}`;
  const named = (await gh.runArtifacts(marker.run, name)).filter((a) => a.name === name);
  const live = named.filter((a) => a.expired !== true);
  if (live.length !== 1)
    throw new ActionFailed(
      live.length === 0
        ? `${from} has no artifact ${name}${named.length > 0 ? " that has not expired" : ""}: the plan of ` +
            `#${pr.number}'s last commit was not uploaded by the run that planned it, or has expired. ` +
            `Nothing is applied.`
        : `${from} has ${live.length} artifacts named ${name}: which is the plan is not clear. Nothing is applied.`,
    );
  const artifact = live[0]!;
  const wr = artifact.workflow_run;
  if (
    wr &&
    ((wr.id !== undefined && wr.id !== Number(marker.run)) || (wr.head_sha !== undefined && wr.head_sha !== head))
  )
    throw new ActionFailed(
      `the artifact ${name} (${artifact.id}) listed for ${from} says it is of run ${quoted(wr.id)} at ` +
        `${quoted(wr.head_sha)}; expected run ${marker.run} at ${head}. Nothing is applied.`,
    );
  const text = await gh.downloadArtifact(artifact.id);
  if (text.startsWith("PK\u0003\u0004"))
    throw new ActionFailed(
      `the artifact ${name} of ${from} is a zip: upload the plan with actions/upload-artifact and ` +
        "`archive: false` (docs/ci.md). Nothing is applied.",
    );
  const label = `${name} (the artifact of ${from})`;
  const saved = await parseSavedPlan(text, label);
  if (saved.digest !== marker.digest)
    throw new ActionFailed(
      `the plan file ${label} hashes to ${saved.digest}, not to ${marker.digest}, the digest the plan comment on ` +
        `#${pr.number} shows: it is not the reviewed plan. Nothing is applied.`,
    );
  const planPath = outputPath(ctx.workspace, runner.input("plan-path"), name, "plan-path");
  await writeOutput(ctx.workspace, planPath, text, "plan-path");
  runner.log(`Downloaded the artifact ${name} (${artifact.id}) of run ${marker.run} to ${planPath}.`);
  return {
    digest: marker.digest,
    planPath,
    saved,
    source: `the plan reviewed on #${pr.number} (head \`${head}\`, ${runLink(runner.env, marker.run)})`,
    sourceText: `the plan reviewed on #${pr.number} (head ${head}, run ${marker.run})`,
  };
}
