// Saved plans: written by `plan --out`, read by `apply plan.json`. The file holds `${env:NAME}`
// references in place of secret values; reading it checks the format and puts the values back.
import { writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { ConfigError, RuntimeError } from "../errors.js";
import type { SecretRef } from "../model/desired.js";
import type { Plan } from "../model/plan.js";
import { interpolateEnv } from "../config/interpolate.js";
import { SENSITIVE } from "../redact.js";
import { describeReadProblem, FileReadError, readRegularFile } from "../read-file.js";

/** Largest plan file read: a plan of thousands of zones is a few MiB. */
export const MAX_PLAN_FILE_BYTES = 64 * 1024 * 1024;
import { planForFile } from "./secrets.js";

const require = createRequire(import.meta.url);
const planSchema = require("../../schemas/plan.schema.json") as object;

let validatePlanDoc: ((doc: unknown) => boolean) & { errors?: Array<{ instancePath: string; message?: string }> | null };

export function planValidator() {
  if (!validatePlanDoc) {
    const ajv = new Ajv2020({ allErrors: true, strict: false });
    (addFormats as unknown as (a: Ajv2020) => void)(ajv);
    validatePlanDoc = ajv.compile(planSchema) as typeof validatePlanDoc;
  }
  return validatePlanDoc;
}

export function serialisePlan(plan: Plan, secrets: SecretRef[]): string {
  return `${JSON.stringify(planForFile(plan, secrets), null, 2)}\n`;
}

export async function writePlanFile(path: string, plan: Plan, secrets: SecretRef[]): Promise<void> {
  try {
    await writeFile(path, serialisePlan(plan, secrets), { mode: 0o600 });
  } catch (err) {
    throw new RuntimeError(`cannot write the plan to ${path}: ${(err as Error).message}`);
  }
}

/** Reads a saved plan, validates it and replaces `${env:NAME}` with the values from `env`. */
export async function readPlanFile(path: string, env: NodeJS.ProcessEnv): Promise<{ plan: Plan; secrets: SecretRef[] }> {
  let text: string;
  try {
    text = (await readRegularFile(path, MAX_PLAN_FILE_BYTES)).toString("utf8");
  } catch (err) {
    if (!(err instanceof FileReadError)) throw err;
    throw problem(path, describeReadProblem(err.problem, MAX_PLAN_FILE_BYTES));
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw problem(path, `is not JSON: ${(err as Error).message}`);
  }
  const version = (doc as { format_version?: unknown })?.format_version;
  if (version !== 1) {
    throw problem(path, `has format_version ${JSON.stringify(version)}; this zoneform reads format 1. Make the plan again with this version.`);
  }
  const validate = planValidator();
  if (!validate(doc)) {
    const first = (validate.errors ?? []).slice(0, 5).map((e) => `${e.instancePath || "/"} ${e.message}`);
    throw problem(path, `is not a zoneform plan: ${first.join("; ")}`);
  }
  const interpolated = interpolateEnv(doc, env);
  const unset = interpolated.findings.filter((f) => f.severity !== "warning").map((f) => f.message);
  if (unset.length > 0) {
    throw problem(path, `cannot be applied as the environment stands: ${[...new Set(unset)].join("; ")}. Set them as when the plan was made.`);
  }
  const plan = interpolated.value as Plan;
  const secrets = interpolated.secrets;
  // A redacted value in a request body would be sent as the literal text "(sensitive)".
  const redacted = plan.zones.flatMap((z) =>
    z.changes.filter((c) => c.operations.some((op) => JSON.stringify(op.body ?? null).includes(SENSITIVE))).map((c) => `${c.resource} "${c.identity}"`),
  );
  if (redacted.length > 0) {
    throw problem(path, `holds a redacted secret in the calls of ${redacted.join(", ")}; it cannot be applied. Put such secrets in \${env:NAME} references in the file and make the plan again.`);
  }
  return { plan, secrets };
}

function problem(path: string, message: string): ConfigError {
  return new ConfigError([{ file: path, line: 1, column: 1, pointer: "", message }], `the plan file ${path} ${message}`);
}
