// `npm run demo` builds only when dist/ is older than what it is built from (scripts/build-if-stale.mjs).
import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
// @ts-expect-error: a plain .mjs build script, without types
import { STAMP, staleReason } from "../../../scripts/build-if-stale.mjs";

const root = mkdtempSync(join(tmpdir(), "zoneform-stale-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function write(rel: string, when: number): void {
  mkdirSync(join(root, rel, ".."), { recursive: true });
  writeFileSync(join(root, rel), "x");
  utimesSync(join(root, rel), when, when);
}

describe("build-if-stale", () => {
  it("builds when dist/ was never built", () => {
    write("src/cli/main.ts", 1000);
    expect(staleReason(root)).toBe("dist/ has not been built");
  });

  it("skips the build when the stamp is newer than every input", () => {
    write("src/sections/waf/schema.json", 1500);
    write(STAMP as string, 2000);
    expect(staleReason(root)).toBeUndefined();
  });

  it("names the input edited after the build", () => {
    write("src/sections/waf/schema.json", 3000);
    expect(staleReason(root)).toBe(`${join("src", "sections", "waf", "schema.json")} is newer than the last build`);
    write("package.json", 4000);
    write(STAMP as string, 5000);
    expect(staleReason(root)).toBeUndefined();
  });

  it("is what `npm run demo` runs, and `npm run build` writes the stamp", () => {
    const { scripts } = JSON.parse(readFileSync(new URL("../../../package.json", import.meta.url), "utf8")) as {
      scripts: Record<string, string>;
    };
    expect(scripts.demo).toBe("node scripts/build-if-stale.mjs && node dist/cli/demo.js");
    expect(scripts.build).toMatch(/&& node scripts\/build-if-stale\.mjs --stamp$/);
  });
});
