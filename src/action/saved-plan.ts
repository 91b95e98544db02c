// A saved plan as values: the plan, its digest (computed here, never read from text), its counts; and
// its Markdown, by the same renderer as `zoneform show --format markdown`. What the Action decides on
// (has-changes, the digest it writes in its marker and checks a downloaded plan against, "already
// applied") comes from here, never from what the CLI printed.
import { planForShow } from "../cli/commands/show.js";
import { readPlanFile } from "../engine/plan-store.js";
import type { Plan, PlanSummary } from "../model/plan.js";
import { planDigest } from "../plan/digest.js";
import { parsePlanText } from "../plan/plan-file.js";
import { digestLine } from "../plan/render/digest.js";
import { renderPlanMarkdown } from "../plan/render/markdown.js";
import { summariseZones, totalChanges } from "../plan/summary.js";
import { ActionFailed } from "./context.js";

export interface SavedPlan {
  plan: Plan;
  /** `sha256:…`, computed from the plan. */
  digest: string;
  summary: PlanSummary;
  /** Changes in all zones. */
  changes: number;
}

function values(plan: Plan, label: string): SavedPlan {
  const digest = planDigest(plan);
  if (plan.digest !== undefined && plan.digest !== digest)
    throw new ActionFailed(
      `${label} was changed after it was made: it hashes to ${digest}, not to the digest it records`,
    );
  const summary = summariseZones(plan.zones);
  return { plan, digest, summary, changes: totalChanges(summary) };
}

/** A plan file on disk (`plan --out`), read and checked by the library. */
export async function readSavedPlan(path: string): Promise<SavedPlan> {
  return values(await readPlanFile(path), `the plan file ${path}`);
}

/** A plan file's text (a downloaded artifact, drift's JSON), checked as readPlanFile checks a file. */
export async function parseSavedPlan(text: string, label: string): Promise<SavedPlan> {
  return values(await parsePlanText(text, label), label);
}

/** The plan in Markdown with its digest line, as `zoneform show --format markdown` shows it. */
export function planMarkdown(saved: SavedPlan, opts: { maxBytes: number; fullPlan?: string }): string {
  return (
    renderPlanMarkdown(planForShow(saved.plan), { maxBytes: opts.maxBytes, fullPlan: opts.fullPlan }) +
    digestLine(saved.digest, "markdown")
  );
}
