// A saved plan as values, through the library.
import { planForShow } from "../cli/index.js";
import {
  parsePlanFile,
  planCounts,
  planDigest,
  readPlanFile,
  ZoneformError,
  type Plan,
  type PlanSummary,
} from "../index.js";
import { digestLine, renderPlanMarkdown } from "../plan/index.js";
import { ActionFailed } from "./context.js";

export interface SavedPlan {
  plan: Plan;
  /** `sha256:…`, computed from the plan. */
  digest: string;
  summary: PlanSummary;
  /** Changes in all zones. */
  changes: number;
}

function values(plan: Plan): SavedPlan {
  const summary = planCounts(plan);
  return {
    plan,
    digest: planDigest(plan),
    summary,
    changes: summary.create + summary.update + summary.replace + summary.delete,
  };
}

async function checked(read: () => Promise<Plan>): Promise<SavedPlan> {
  try {
    return values(await read());
  } catch (err) {
    if (err instanceof ZoneformError) throw new ActionFailed(err.message);
    throw err;
  }
}

/** A plan file on disk (`plan --out`). */
export function readSavedPlan(path: string): Promise<SavedPlan> {
  return checked(() => readPlanFile(path));
}

export function parseSavedPlan(text: string, name: string): Promise<SavedPlan> {
  return checked(() => parsePlanFile(text, name));
}

export function planMarkdown(saved: SavedPlan, opts: { maxBytes: number; fullPlan?: string }): string {
  return (
    renderPlanMarkdown(planForShow(saved.plan), { maxBytes: opts.maxBytes, fullPlan: opts.fullPlan }) +
    digestLine(saved.digest, "markdown")
  );
}
