#!/usr/bin/env node
// Part of `npm run build`: bundles the GitHub Action (action.yml, `runs.using: node24`) from
// src/action/index.ts into the one committed file dist-action/index.js, with everything it runs
// (the zoneform CLI and its dependencies), so that the runner starts it without `npm install`.
// test/unit/action-bundle.test.ts fails when the committed file is not what the sources build:
// after changing src/, run `npm run build` and commit dist-action/index.js with the change.
//
// Two things differ from the CLI's bundle (scripts/bundle-cli.mjs):
//  - No node_modules next to it: the modules that load a dependency with createRequire()
//    (src/config/schema.ts: ajv, ajv-formats; src/plan/plan-file.ts: the plan schema) have that line
//    taken out here, so that esbuild sees their require() calls and bundles what they name. The build
//    fails if such a line is found anywhere else, or not found where it is expected.
//  - The modules find the package's files (schemas/, package.json) from import.meta.url, two folders
//    up from src/<dir>/; the bundle is one folder down (dist-action/), so import.meta.url in the
//    bundled modules is the address of src/action/index.js in the same checkout.
import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { lazyChildProcess, SHARED_DEFINES, yamlWithoutEnvReads } from "./bundle-plugins.mjs";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
export const ACTION_BUNDLE = "dist-action/index.js";
const LOCAL_REQUIRE = "const require = createRequire(import.meta.url);";
const EXPECTED = ["src/config/schema.ts", "src/plan/plan-file.ts"];
/** The precompiled validator each of them loads (scripts/build-schema-validator.mjs). */
const PRECOMPILED = { "src/config/schema.ts": "schema-validator.cjs", "src/plan/plan-file.ts": "plan-validator.cjs" };

const BANNER = [
  "// The zoneform GitHub Action, bundled by scripts/bundle-action.mjs from src/action/: do not edit.",
  'import { createRequire as __zoneformCreateRequire } from "module";',
  "const require = __zoneformCreateRequire(import.meta.url);",
  'const __zoneformModuleUrl = new URL("../src/action/index.js", import.meta.url).href;',
].join("\n");

/** The bundle's text, built from the sources as they are now. */
export async function bundleAction() {
  const seen = new Set();
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: ["src/action/index.ts"],
    bundle: true,
    write: false,
    format: "esm",
    platform: "node",
    target: "node24",
    outfile: ACTION_BUNDLE,
    legalComments: "none",
    logLevel: "error",
    charset: "utf8",
    banner: { js: BANNER },
    define: { "import.meta.url": "__zoneformModuleUrl", ...SHARED_DEFINES },
    plugins: [
      lazyChildProcess(),
      yamlWithoutEnvReads(),
      {
        name: "zoneform-local-require",
        setup(b) {
          b.onLoad({ filter: /[\\/]src[\\/].*\.ts$/ }, (args) => {
            const text = readFileSync(args.path, "utf8");
            if (!text.includes(LOCAL_REQUIRE)) return undefined;
            const rel = args.path.slice(ROOT.length).replace(/\\/g, "/").replace(/^\//, "");
            if (!EXPECTED.includes(rel))
              throw new Error(
                `${rel} loads modules with createRequire: add it to EXPECTED in scripts/bundle-action.mjs ` +
                  `once its require() calls can be bundled`,
              );
            seen.add(rel);
            // The precompiled validator the build wrote beside this module in dist/ goes into the bundle.
            const precompiled = join(ROOT, "dist", dirname(rel.slice("src/".length)), PRECOMPILED[rel]);
            const contents = text
              .replace(LOCAL_REQUIRE, "")
              .replace("require(PRECOMPILED)", `require(${JSON.stringify(precompiled)})`);
            return { contents, loader: "ts" };
          });
        },
      },
    ],
  });
  const missing = EXPECTED.filter((f) => !seen.has(f));
  if (missing.length > 0)
    throw new Error(
      `scripts/bundle-action.mjs: ${missing.join(", ")} no longer has "${LOCAL_REQUIRE}": update EXPECTED`,
    );
  return result.outputFiles[0].text;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const text = await bundleAction();
  mkdirSync(new URL("../dist-action/", import.meta.url), { recursive: true });
  writeFileSync(new URL(`../${ACTION_BUNDLE}`, import.meta.url), text);
}
