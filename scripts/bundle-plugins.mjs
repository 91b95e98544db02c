// esbuild plugins the two bundles share (scripts/bundle-cli.mjs, scripts/bundle-action.mjs): they make the bundled
// code load and run less of what zoneform never uses (issue 39), with each package's own code.
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);

/**
 * esbuild `define`s both bundles take. undici's HTTP/1.1 client then takes the llhttp parser only, as in Node's own
 * bundle of undici (undici tests this name for it): its experimental Milo parser (about 200 KB of code, used only
 * with UNDICI_USE_MILO=1) is left out.
 */
export const SHARED_DEFINES = { esbuildDetection: "true" };

/**
 * commander imports node:child_process at its top for executable subcommands, which zoneform has none of: loading
 * it (and node:net with it) costs every start 3–4 ms, `validate` and `--version` included. commander gets a stand-in
 * that loads the module the first time one of its members is used.
 */
export function lazyChildProcess() {
  const stub =
    'import { createRequire } from "module"; const load = createRequire(import.meta.url); let real; ' +
    'export default new Proxy({}, { get: (_, key) => (real ??= load("node:child_process"))[key] });';
  return {
    name: "lazy-child-process",
    setup(b) {
      b.onResolve({ filter: /^(node:)?child_process$/ }, (args) =>
        /[\\/]node_modules[\\/]commander[\\/]/.test(args.importer)
          ? { path: "child_process", namespace: "lazy" }
          : undefined,
      );
      b.onLoad({ filter: /.*/, namespace: "lazy" }, () => ({ contents: stub, loader: "js" }));
    },
  };
}

/**
 * The yaml package's ES module build (its "default" export condition, the same code as its Node build) instead of
 * its Node build, whose parser reads `process.env.LOG_TOKENS` for every token: a lookup in the process's
 * environment each time, 170 ms of the parse of a 900 KB file. The one other difference, warnings logged with
 * console.warn rather than process.emitWarning, never shows: zoneform parses with logLevel "error" and collects
 * the warnings itself (src/config/parse.ts).
 */
export function yamlWithoutEnvReads() {
  const entry = require.resolve("yaml").replace(/dist[\\/]index\.js$/, "browser/index.js");
  return {
    name: "yaml-esm",
    setup(b) {
      b.onResolve({ filter: /^yaml$/ }, () => ({ path: entry }));
    },
  };
}
