// Validates a SARIF log against the official SARIF 2.1.0 JSON schemas in test/fixtures/sarif/ (see its
// README): the OASIS errata01 schema (declared draft-04, compiled with ajv's draft-07 export once its
// `$schema` and `id` are dropped: it uses no keyword whose meaning changed) and the draft-07 schema of the
// Committee Specification. Formats (uri, uri-reference, date-time) are checked.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Ajv, type ValidateFunction } from "ajv";
import addFormatsModule from "ajv-formats";

const FIXTURES = fileURLToPath(new URL("../fixtures/sarif/", import.meta.url));

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (
  ajv: Ajv,
) => Ajv;

function compile(file: string, draft04: boolean): ValidateFunction {
  const schema = JSON.parse(readFileSync(FIXTURES + file, "utf8")) as Record<string, unknown>;
  if (draft04) {
    delete schema.$schema;
    delete schema.id;
  }
  // The CS01 schema's language pattern `^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}]?$` has a lone `]`, an
  // error under the u flag ajv uses by default (the errata fixed it): compile its patterns without it.
  const ajv = new Ajv({ allErrors: true, validateFormats: true, strict: false, unicodeRegExp: draft04 });
  addFormats(ajv);
  return ajv.compile(schema);
}

let validators: Array<{ name: string; validate: ValidateFunction }> | undefined;

/** The schema errors of `log`, per schema ([] when valid against both). */
export function sarifSchemaErrors(log: unknown): string[] {
  validators ??= [
    { name: "errata01", validate: compile("sarif-schema-2.1.0.json", true) },
    { name: "cs01 draft-07", validate: compile("sarif-schema-2.1.0.cs01-draft-07.json", false) },
  ];
  return validators.flatMap(({ name, validate }) =>
    validate(log)
      ? []
      : (validate.errors ?? []).map(
          (e) => `${name}: ${e.instancePath || "/"} ${e.message ?? ""} ${JSON.stringify(e.params)}`,
        ),
  );
}
