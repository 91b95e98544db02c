#!/usr/bin/env node
// Part of `npm run build`, after tsc: bundles the `zoneform` executable with esbuild into one ES module
// bundle, so that a command starts by reading a few files instead of hundreds (yaml alone is 74
// CommonJS modules; commander, undici and ajv's runtime add more). It writes, in dist/cli/:
//   - zoneform.js, the executable (package.json "bin", from src/cli/zoneform.ts): checks the Node
//     version against package.json's "engines" (written in here), turns on Node's compile cache, then
//     imports the program;
//   - bundle-<hash>.js, the chunks: the program (src/cli/main.ts) and a chunk per command
//     (src/cli/program.ts loads each with import() when the command line names it: a plan never
//     loads the emulator, `validate` never loads undici), and what several commands share;
//   - schema-validator.cjs, plan-validator.cjs: the precompiled validators (scripts/build-schema-validator.mjs),
//     which src/config/schema.ts loads beside the module asking for it. It was built from the schema
//     a moment ago, so the bundle does not compare their hashes at each start.
// Everything sits two levels below the package root like the modules it came from, so the paths
// those modules resolve from import.meta.url (schemas/, package.json) stay true. The library
// (dist/index.js and what it imports) is tsc's output, unbundled.
import { chmodSync, copyFileSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { build } from "esbuild";
import { lazyChildProcess, SHARED_DEFINES, yamlWithoutEnvReads } from "./bundle-plugins.mjs";

const CLI_DIR = new URL("../dist/cli/", import.meta.url);
const path = (name, dir = CLI_DIR) => new URL(name, dir).pathname;

const BANNER =
  'import { createRequire as __zoneformCreateRequire } from "module"; const require = ' +
  "__zoneformCreateRequire(import.meta.url);";
if (readFileSync(path("zoneform.js"), "utf8").includes(BANNER)) {
  console.error("dist/cli/zoneform.js is already bundled: run `npm run build`, which compiles it again first.");
  process.exit(1);
}
for (const name of readdirSync(CLI_DIR)) if (/^bundle-.*\.js$/.test(name)) rmSync(path(name));

const { engines } = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));

await build({
  entryPoints: [path("zoneform.js")],
  outdir: CLI_DIR.pathname,
  allowOverwrite: true,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  entryNames: "[name]",
  chunkNames: "bundle-[hash]",
  legalComments: "none",
  // Maps back to src/ and node_modules/ (through tsc's maps) for scripts/module-cost.mjs; the package
  // leaves them out (package.json "files").
  sourcemap: "linked",
  logLevel: "warning",
  // The CommonJS dependencies call require() for Node's modules; an ES module has none of its own.
  // ("module", not "node:module": the executable must load on any Node to say which it needs.)
  banner: { js: BANNER },
  plugins: [lazyChildProcess(), yamlWithoutEnvReads()],
  define: {
    // src/config/schema.ts: the precompiled validator comes from this build's schema.
    __ZONEFORM_BUNDLE__: "true",
    // src/cli/zoneform.ts: the Node versions it runs on.
    __ZONEFORM_ENGINES__: JSON.stringify(engines.node),
    ...SHARED_DEFINES,
  },
});

copyFileSync(path("../config/schema-validator.cjs"), path("schema-validator.cjs"));
copyFileSync(path("../plan/plan-validator.cjs"), path("plan-validator.cjs"));
chmodSync(path("zoneform.js"), 0o755);
