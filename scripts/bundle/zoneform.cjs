#!/usr/bin/env node
// The `zoneform` executable (package.json "bin"; copied to dist/cli/ by scripts/bundle-cli.mjs).
// `zoneform validate …` runs dist/cli/validate.cjs, `validate` bundled alone as CommonJS, and a
// command that calls the API runs dist/cli/api.cjs, those commands bundled as CommonJS; each is
// compiled with the V8 code cache the build wrote beside it (`.cache`), which spares most of the
// start's compiling (Node 20 has no code cache for ES modules). V8 takes a cache only when it was
// made by the same V8 from the same file, and compiles as usual otherwise. Every other command line
// (help, a typo, `emulator`) runs main.js: the program with every command, an ES module with a chunk
// per command.
"use strict";
const fs = require("node:fs");
const path = require("node:path");
const vm = require("node:vm");
const Module = require("node:module");

const VALIDATE = path.join(__dirname, "validate.cjs");
const API = path.join(__dirname, "api.cjs");
/** The commands api.cjs has (src/cli/commands/api-commands.ts), written here by the build. */
const API_COMMANDS = new Set([/* API_COMMANDS */]);

/** A bundled CommonJS file compiled with its code cache (`<file>.cache`) if there is one; undefined when the file is missing. */
function compile(file) {
  let source;
  try {
    source = fs.readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
  let cachedData;
  try {
    cachedData = fs.readFileSync(`${file}.cache`);
  } catch {
    // No cache: compiled as usual.
  }
  return new vm.Script(Module.wrap(source), { filename: file, cachedData });
}

/** Runs a compiled bundle as the CommonJS module `file`. */
function runCompiled(script, file) {
  const mod = { exports: {}, filename: file };
  script.runInThisContext().call(mod.exports, mod.exports, Module.createRequire(file), mod, file, path.dirname(file));
}

if (require.main === module) {
  const name = process.argv[2];
  const file = name === "validate" ? VALIDATE : API_COMMANDS.has(name) ? API : undefined;
  const script = file && compile(file);
  if (script) runCompiled(script, file);
  else {
    import("./main.js").catch((err) => {
      process.stderr.write(`Internal error: zoneform could not start (${err && err.message}); run \`npm run build\` in a checkout.\n`);
      process.exitCode = 1;
    });
  }
}

module.exports = { compile, runCompiled, VALIDATE, API };
