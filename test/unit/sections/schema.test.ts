import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { SECTIONS } from "../../../src/sections/index.js";
import { assembleSchema, assembleSchemaFrom, formatSchema } from "../../../src/sections/schema.js";
import { EDITOR_SCHEMA_FILE, publishedSchema, toDraft07 } from "../../../src/config/schema.js";

const committed = readFileSync(new URL("../../../schemas/zoneform.schema.json", import.meta.url), "utf8");
const committedDraft07 = readFileSync(new URL(`../../../schemas/${EDITOR_SCHEMA_FILE}`, import.meta.url), "utf8");
const pkg = JSON.parse(readFileSync(new URL("../../../package.json", import.meta.url), "utf8")) as { version: string };

describe("the published schema", () => {
  it("is what the sections' fragments assemble (run `npm run build` after editing a fragment)", () => {
    expect(committed).toBe(formatSchema(publishedSchema(assembleSchemaFrom())));
  });

  it("has a draft-07 form for editors, generated from it (run `npm run build`)", () => {
    expect(committedDraft07).toBe(formatSchema(toDraft07(JSON.parse(committed))));
    expect(committedDraft07).not.toContain("$defs");
  });

  it("names the package and its version in each $id, not a URL that does not exist", () => {
    expect(JSON.parse(committed).$id).toBe(`urn:zoneform:${pkg.version}:schemas/zoneform.schema.json`);
    expect(JSON.parse(committedDraft07).$id).toBe(`urn:zoneform:${pkg.version}:schemas/${EDITOR_SCHEMA_FILE}`);
  });

  it("refuses to convert a keyword draft-07 does not have", () => {
    expect(() => toDraft07({ $defs: { a: { type: "array", prefixItems: [{}] } } }, "0")).toThrow(
      '/$defs/a: "prefixItems" has no draft-07 form',
    );
    expect(toDraft07({ $defs: { a: {} }, properties: { x: { $ref: "#/$defs/a" } } }, "0")).toMatchObject({
      definitions: { a: {} },
      properties: { x: { $ref: "#/definitions/a" } },
    });
  });

  it("has one fragment per registered section, each in the section's folder", () => {
    for (const s of SECTIONS)
      expect(() => readFileSync(new URL(`../../../src/sections/${s.name}/schema.json`, import.meta.url))).not.toThrow();
    expect(new Set(SECTIONS.map((s) => s.name)).size).toBe(SECTIONS.length);
  });

  it("refuses a name two fragments declare", () => {
    const base = { $defs: { zone: { properties: { zone_id: {} } }, logs: { properties: {} } } };
    expect(() =>
      assembleSchema(base, [
        { folder: "a", fragment: { zone: { x: {} } } },
        { folder: "b", fragment: { zone: { x: {} } } },
      ]),
    ).toThrow('"x" is declared twice');
  });
});
