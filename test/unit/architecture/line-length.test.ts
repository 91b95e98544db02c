// No line of the product's code is longer than 120 columns (the formatter's width); long strings are
// concatenations and long comments wrap. Data written as text (the Logpush field lists the emulator
// answers with) is the one exception.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "../../..");
const DATA = new Set(["src/emulator/areas/logpush_jobs/fields.ts"]);

function files(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true, encoding: "utf8" })
    .filter((f) => /\.(ts|mjs)$/.test(f))
    .map((f) => join(dir, f));
}

describe("line length", () => {
  it("keeps every line of src/ and scripts/ within 120 columns", () => {
    const long: string[] = [];
    for (const file of [...files("src"), ...files("scripts")]) {
      if (DATA.has(file)) continue;
      readFileSync(join(ROOT, file), "utf8")
        .split("\n")
        .forEach((line, i) => {
          if ([...line].length > 120) long.push(`${relative(ROOT, join(ROOT, file))}:${i + 1}`);
        });
    }
    expect(long).toEqual([]);
  });
});
