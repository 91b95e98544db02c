#!/usr/bin/env node
// The `zoneform` executable (package.json "bin"; bundled to dist/cli/zoneform.js by scripts/bundle-cli.mjs).

/** package.json's "engines" range, written in by the bundler. */
declare const __ZONEFORM_ENGINES__: string;
const SUPPORTED = "22, 24 and 26";

const engines = __ZONEFORM_ENGINES__;
const wanted = /(\d+)(?:\.(\d+))?/.exec(engines) || ["", "0", "0"];
const running = process.versions.node.split(".");
const major = Number(running[0]);
const minor = Number(running[1]);
const tooOld = major < Number(wanted[1]) || (major === Number(wanted[1]) && minor < Number(wanted[2] || 0));

if (tooOld) {
  process.stderr.write(
    "zoneform needs Node.js " +
      engines +
      " (the supported lines are " +
      SUPPORTED +
      "); this is Node.js " +
      process.version +
      ".\n",
  );
  process.exitCode = 1;
} else {
  // biome-ignore-start lint/complexity/useArrowFunction: plain functions, so that an old Node parses the file
  // biome-ignore-start lint/complexity/useOptionalChain: likewise
  import("node:module")
    .then(function (mod) {
      const nodeModule = mod as { enableCompileCache?: () => unknown };
      if (typeof nodeModule.enableCompileCache === "function") nodeModule.enableCompileCache();
      return import("./main.js");
    })
    .catch(function (err) {
      process.stderr.write(
        "Internal error: zoneform could not start (" +
          (err && err.message) +
          "); in a checkout, run `npm run build`.\n",
      );
      process.exitCode = 1;
    });
  // biome-ignore-end lint/complexity/useOptionalChain: likewise
  // biome-ignore-end lint/complexity/useArrowFunction: plain functions, so that an old Node parses the file
}
