#!/usr/bin/env node
// Part of `npm run build`, after tsc: bundles the `zoneform` executable with esbuild, so that a
// command starts by reading a few files instead of hundreds (yaml alone is 74 CommonJS modules;
// commander, undici and ajv's runtime add more). It writes, in dist/cli/:
//   - zoneform.cjs, the executable (package.json "bin"; from scripts/bundle/zoneform.cjs, with the
//     names of the API commands written in): runs validate.cjs for `validate …`, api.cjs for a command
//     that calls the API, main.js for every other command line;
//   - main.js (tsc's, bundled in place) and its chunks (bundle-<hash>.js): the program with every
//     command, an ES module split so that each command's code is a chunk loaded only when the
//     command line names it, as src/cli/program.ts asks: a plan never loads the emulator;
//   - validate.cjs (from src/cli/validate-main.ts): `validate` alone, and api.cjs (from
//     src/cli/api-main.ts): the commands that call the API, each as CommonJS, which V8 can compile
//     from a code cache (Node 20 has none for ES modules), and their caches (.cjs.cache), written by
//     a run of each (scripts/bundle/code-cache.cjs);
//   - schema-validator.cjs: the precompiled schema validator (scripts/build-schema-validator.mjs),
//     which src/config/schema.ts loads beside the module asking for it. It was built from the schema
//     a moment ago, so the bundles do not compare their hashes at each start.
// Everything sits two levels below the package root like the modules it came from, so the paths
// those modules resolve from import.meta.url (schemas/, package.json) stay true. The library
// (dist/index.js and what it imports) is tsc's output, unbundled.
import { spawnSync } from "node:child_process";
import { chmodSync, copyFileSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { build } from "esbuild";

const CLI_DIR = new URL("../dist/cli/", import.meta.url);
const path = (name, dir = CLI_DIR) => new URL(name, dir).pathname;

const BANNER = 'import { createRequire as __zoneformCreateRequire } from "node:module"; const require = __zoneformCreateRequire(import.meta.url);';
if (readFileSync(path("main.js"), "utf8").includes(BANNER)) {
  console.error("dist/cli/main.js is already bundled: run `npm run build`, which compiles it again first.");
  process.exit(1);
}

for (const name of readdirSync(CLI_DIR)) if (/^bundle-.*\.js$/.test(name)) rmSync(path(name));

/** What both bundles share: Node 20, every dependency inside, the same substitutions. */
const common = {
  bundle: true,
  platform: "node",
  target: "node20",
  legalComments: "none",
  logLevel: "warning",
  plugins: [
    {
      // scripts/bundle/undici-core.cjs: only the part of undici the client uses.
      name: "undici-core",
      setup(b) {
        b.onResolve({ filter: /^undici$/ }, () => ({ path: path("bundle/undici-core.cjs", import.meta.url) }));
      },
    },
    {
      // scripts/bundle/lazy-child-process.cjs: commander's child_process, loaded on first use.
      name: "lazy-child-process",
      setup(b) {
        b.onResolve({ filter: /^node:child_process$/ }, (args) =>
          /[\\/]node_modules[\\/]commander[\\/]/.test(args.importer) ? { path: path("bundle/lazy-child-process.cjs", import.meta.url) } : undefined,
        );
      },
    },
  ],
};

await build({
  ...common,
  entryPoints: [path("main.js")],
  outdir: CLI_DIR.pathname,
  allowOverwrite: true,
  splitting: true,
  format: "esm",
  entryNames: "[name]",
  chunkNames: "bundle-[hash]",
  // The CommonJS dependencies call require() for Node's modules; an ES module has none of its own.
  banner: { js: BANNER },
  // src/config/schema.ts: the precompiled validator comes from this build's schema.
  define: { __ZONEFORM_BUNDLE__: "true" },
});

/** A CommonJS bundle, which V8 can compile from a code cache. */
const commonJs = {
  ...common,
  format: "cjs",
  // A CommonJS module has no import.meta and runs no import() without a callback from vm: both
  // become their CommonJS equivalents.
  banner: { js: 'const __zoneformImportMetaUrl = require("node:url").pathToFileURL(__filename).href;' },
  define: { __ZONEFORM_BUNDLE__: "true", "import.meta.url": "__zoneformImportMetaUrl" },
  supported: { "dynamic-import": false, "top-level-await": false },
};

await build({ ...commonJs, entryPoints: [path("validate-main.js")], outfile: path("validate.cjs") });
// The API commands: the yaml package (for a file with problems, and export) and ajv (to read a plan
// file) stay outside, loaded from node_modules only by the runs that need them.
await build({ ...commonJs, entryPoints: [path("api-main.js")], outfile: path("api.cjs"), external: ["yaml", "ajv", "ajv/*", "ajv-formats"] });

copyFileSync(path("../config/schema-validator.cjs"), path("schema-validator.cjs"));
const { API_COMMANDS } = await import(path("commands/api-commands.js"));
const launcher = readFileSync(path("bundle/zoneform.cjs", import.meta.url), "utf8");
writeFileSync(path("zoneform.cjs"), launcher.replace("/* API_COMMANDS */", Object.keys(API_COMMANDS).map((n) => JSON.stringify(n)).join(", ")));
chmodSync(path("zoneform.cjs"), 0o755);

// A cache only makes starts faster: without one (a machine where the build cannot start the
// emulator, say) the executable compiles as usual, so its failure is a warning, not a failed build.
for (const bundle of ["validate", "api"]) {
  const cache = spawnSync(process.execPath, [path("bundle/code-cache.cjs", import.meta.url), bundle], { stdio: ["ignore", "ignore", "pipe"], encoding: "utf8", timeout: 60_000 });
  if (cache.status !== 0) {
    rmSync(path(`${bundle}.cjs.cache`), { force: true });
    console.warn(`warning: no code cache for dist/cli/${bundle}.cjs (zoneform starts slower): ${(cache.stderr || cache.error?.message || "").trim().split("\n").slice(-3).join(" ")}`);
  }
}
