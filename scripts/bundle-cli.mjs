#!/usr/bin/env node
// Part of `npm run build`, after tsc: bundles the `zoneform` executable (dist/cli/main.js, which tsc
// wrote) in place with esbuild, so that a command starts by reading a few files instead of hundreds
// (yaml alone is 74 CommonJS modules; commander, undici and ajv's runtime add more). Code splitting
// keeps each command's code in its own chunk, loaded only when the command line names it, as
// src/cli/program.ts asks: `validate` never loads undici, a plan never loads the emulator.
//
// The chunks sit beside main.js in dist/cli/ (named bundle-<hash>.js), two levels below the package
// root like every module they came from, so the paths those modules resolve from import.meta.url
// (schemas/, package.json) stay true. The precompiled schema validator is loaded by URL next to the
// module that asks for it (dist/config/schema.js), so a copy goes next to the chunks; it was built
// from the schema a moment ago, so the bundle does not compare their hashes at each start.
// The library (dist/index.js and what it imports) is tsc's output, unbundled.
import { copyFileSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { build } from "esbuild";

const CLI_DIR = new URL("../dist/cli/", import.meta.url);

const BANNER = 'import { createRequire as __zoneformCreateRequire } from "node:module"; const require = __zoneformCreateRequire(import.meta.url);';
if (readFileSync(new URL("main.js", CLI_DIR), "utf8").includes(BANNER)) {
  console.error("dist/cli/main.js is already bundled: run `npm run build`, which compiles it again first.");
  process.exit(1);
}

for (const name of readdirSync(CLI_DIR)) if (/^bundle-.*\.js$/.test(name)) rmSync(new URL(name, CLI_DIR));

await build({
  entryPoints: [new URL("main.js", CLI_DIR).pathname],
  outdir: CLI_DIR.pathname,
  allowOverwrite: true,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  entryNames: "[name]",
  chunkNames: "bundle-[hash]",
  // The CommonJS dependencies call require() for Node's modules; an ES module has none of its own.
  banner: { js: BANNER },
  legalComments: "none",
  // scripts/bundle/undici-core.cjs: only the part of undici the client uses.
  plugins: [
    {
      name: "undici-core",
      setup(b) {
        b.onResolve({ filter: /^undici$/ }, () => ({ path: new URL("bundle/undici-core.cjs", import.meta.url).pathname }));
      },
    },
    {
      // scripts/bundle/lazy-child-process.cjs: commander's child_process, loaded on first use.
      name: "lazy-child-process",
      setup(b) {
        b.onResolve({ filter: /^node:child_process$/ }, (args) =>
          /[\\/]node_modules[\\/]commander[\\/]/.test(args.importer) ? { path: new URL("bundle/lazy-child-process.cjs", import.meta.url).pathname } : undefined,
        );
      },
    },
  ],
  // src/config/schema.ts: the precompiled validator below comes from this build's schema.
  define: { __ZONEFORM_BUNDLE__: "true" },
  logLevel: "warning",
});

copyFileSync(new URL("../config/schema-validator.js", CLI_DIR), new URL("schema-validator.js", CLI_DIR));
