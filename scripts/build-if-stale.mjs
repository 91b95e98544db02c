#!/usr/bin/env node
// `npm run demo` runs this before the demo: it builds (`npm run build`) only when dist/ is older than
// what it is built from, so `npm run demo` after a build (`npm test`, `npm pack`) does not
// compile everything a second time. `npm run build` ends with `node scripts/build-if-stale.mjs --stamp`,
// which writes dist/.build-stamp; the build is current while no input is newer than that stamp.
import { spawnSync } from "node:child_process";
import { readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
export const STAMP = join("dist", ".build-stamp");
/** What the build reads: sources and schema fragments, the build's scripts and configuration. */
const INPUTS = [
  "src",
  "schemas/plan.schema.json",
  "scripts/build-schema.mjs",
  "scripts/build-schema-validator.mjs",
  "scripts/bundle-cli.mjs",
  "scripts/bundle-action.mjs",
  "tsconfig.json",
  "tsconfig.build.json",
  "package.json",
  "npm-shrinkwrap.json",
];

function newest(path) {
  let st;
  try {
    st = statSync(path);
  } catch {
    return undefined;
  }
  if (!st.isDirectory()) return { path, mtimeMs: st.mtimeMs };
  let best;
  for (const name of readdirSync(path)) {
    const n = newest(join(path, name));
    if (n && (!best || n.mtimeMs > best.mtimeMs)) best = n;
  }
  return best;
}

/** Why dist/ must be built (a sentence), or undefined when it is current. */
export function staleReason(root = ROOT) {
  let stamp;
  try {
    stamp = statSync(join(root, STAMP)).mtimeMs;
  } catch {
    return "dist/ has not been built";
  }
  for (const input of INPUTS) {
    const n = newest(join(root, input));
    if (n && n.mtimeMs > stamp)
      return `${n.path.slice(root.length).replace(/^[/\\]/, "")} is newer than the last build`;
  }
  return undefined;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  if (process.argv.includes("--stamp")) {
    writeFileSync(join(ROOT, STAMP), `${new Date().toISOString()}\n`);
  } else {
    const reason = staleReason();
    if (reason) {
      process.stderr.write(`Building: ${reason}.\n`);
      const r = spawnSync("npm", ["run", "build"], {
        cwd: ROOT,
        stdio: "inherit",
        shell: process.platform === "win32",
      });
      process.exit(r.status ?? 1);
    }
  }
}
