// The plan file's format.
import { createRequire } from "node:module";
import { ConfigError } from "../errors.js";
import { jsonProblem, MAX_PLAN_JSON_DEPTH, parseJsonWithin } from "../json-depth.js";
import { PLAN_FORMAT_VERSION, type Plan } from "../model/index.js";
import { planFileText, planForFile, type SecretHolder } from "./secrets.js";
import { fromDocument, isInternalForm, toDocument, type PlanDocument } from "./document.js";
import { unitPathPrefix } from "./units.js";

const require = createRequire(import.meta.url);

type PlanValidator = ((doc: unknown) => boolean) & {
  errors?: Array<{ instancePath: string; message?: string }> | null;
};

const PLAN_SCHEMA_URL = new URL("../../schemas/plan.schema.json", import.meta.url);
/** Written by scripts/build-schema-validator.mjs next to this module in dist/ (a CommonJS module). */
const PRECOMPILED = "./plan-validator.cjs";

let validatePlanDoc: PlanValidator | undefined;

/** The build's precompiled validator while it was made from this schema, else none (running from source). */
function precompiledValidator(): PlanValidator | undefined {
  let built: { default?: PlanValidator; schemaHash?: string };
  try {
    built = require(PRECOMPILED) as typeof built;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "MODULE_NOT_FOUND") throw err;
    return undefined;
  }
  const { readFileSync } = require("node:fs") as typeof import("node:fs");
  const { createHash } = require("node:crypto") as typeof import("node:crypto");
  const hash = createHash("sha256").update(readFileSync(PLAN_SCHEMA_URL, "utf8")).digest("hex");
  return built.schemaHash === hash ? built.default : undefined;
}

export async function planValidator(): Promise<PlanValidator> {
  validatePlanDoc ??= precompiledValidator();
  if (!validatePlanDoc) {
    // CommonJS packages: Node's import() gives their exports as `default` too, the bundled CLI only there.
    const ajvModule = (await import("ajv/dist/2020.js")) as typeof import("ajv/dist/2020.js") & {
      default?: typeof import("ajv/dist/2020.js");
    };
    const { Ajv2020 } = ajvModule.default ?? ajvModule;
    const addFormats = (await import("ajv-formats")).default as unknown as (a: InstanceType<typeof Ajv2020>) => void;
    const ajv = new Ajv2020({ allErrors: true, strict: false });
    addFormats(ajv);
    validatePlanDoc = ajv.compile(require("../../schemas/plan.schema.json") as object) as PlanValidator;
  }
  return validatePlanDoc;
}

export function serialisePlan(plan: Plan, secrets: SecretHolder): string {
  return planFileText(planForFile(plan, secrets), secrets);
}

export async function parsePlanText(text: string, path: string): Promise<Plan> {
  let doc: unknown;
  try {
    doc = parseJsonWithin(text, MAX_PLAN_JSON_DEPTH);
  } catch (err) {
    throw planFileProblem(path, `the plan file ${path}`, jsonProblem(err));
  }
  return checkPlanDocument(doc, path);
}

export async function checkPlanDocument(given: unknown, path: string, name = `the plan file ${path}`): Promise<Plan> {
  // A plan value as zoneform holds it inside (its accounts among its units) is checked as its file would be.
  const doc = isInternalForm(given) ? toDocument(given) : given;
  const version = (doc as { format_version?: unknown })?.format_version;
  if (version !== PLAN_FORMAT_VERSION) {
    throw planFileProblem(
      path,
      name,
      `has format_version ${JSON.stringify(version)}; this zoneform reads format ${PLAN_FORMAT_VERSION}. ` +
        `Make the plan again with this version.`,
    );
  }
  const validate = await planValidator();
  if (!validate(doc)) {
    const first = (validate.errors ?? []).slice(0, 5).map((e) => `${e.instancePath || "/"} ${e.message}`);
    throw planFileProblem(path, name, `is not a zoneform plan: ${first.join("; ")}`);
  }
  const plan = fromDocument(doc as PlanDocument);
  // A zone's calls address zones/{its id}/, an account's accounts/{its id}/, and nothing else.
  const astray = plan.zones.flatMap((z) => {
    const inUnit = (path: string) => path.startsWith(unitPathPrefix(z));
    return z.changes
      .flatMap((c) =>
        c.zone_id !== z.zone_id
          ? [`${c.resource} "${c.identity}" says ${z.scope ?? "zone"} ${c.zone_id}`]
          : c.operations
              .filter((op) => !inUnit(op.path) || (op.finds !== undefined && !inUnit(op.finds.path)))
              .map((op) => `${op.method} ${op.path}`),
      )
      .map((what) => `${z.scope ?? "zone"} ${z.zone_id}: ${what}`);
  });
  if (astray.length > 0) {
    throw planFileProblem(
      path,
      name,
      `has operations that do not address the zone they belong to (${astray.slice(0, 5).join("; ")}); it ` +
        `cannot be applied`,
    );
  }
  return plan;
}

export function planFileProblem(path: string, name: string, message: string): ConfigError {
  return new ConfigError([{ file: path, line: 1, column: 1, pointer: "", message }], `${name} ${message}`);
}
