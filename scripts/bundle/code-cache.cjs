// Part of `npm run build` (scripts/bundle-cli.mjs): writes the V8 code cache of a CommonJS bundle of
// the executable (dist/cli/<bundle>.cjs.cache) from a run of it, so that the cache holds the code
// that run compiled, not only the file's top level:
//   node code-cache.cjs validate   validate of examples/full.yaml, its variables set;
//   node code-cache.cjs api        plan of examples/full.yaml against the emulator (`zoneform emulator`).
// The cache is kept only if V8 takes it back (same flags as a later start), else removed: the
// executable then compiles as usual.
"use strict";
const fs = require("node:fs");
const path = require("node:path");

const ROOT = path.resolve(__dirname, "../..");
const { compile, runCompiled, VALIDATE, API } = require(path.join(ROOT, "dist/cli/zoneform.cjs"));
const EXAMPLE = path.join(ROOT, "examples/full.yaml");
const EXAMPLE_ENV = { AWS_KEY_ID: "AKIAEXAMPLE", AWS_SECRET: "example-secret", LOGPUSH_CHALLENGE: "example-challenge", DATADOG_API_KEY: "example-dd-key" };

async function main(which) {
  const file = which === "validate" ? VALIDATE : which === "api" ? API : undefined;
  if (!file) throw new Error(`usage: code-cache.cjs validate|api`);
  fs.rmSync(`${file}.cache`, { force: true });
  const script = compile(file);
  if (!script) throw new Error(`${file} is missing`);
  Object.assign(process.env, EXAMPLE_ENV);
  let emulator;
  if (which === "api") {
    // In a process of its own: a server here would keep this one from ever reaching beforeExit.
    emulator = await startEmulator();
    process.env.CLOUDFLARE_API_TOKEN = "emulator-token";
    // The tokens the emulator wrote for the example's destinations that need one, so that the whole
    // plan runs (a destination without its token stops it at the checks).
    const origin = new URL(emulator.url).origin;
    const example = require("js-yaml").load(fs.readFileSync(EXAMPLE, "utf8"));
    for (const zone of example.zones) {
      for (const job of zone.logs?.logpush_jobs ?? []) {
        const variable = /^\$\{env:(\w+)\}$/.exec(job.ownership_challenge ?? "")?.[1];
        if (!variable) continue;
        const destination = encodeURIComponent(job.destination_conf.replace(/\?.*$/, ""));
        const res = await fetch(`${origin}/__emulator/ownership/${zone.zone_id}?destination=${destination}`);
        if (res.ok) process.env[variable] = (await res.json()).token;
      }
    }
    process.argv = [process.argv[0], file, "plan", "-c", EXAMPLE, "--api-url", emulator.url];
  } else {
    process.argv = [process.argv[0], file, "validate", "-c", EXAMPLE];
  }
  process.once("beforeExit", () => {
    emulator?.child.kill();
    // The run set a V8 flag (src/cli/client-options.ts) that is part of what a cache is checked
    // against; it goes back to V8's default, which every start has when it compiles.
    require("node:v8").setFlagsFromString("--wasm-tiering-budget=1800000");
    fs.writeFileSync(`${file}.cache`, script.createCachedData());
    if (compile(file).cachedDataRejected) {
      fs.rmSync(`${file}.cache`, { force: true });
      process.stderr.write(`warning: V8 does not take back the code cache of ${path.basename(file)}; it is left out\n`);
    }
    process.exitCode = 0;
  });
  runCompiled(script, file);
}

/** `zoneform emulator` from this build, and its URL once it listens. */
async function startEmulator() {
  const { spawn } = require("node:child_process");
  const dir = fs.mkdtempSync(path.join(require("node:os").tmpdir(), "zoneform-cache-"));
  const urlFile = path.join(dir, "url");
  const child = spawn(process.execPath, [path.join(ROOT, "dist/cli/zoneform.cjs"), "emulator", "--port", "0", "--url-file", urlFile], { stdio: "ignore" });
  // Not what keeps this process alive: it ends (beforeExit) once the run is over, and the emulator
  // with it, however it ends.
  child.unref();
  process.once("exit", () => {
    child.kill();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  for (let waited = 0; waited < 10_000; waited += 20) {
    if (fs.existsSync(urlFile)) return { child, url: fs.readFileSync(urlFile, "utf8").trim() };
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  child.kill();
  throw new Error("the emulator did not start");
}

main(process.argv[2]).catch((err) => {
  process.stderr.write(`${err.stack ?? err}\n`);
  process.exitCode = 1;
});
