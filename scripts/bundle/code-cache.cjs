// Part of `npm run build` (scripts/bundle-cli.mjs): writes dist/cli/validate.cjs.cache, the V8 code
// cache of the bundled `validate`, from a run of `validate` on examples/full.yaml (with its variables
// set), so that it holds the code that run compiled, not only the file's top level.
"use strict";
const fs = require("node:fs");
const path = require("node:path");

const ROOT = path.resolve(__dirname, "../..");
const { compile, runCompiled, VALIDATE } = require(path.join(ROOT, "dist/cli/zoneform.cjs"));

fs.rmSync(`${VALIDATE}.cache`, { force: true });
const script = compile(VALIDATE);
if (!script) throw new Error(`${VALIDATE} is missing`);
Object.assign(process.env, { AWS_KEY_ID: "AKIAEXAMPLE", AWS_SECRET: "example-secret", LOGPUSH_CHALLENGE: "example-challenge", DATADOG_API_KEY: "example-dd-key" });
process.argv = [process.argv[0], VALIDATE, "validate", "-c", path.join(ROOT, "examples/full.yaml")];
process.once("beforeExit", () => {
  if (process.exitCode) throw new Error(`validate of examples/full.yaml failed (exit ${process.exitCode}): no code cache written`);
  fs.writeFileSync(`${VALIDATE}.cache`, script.createCachedData());
});
runCompiled(script, VALIDATE);
