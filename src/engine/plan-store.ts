// The plan-file store, at the edge: the only module that reads and writes saved plans on disk.
import type { Plan } from "../model/index.js";
import { parsePlanText, planFileProblem, serialisePlan, type SecretHolder } from "../plan/index.js";
import { describeReadProblem, FileReadError, readRegularFile } from "../read-file.js";
import { writeFileSafely, type WriteOptions } from "../write-file.js";

/** Largest plan file read: a plan of thousands of zones is a few MiB. */
const MAX_PLAN_FILE_BYTES = 64 * 1024 * 1024;

export async function writePlanFile(
  path: string,
  plan: Plan,
  secrets: SecretHolder,
  opts: Pick<WriteOptions, "force" | "label"> = {},
): Promise<void> {
  await writeFileSafely(path, serialisePlan(plan, secrets), { ...opts, mode: 0o600 });
}

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
