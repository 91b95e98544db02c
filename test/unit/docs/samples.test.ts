// The sample outputs of README.md and docs/ are what their commands print: each block after a
// `<!-- sample … -->` marker is regenerated in memory by scripts/docs-samples.mjs (the commands run by
// bash against the emulator, its clock fixed and its ids seeded) and compared with the page.
// `npm run docs:samples` rewrites the pages when this fails for a change that is meant.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
// @ts-expect-error: a plain .mjs script, without types
import { ROOT, docFiles, findSamples, regenerate, sampleContext } from "../../../scripts/docs-samples.mjs";

type Ctx = { close(): Promise<void> };
let ctx: Ctx;
beforeAll(async () => {
  ctx = await sampleContext();
});
afterAll(async () => ctx?.close());

const pages = (docFiles() as string[]).filter((f) => findSamples(readFileSync(join(ROOT, f), "utf8")).length > 0);

describe("sample outputs in the docs", () => {
  it("finds samples to check", () => {
    expect(pages.length).toBeGreaterThan(0);
  });

  it.each(pages)(
    "%s: every sample block is what its commands print",
    async (page) => {
      const text = readFileSync(join(ROOT, page), "utf8");
      expect(await regenerate(text, ctx)).toBe(text);
    },
    120_000,
  );

  it("a marker must be followed by a fenced block", () => {
    expect(() => findSamples("<!-- sample: $ zoneform plan -->\ntext\n")).toThrow(/followed at once by a fenced block/);
  });
});
