import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { SECTIONS } from "../../../src/sections/index.js";
import { assembleSchema, assembleSchemaFrom, formatSchema } from "../../../src/sections/schema.js";

const committed = readFileSync(new URL("../../../schemas/zoneform.schema.json", import.meta.url), "utf8");

describe("the published schema", () => {
  it("is what the sections' fragments assemble (run `npm run build` after editing a fragment)", () => {
    expect(committed).toBe(formatSchema(assembleSchemaFrom()));
  });

  it("has one fragment per registered section, each in the section's folder", () => {
    for (const s of SECTIONS) expect(() => readFileSync(new URL(`../../../src/sections/${s.folder}/schema.json`, import.meta.url))).not.toThrow();
    expect(new Set(SECTIONS.map((s) => s.folder)).size).toBe(SECTIONS.length);
  });

  it("refuses a name two fragments declare", () => {
    const base = { $defs: { zone: { properties: { zone_id: {} } }, logs: { properties: {} } } };
    expect(() => assembleSchema(base, [{ folder: "a", fragment: { zone: { x: {} } } }, { folder: "b", fragment: { zone: { x: {} } } }])).toThrow('"x" is declared twice');
  });
});
