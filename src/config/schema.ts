// The JSON Schema of the desired-state file (schemas/zoneform.schema.json), compiled once with ajv and
// reused. The schema is the one editors use for completion and hover, so it is read from the package
// rather than duplicated here.
import { readFileSync } from "node:fs";
import { Ajv2020, type AnySchemaObject, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";

const SCHEMA_URL = new URL("../../schemas/zoneform.schema.json", import.meta.url);

let schema: AnySchemaObject | undefined;
let validator: ValidateFunction | undefined;

export function loadSchema(): AnySchemaObject {
  schema ??= JSON.parse(readFileSync(SCHEMA_URL, "utf8")) as AnySchemaObject;
  return schema;
}

/** The compiled validator, built on first use. */
export function getValidator(): ValidateFunction {
  if (validator) return validator;
  const ajv = new Ajv2020({ allErrors: true, verbose: true, strict: true, strictRequired: false, allowUnionTypes: true });
  // ajv-formats is CommonJS: under NodeNext its default import may be the module object.
  type AddFormats = (ajv: Ajv2020) => unknown;
  const mod = addFormatsModule as unknown as AddFormats & { default?: AddFormats };
  (mod.default ?? mod)(ajv);
  // VS Code's JSON language service shows `errorMessage` instead of its own text; we do the same.
  ajv.addKeyword({ keyword: "errorMessage", schemaType: "string" });
  validator = ajv.compile(loadSchema());
  return validator;
}

export function validateDocument(value: unknown): ErrorObject[] {
  const validate = getValidator();
  return validate(value) ? [] : [...(validate.errors ?? [])];
}
