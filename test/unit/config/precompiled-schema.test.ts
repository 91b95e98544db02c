// The build precompiles the schema validator (scripts/build-schema-validator.mjs) so `validate` starts
// fast. `npm test` builds first (pretest): the built module must use the precompiled validator, and it
// must report exactly what the validator compiled at run time reports, on every fixture and example.
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parse } from "yaml";
import { describe, expect, it } from "vitest";
import { createAjv, loadSchema } from "../../../src/config/schema.js";

const ROOT = resolve(import.meta.dirname, "../../..");
const built = (await import(join(ROOT, "dist/config/schema.js"))) as {
  usesPrecompiledValidator(): boolean;
  validateDocument(value: unknown): Array<{ instancePath: string; keyword: string; params: unknown }>;
};

function yamlFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? e.name === "ci"
        ? []
        : yamlFiles(join(dir, e.name))
      : e.name.endsWith(".yaml")
        ? [join(dir, e.name)]
        : [],
  );
}

describe("the precompiled schema validator", () => {
  it("is what the built CLI uses", () => {
    expect(built.usesPrecompiledValidator()).toBe(true);
  });

  it("reports the same problems as the schema compiled at run time", () => {
    const compiled = createAjv().compile(loadSchema());
    const files = [...yamlFiles(join(ROOT, "test/fixtures/config")), ...yamlFiles(join(ROOT, "examples"))];
    expect(files.length).toBeGreaterThan(50);
    const shape = (errors: Array<{ instancePath: string; keyword: string; params: unknown }>) =>
      errors.map((e) => `${e.instancePath} ${e.keyword} ${JSON.stringify(e.params)}`).sort();
    for (const file of files) {
      let doc: unknown;
      try {
        doc = parse(readFileSync(file, "utf8"), { uniqueKeys: false });
      } catch {
        continue; // fixtures of YAML syntax errors never reach the schema
      }
      compiled(doc);
      expect(shape(built.validateDocument(doc)), file).toEqual(shape(compiled.errors ?? []));
    }
  });
});
