// The Action's committed bundle (dist-action/index.js, what action.yml runs) is what the sources build:
// `npm run build` writes it (scripts/bundle-action.mjs), and it must be committed with the change to
// src/ that changed it. It imports nothing but Node's own modules (the runner does no npm install).
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { isBuiltin } from "node:module";
import { join, resolve } from "node:path";
import { parse } from "yaml";
import { describe, expect, it } from "vitest";
// @ts-expect-error: a plain .mjs build script, without types
import { ACTION_BUNDLE as BUNDLE, bundleAction as bundle } from "../../scripts/bundle-action.mjs";

const ACTION_BUNDLE = BUNDLE as string;
const bundleAction = bundle as () => Promise<string>;

const ROOT = resolve(import.meta.dirname, "../..");

/** The bundle as committed (git's HEAD), or the file on disk outside a git checkout. */
function committedBundle(): string {
  try {
    return execFileSync("git", ["show", `HEAD:${ACTION_BUNDLE}`], {
      cwd: ROOT,
      encoding: "utf8",
      maxBuffer: 64 * 1024 * 1024,
      stdio: ["ignore", "pipe", "ignore"],
    });
  } catch {
    return readFileSync(join(ROOT, ACTION_BUNDLE), "utf8");
  }
}

/**
 * The module names a bundle loads: static imports, import() and require() of a literal name (not the
 * text of code a library generates, as ajv's `'require("ajv/dist/runtime/uri")'`).
 */
export function loadedModules(code: string): string[] {
  const names = new Set<string>();
  for (const m of code.matchAll(/(?:^|[\s;])(?:import|export)\s[^;]*?from\s*"([^"]+)"/g)) names.add(m[1]!);
  for (const m of code.matchAll(/(?<![\w$.'"`])(?:import|require|__require)\(\s*"([^"]+)"\s*\)/g)) names.add(m[1]!);
  return [...names].sort();
}

describe("the Action's bundle", () => {
  it("action.yml runs dist-action/index.js on node24", () => {
    const action = parse(readFileSync(join(ROOT, "action.yml"), "utf8")) as { runs: { using: string; main: string } };
    expect(action.runs).toEqual({ using: "node24", main: ACTION_BUNDLE });
  });

  it(
    "is committed as the sources build it (after changing src/: npm run build, then commit " + "dist-action/index.js)",
    async () => {
      const built = await bundleAction();
      const committed = committedBundle();
      expect(
        committed === built,
        `${ACTION_BUNDLE} as committed is not what the sources build: run \`npm run build\` and commit ` +
          `${ACTION_BUNDLE}`,
      ).toBe(true);
    },
  );

  it("loads only Node's own modules", async () => {
    // isBuiltin, not builtinModules: the latter leaves out prefix-only modules such as node:sqlite.
    expect(loadedModules(await bundleAction()).filter((m) => !isBuiltin(m))).toEqual([]);
  });

  it("the module reader finds a package left out of a bundle", () => {
    expect(
      loadedModules(
        `import a from "yaml";\nconst b = __require("ajv/dist/2020");\nawait import("node:fs");\nx.code = ` +
          `'require("not/loaded")';`,
      ),
    ).toEqual(["ajv/dist/2020", "node:fs", "yaml"]);
  });
});
