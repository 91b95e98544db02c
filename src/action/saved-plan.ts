// A saved plan as values, through the library (src/index.ts): the plan read and checked as
// `zoneform show` checks it (form, recorded digest, what it shows against its operations), its digest
// and its counts computed by zoneform, never read from text; and its Markdown, by the same renderer
// as `zoneform show --format markdown`. What the Action decides on (has-changes, the digest it writes
// in its marker and checks a downloaded plan against, "already applied") comes from here.
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

/** The library's refusal of a plan file (not a plan, changed after it was made) as the Action's. */
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

/** A plan file's text (a downloaded artifact, drift's JSON); `name` is how messages name the file. */
export function parseSavedPlan(text: string, name: string): Promise<SavedPlan> {
  return checked(() => parsePlanFile(text, name));
}

/** The plan in Markdown with its digest line, as `zoneform show --format markdown` shows it. */
export function planMarkdown(saved: SavedPlan, opts: { maxBytes: number; fullPlan?: string }): string {
  return (
    renderPlanMarkdown(planForShow(saved.plan), { maxBytes: opts.maxBytes, fullPlan: opts.fullPlan }) +
    digestLine(saved.digest, "markdown")
  );
}
