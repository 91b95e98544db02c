// Where a zoneform command's time goes, by the module it was spent in (issue 39): `node dist/cli/zoneform.js …`
// under V8's sampling profiler (`--cpu-prof`), every sample of the bundle mapped back to its source through the
// bundle's source maps (node:module SourceMap, the lines the profile says ran), and the self time added up per
// origin: a package of node_modules, a file of src/, Node's own module loader and the rest of Node, garbage
// collection, V8's compiling and native code, and idle time (waiting for I/O). scripts/module-cost.mjs prints it;
// the bench names what a missed start-up target spends.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { SourceMap } from "node:module";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import process from "node:process";

const ROOT = new URL("../..", import.meta.url).pathname;
export const CLI = join(ROOT, "dist/cli/zoneform.js");

export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? 0 : s[Math.floor((s.length - 1) / 2)];
};

function timed(args, env) {
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
  if (/^dist\/cli\/bundle-\w+\.js$/.test(rel)) return "(the bundler's glue)";
  // tsc's output, one file per source file: named by its source.
  return rel.replace(/^dist\/(.*)\.js$/, "src/$1.ts");
}

/** Self time (ms) by origin of one profile. */
function selfTimes(profile) {
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
  return self;
}

/**
 * Profiles `node dist/cli/zoneform.js …args` `runs` times (after one run that fills Node's compile cache, as a
 * user's second run finds it), with `env`: the whole process's wall time (median, unprofiled runs interleaved
 * with a bare `node -e 0`), its exit code, and the median self time of each origin, largest first.
 */
export function profileCommand(args, { runs = 7, env = process.env } = {}) {
  const dir = mkdtempSync(join(tmpdir(), "zoneform-profile-"));
  try {
    timed([CLI, ...args], env);
    const bare = [];
    const wall = [];
    for (let i = 0; i < runs; i++) {
      bare.push(timed(["-e", "0"], env).ms);
      wall.push(timed([CLI, ...args], env).ms);
    }
    const profiles = [];
    let first;
    for (let i = 0; i < runs; i++) {
      const out = join(dir, String(i));
      const r = timed(["--cpu-prof", "--cpu-prof-interval", "50", "--cpu-prof-dir", out, CLI, ...args], env);
      first ??= r;
      const [file] = readdirSync(out).filter((f) => f.endsWith(".cpuprofile"));
      const profile = JSON.parse(readFileSync(join(out, file), "utf8"));
      profiles.push({ self: selfTimes(profile), ms: (profile.endTime - profile.startTime) / 1000 });
    }
    const origins = new Set(profiles.flatMap((p) => [...p.self.keys()]));
    return {
      status: first.status,
      stderr: first.stderr,
      wallMs: median(wall),
      bareMs: median(bare),
      profiledMs: median(profiles.map((p) => p.ms)),
      origins: [...origins]
        .map((o) => [o, median(profiles.map((p) => p.self.get(o) ?? 0))])
        .sort((a, b) => b[1] - a[1]),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
