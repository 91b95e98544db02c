// docs/configuration.md's key tables are what scripts/docs-keys.mjs makes of the sections' schema
// fragments (`npm run generate` rewrites them), and a section without a region gets one.
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
// @ts-expect-error: a script in plain JavaScript, without types
import { CONFIG_DOC, keysTable, withKeyTables } from "../../../scripts/docs-keys.mjs";
import { SECTIONS } from "../../../src/sections/index.js";

const ROOT = resolve(import.meta.dirname, "../../..");
const sections = SECTIONS.map((s) => ({
  name: s.name,
  path: s.path,
  fragment: JSON.parse(readFileSync(join(ROOT, "src/sections", s.name, "schema.json"), "utf8")),
}));

describe("docs/configuration.md key tables", () => {
  it("are what the schema fragments say (npm run generate rewrites them)", () => {
    const text = readFileSync(join(ROOT, CONFIG_DOC), "utf8");
    expect(withKeyTables(text, sections)).toBe(text);
  });

  it("a stale region is rewritten, a section without one gets a heading and a region", () => {
    const doc = [
      "## `a`",
      "",
      "<!-- keys:a -->",
      "| old |",
      "<!-- /keys:a -->",
      "",
      "prose of a",
      "",
      "## Accounts",
      "",
    ].join("\n");
    const a = { name: "a", path: "a", fragment: { zone: { a: { type: "boolean", description: "A | on" } } } };
    const b = { name: "b_c", path: "b_c", fragment: { zone: { b_c: { enum: ["off", "high"] } } } };
    const out = withKeyTables(doc, [a, b]);
    expect(out).toBe(
      [
        "## `a`",
        "",
        "<!-- keys:a -->",
        "| key | type | meaning |",
        "|---|---|---|",
        "| `a` | boolean | A \\| on |",
        "<!-- /keys:a -->",
        "",
        "prose of a",
        "",
        "## `b_c`",
        "",
        ...keysTable(b),
        "",
        "## Accounts",
        "",
      ].join("\n"),
    );
    expect(keysTable(b)).toContain("| `b_c` | `off` \\| `high` |  |");
    expect(withKeyTables(out, [a, b])).toBe(out);
  });
});
