// The plan-file store, at the edge: the only module that reads and writes saved plans on disk. The
// format and the checks of its form are plan/plan-file.ts (pure); what a saved plan may do is decided
// by engine/apply.ts, never here.
import type { Plan } from "../model/index.js";
import { parsePlanText, planFileProblem, serialisePlan, type SecretHolder } from "../plan/index.js";
import { describeReadProblem, FileReadError, readRegularFile } from "../read-file.js";
import { writeFileSafely, type WriteOptions } from "../write-file.js";

/** Largest plan file read: a plan of thousands of zones is a few MiB. */
const MAX_PLAN_FILE_BYTES = 64 * 1024 * 1024;

/**
 * Writes the plan through a new 0600 file put in place of the target, so an existing file's wider mode
 * is never kept and a reader never sees half a plan. An existing file is refused (exit 3) unless `force`.
 */
export async function writePlanFile(
  path: string,
  plan: Plan,
  secrets: SecretHolder,
  opts: Pick<WriteOptions, "force" | "label"> = {},
): Promise<void> {
  await writeFileSafely(path, serialisePlan(plan, secrets), { ...opts, mode: 0o600 });
}

/** Reads a saved plan (a regular file, at most MAX_PLAN_FILE_BYTES) and checks its form (plan-file.ts). */
export async function readPlanFile(path: string): Promise<Plan> {
  let text: string;
  try {
    text = (await readRegularFile(path, MAX_PLAN_FILE_BYTES)).toString("utf8");
  } catch (err) {
    if (!(err instanceof FileReadError)) throw err;
    throw planFileProblem(path, `the plan file ${path}`, describeReadProblem(err.problem, MAX_PLAN_FILE_BYTES));
  }
  return parsePlanText(text, path);
}
