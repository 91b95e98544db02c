// Saved plans: written by `plan --out` (mode 0600; an existing file only with --force), read by `apply plan.json`.
// The file holds `${env:NAME}` references in place of secret values and the desired state as written.
import { createRequire } from "node:module";
import { ConfigError } from "../errors.js";
import type { SecretSource } from "../model/desired.js";
import type { Plan } from "../model/plan.js";
import { describeReadProblem, FileReadError, readRegularFile } from "../read-file.js";
import { writeFileSafely, type WriteOptions } from "../write-file.js";

/** Largest plan file read: a plan of thousands of zones is a few MiB. */
export const MAX_PLAN_FILE_BYTES = 64 * 1024 * 1024;
import { planForFile } from "./secrets.js";

const require = createRequire(import.meta.url);

let validatePlanDoc: ((doc: unknown) => boolean) & { errors?: Array<{ instancePath: string; message?: string }> | null };

/** The plan schema's validator; it and ajv are loaded only here, when a plan file is read (never by `plan`). */
export async function planValidator() {
  if (!validatePlanDoc) {
    // CommonJS packages: Node's import() gives their exports as `default` too, the bundled CLI only there.
    const ajvModule = (await import("ajv/dist/2020.js")) as typeof import("ajv/dist/2020.js") & { default?: typeof import("ajv/dist/2020.js") };
    const { Ajv2020 } = ajvModule.default ?? ajvModule;
    const addFormats = (await import("ajv-formats")).default as unknown as (a: InstanceType<typeof Ajv2020>) => void;
    const ajv = new Ajv2020({ allErrors: true, strict: false });
    addFormats(ajv);
    validatePlanDoc = ajv.compile(require("../../schemas/plan.schema.json") as object) as typeof validatePlanDoc;
  }
  return validatePlanDoc;
}

export function serialisePlan(plan: Plan, secrets: SecretSource): string {
  return `${JSON.stringify(planForFile(plan, secrets), null, 2)}\n`;
}

/**
 * Writes the plan through a new 0600 file put in place of the target, so an existing file's wider mode
 * is never kept and a reader never sees half a plan. An existing file is refused (exit 3) unless `force`.
 */
export async function writePlanFile(path: string, plan: Plan, secrets: SecretSource, opts: Pick<WriteOptions, "force" | "label"> = {}): Promise<void> {
  await writeFileSafely(path, serialisePlan(plan, secrets), { ...opts, mode: 0o600 });
}

/**
 * Reads a saved plan and checks its form: format 2, the plan schema, and every operation addressing
 * the zone it belongs to. Nothing in it is interpolated or trusted: apply re-plans its desired state
 * and uses the file only to compare (see engine/saved-plan.ts).
 */
export async function readPlanFile(path: string): Promise<Plan> {
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
  if (version !== 2) {
    throw problem(path, `has format_version ${JSON.stringify(version)}; this zoneform reads format 2. Make the plan again with this version.`);
  }
  const validate = await planValidator();
  if (!validate(doc)) {
    const first = (validate.errors ?? []).slice(0, 5).map((e) => `${e.instancePath || "/"} ${e.message}`);
    throw problem(path, `is not a zoneform plan: ${first.join("; ")}`);
  }
  const plan = doc as Plan;
  const astray = plan.zones.flatMap((z) =>
    z.changes.flatMap((c) =>
      c.zone_id !== z.zone_id
        ? [`${c.resource} "${c.identity}" says zone ${c.zone_id}`]
        : c.operations.filter((op) => !op.path.startsWith(`zones/${z.zone_id}/`)).map((op) => `${op.method} ${op.path}`),
    ).map((what) => `zone ${z.zone_id}: ${what}`),
  );
  if (astray.length > 0) {
    throw problem(path, `has operations that do not address the zone they belong to (${astray.slice(0, 5).join("; ")}); it cannot be applied`);
  }
  return plan;
}

function problem(path: string, message: string): ConfigError {
  return new ConfigError([{ file: path, line: 1, column: 1, pointer: "", message }], `the plan file ${path} ${message}`);
}
