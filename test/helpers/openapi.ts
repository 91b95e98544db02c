// Conformance helper: checks an API answer against the official OpenAPI fragments in
// test/fixtures/openapi/. Each fragment is added whole to ajv under its file name, so the schema of an
// operation's response is referenced by JSON pointer and its `$ref`s resolve inside the same document.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Ajv, type ValidateFunction } from "ajv";
import addFormatsModule from "ajv-formats";
import { expect } from "vitest";

const FIXTURES = fileURLToPath(new URL("../fixtures/openapi/", import.meta.url));

// ajv-formats is CommonJS; under NodeNext its default export arrives as the module object.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (
  ajv: Ajv,
) => Ajv;

// strict: false because OpenAPI 3.0 schemas carry keywords JSON Schema does not know (example,
// x-*, discriminator without the option). `nullable` is understood by ajv itself.
const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: true });
addFormats(ajv);
const loaded = new Set<string>();
const compiled = new Map<string, ValidateFunction>();

/** The document id of a fixture: its file name without `.json` (e.g. `page_shield`). */
function loadDocument(file: string): string {
  const name = file.replace(/\.json$/, "");
  if (!loaded.has(name)) {
    const doc = JSON.parse(readFileSync(`${FIXTURES}${name}.json`, "utf8")) as Record<string, unknown>;
    ajv.addSchema(doc, `${name}.json`);
    loaded.add(name);
  }
  return `${name}.json`;
}

function escapePointer(segment: string): string {
  return segment.replace(/~/g, "~0").replace(/\//g, "~1");
}

/** The responses object of an operation, or an explanation of what is missing. */
function findStatusKey(doc: Record<string, unknown>, pathTemplate: string, method: string, status: number): string {
  const paths = doc.paths as Record<string, Record<string, { responses?: Record<string, unknown> }>>;
  const item = paths[pathTemplate];
  if (!item) throw new Error(`no path ${pathTemplate} in the fixture; paths: ${Object.keys(paths).join(", ")}`);
  const op = item[method.toLowerCase()];
  if (!op?.responses) throw new Error(`no ${method} ${pathTemplate} in the fixture`);
  const candidates = [String(status), `${String(status)[0]}XX`, "default"];
  const key = candidates.find((k) => k in op.responses!);
  if (!key) throw new Error(`no response ${status} for ${method} ${pathTemplate}`);
  return key;
}

/** The ajv validator for one operation's JSON response, or undefined when the response has no body. */
function responseValidator(
  file: string,
  pathTemplate: string,
  method: string,
  status: number,
): ValidateFunction | undefined {
  const id = loadDocument(file);
  const doc = ajv.getSchema(id)!.schema as Record<string, unknown>;
  const key = findStatusKey(doc, pathTemplate, method, status);
  const cacheKey = `${id} ${method} ${pathTemplate} ${key}`;
  if (compiled.has(cacheKey)) return compiled.get(cacheKey);
  const paths = doc.paths as Record<
    string,
    Record<string, { responses: Record<string, { content?: Record<string, unknown> }> }>
  >;
  const response = paths[pathTemplate]![method.toLowerCase()]!.responses[key]!;
  if (!response.content?.["application/json"]) return undefined;
  const ref = `${id}#/paths/${escapePointer(pathTemplate)}/${method.toLowerCase()}/responses/${key}/content/application~1json/schema`;
  const validate = ajv.compile({ $ref: ref });
  compiled.set(cacheKey, validate);
  return validate;
}

/**
 * Asserts that `body` is what the official schema allows for `method pathTemplate` answering `status`
 * (`pathTemplate` as in the OpenAPI document, e.g. `/zones/{zone_id}/page_shield`).
 */
export function expectConformsTo(
  file: string,
  pathTemplate: string,
  method: string,
  status: number,
  body: unknown,
): void {
  const validate = responseValidator(file, pathTemplate, method, status);
  if (!validate) {
    expect(body === null || body === undefined || body === "", `${method} ${pathTemplate} ${status} has no body`).toBe(
      true,
    );
    return;
  }
  const ok = validate(body);
  const problems = (validate.errors ?? []).map(
    (e) => `${e.instancePath || "/"} ${e.message} ${JSON.stringify(e.params)}`,
  );
  expect(ok, `${method} ${pathTemplate} ${status} does not conform:\n${problems.join("\n")}`).toBe(true);
}
