#!/usr/bin/env node
// `node scripts/module-cost.mjs [--runs N] [--top N] -- <zoneform arguments>`: where a command's time goes,
// by the module it was spent in (issue 39). It runs `node dist/cli/zoneform.js <arguments>` N times (after
// one run that fills Node's compile cache, as a user's second run finds it) under V8's sampling profiler
// (`--cpu-prof`), maps every sample of the bundle back to its source through the bundle's source maps
// (node:module SourceMap), and prints the self time of each origin per run (the median over the runs): a
// package of node_modules, a file of src/, Node's own module loader and the rest of Node, garbage
// collection, and V8's compiling and idle time. The whole process's wall time and a bare `node -e 0`'s
// are printed above it. Build first (`npm run build`); the environment is passed on, so a command
// that calls the API runs against what CLOUDFLARE_API_URL or --api-url names (e.g. `zoneform emulator`).
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { SourceMap } from "node:module";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import process from "node:process";
import { parseArgs } from "node:util";

const ROOT = new URL("..", import.meta.url).pathname;
const CLI = join(ROOT, "dist/cli/zoneform.js");

const split = process.argv.indexOf("--");
const { values } = parseArgs({
  args: process.argv.slice(2, split === -1 ? undefined : split),
  options: { runs: { type: "string", default: "7" }, top: { type: "string", default: "25" } },
});
const command = split === -1 ? [] : process.argv.slice(split + 1);
if (command.length === 0) {
  console.error("usage: node scripts/module-cost.mjs [--runs N] [--top N] -- <zoneform arguments>");
  process.exit(2);
}
if (!existsSync(CLI)) {
  console.error("dist/cli/zoneform.js is missing: run `npm run build` first.");
  process.exit(2);
}
const runs = Number(values.runs);
const dir = mkdtempSync(join(tmpdir(), "zoneform-module-cost-"));

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? 0 : s[Math.floor((s.length - 1) / 2)];
};

function timed(args, env = process.env) {
  const started = performance.now();
  const r = spawnSync(process.execPath, args, { env, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  return { ms: performance.now() - started, status: r.status, stderr: r.stderr };
}

/** The source maps of the bundle's chunks, read once. */
const maps = new Map();
function mapOf(url) {
  if (!maps.has(url)) {
    const file = new URL(url).pathname;
    maps.set(url, existsSync(`${file}.map`) ? new SourceMap(JSON.parse(readFileSync(`${file}.map`, "utf8"))) : null);
  }
  return maps.get(url);
}

/** The origin of a profile node's code (at `line`, 0-based, when the profile says which line ran). */
function originOf({ url, functionName, lineNumber, columnNumber }, line) {
  if (!url) {
    if (functionName === "(garbage collector)") return "(garbage collection)";
    if (functionName === "(idle)") return "(idle: waiting for I/O)";
    if (functionName === "(program)") return "(V8: compiling, native code)";
    return "(native)";
  }
  if (url.startsWith("node:")) {
    return /^node:internal\/(modules|bootstrap\/realm)/.test(url) ? "node: module loader" : "node: the rest";
  }
  let path = url.startsWith("file:") ? new URL(url).pathname : url;
  const at = line === undefined ? [lineNumber, columnNumber] : [line, 0];
  const entry = url.startsWith("file:") ? mapOf(url)?.findEntry(...at) : undefined;
  if (entry && "originalSource" in entry && entry.originalSource) {
    path = entry.originalSource.startsWith("file:") ? new URL(entry.originalSource).pathname : entry.originalSource;
    if (!path.startsWith("/")) path = join(new URL(".", url).pathname, path);
  }
  const rel = relative(ROOT, path);
  const pkg = /(?:^|\/)node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(rel);
  if (pkg) return pkg[1];
  // tsc's output, one file per source file: named by its source.
  return rel.replace(/^dist\/(.*)\.js$/, "src/$1.ts");
}

function profileOnce(i) {
  const out = join(dir, String(i));
  const r = timed(["--cpu-prof", "--cpu-prof-interval", "50", "--cpu-prof-dir", out, CLI, ...command]);
  const [file] = readdirSync(out).filter((f) => f.endsWith(".cpuprofile"));
  const profile = JSON.parse(readFileSync(join(out, file), "utf8"));
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const spent = new Map();
  profile.samples.forEach((id, k) => {
    spent.set(id, (spent.get(id) ?? 0) + profile.timeDeltas[k] / 1000);
  });
  const self = new Map();
  const add = (origin, ms) => self.set(origin, (self.get(origin) ?? 0) + ms);
  for (const [id, ms] of spent) {
    const node = nodes.get(id);
    // A bundle chunk's top level is one function holding many modules: its lines tell them apart.
    const ticks = node.positionTicks ?? [];
    const all = ticks.reduce((n, t) => n + t.ticks, 0);
    if (all === 0) add(originOf(node.callFrame), ms);
    else for (const t of ticks) add(originOf(node.callFrame, t.line - 1), (ms * t.ticks) / all);
  }
  return { status: r.status, stderr: r.stderr, self, profiled: (profile.endTime - profile.startTime) / 1000 };
}

timed([CLI, ...command]); // fills the compile cache
const bare = [];
const wall = [];
for (let i = 0; i < runs; i++) {
  bare.push(timed(["-e", "0"]).ms);
  wall.push(timed([CLI, ...command]).ms);
}
const profiles = Array.from({ length: runs }, (_, i) => profileOnce(i));
rmSync(dir, { recursive: true, force: true });

const origins = new Set(profiles.flatMap((p) => [...p.self.keys()]));
const rows = [...origins].map((o) => [o, median(profiles.map((p) => p.self.get(o) ?? 0))]).sort((a, b) => b[1] - a[1]);
const profiled = median(profiles.map((p) => p.profiled));
const f = (ms) => `${ms.toFixed(1).padStart(7)} ms`;
console.log(
  `zoneform ${command.join(" ")}  (exit ${profiles[0].status}; ${runs} runs, medians; node ${process.version})`,
);
if (profiles[0].status !== 0) console.log(profiles[0].stderr.trim().split("\n").slice(-3).join("\n"));
console.log(`${f(median(wall))}  the whole process (spawn to exit, no profiler)`);
console.log(`${f(median(bare))}  a bare \`node -e 0\``);
console.log(`${f(profiled)}  profiled (from the profiler's start to the end), by origin:`);
for (const [origin, ms] of rows.slice(0, Number(values.top))) console.log(`${f(ms)}  ${origin}`);
