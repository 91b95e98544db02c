#!/usr/bin/env node
// `npm run bench`: how zoneform scales, measured against the emulator with a set latency per request.
// Prints, with each target and PASS/MISS: plans of 1, 10, 100 and 500 zones that use every section
// (requests made vs the minimum the file needs, wall time vs the lower bound, peak memory), applies of
// fresh zones, `validate` start-up vs bare Node, and `audit` of 10 000 and 50 000 scripts (time, peak
// memory, which must stay flat, and requests: ceil(n/100) list calls per Page Shield list). Runs the built code (dist/): the emulator and every zoneform
// command run in child processes, each command's peak RSS taken by scripts/bench/measure.mjs.
// Writes the figures into README.md between <!-- section:bench --> markers (skip with --no-readme).
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os, { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { startEmulator } from "./bench/emulator.mjs";
import { benchConfig, minimumApplyCalls, minimumReads, withCustomHostnames, zoneIdOf, zoneName, s3Destination } from "./bench/config.mjs";

const ROOT = new URL("..", import.meta.url).pathname;
const MEASURE = join(ROOT, "scripts/bench/measure.mjs");
const CLI = join(ROOT, "dist/cli/main.js");

// 50 ms per answer, about what the Cloudflare API takes; at 20 ms the CPU of each call (client and
// emulator share the machine, about 0.6 ms a call) weighs a quarter of the latency and is what is
// measured. The rate limit is scaled down so the whole bench takes a few minutes on two cores:
// Cloudflare's limit is 1200 per 300 s; 1200 per 10 s keeps the burst and makes a 500-zone plan
// cross the window twice.
const LATENCY_MS = Number(process.env.BENCH_LATENCY_MS ?? 50);
const RATE = { requests: 1200, seconds: 10 };
const PARALLELISM = 8;
const PLAN_SIZES = [1, 10, 100, 500];
const APPLY_SIZES = [1, 10];
const AUDIT_SIZES = [10_000, 50_000];
const WALL_TARGET = 1.2;
const VALIDATE_TARGET = 2;
const AUDIT_RSS_TARGET = 1.3;
/** The audit reads each Page Shield list 100 items a page. */
const AUDIT_PER_PAGE = 100;
const AUDIT_LISTS = ["scripts", "connections", "cookies"];

const TOTAL_ZONES = Math.max(...PLAN_SIZES);
const tmp = mkdtempSync(join(tmpdir(), "zoneform-bench-"));
const log = (line) => process.stderr.write(`${line}\n`);

/** Runs `zoneform argv` in a child process through measure.mjs. */
function measure(argv, env) {
  const out = join(tmp, `measure-${Math.random().toString(36).slice(2)}.json`);
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [MEASURE, ...argv], {
      stdio: ["ignore", "ignore", "pipe"],
      env: { ...process.env, ...env, BENCH_MEASURE_OUT: out, NO_COLOR: "1" },
    });
    let stderr = "";
    child.stderr.on("data", (d) => (stderr = (stderr + d).slice(-4000)));
    child.once("error", reject);
    child.once("exit", () => {
      try {
        const m = JSON.parse(readFileSync(out, "utf8"));
        resolve({ ...m, processMs: performance.now() - started, stderr });
      } catch {
        reject(new Error(`zoneform ${argv[0]} did not finish: ${stderr}`));
      }
    });
  });
}

function expectExit(m, codes, what) {
  if (!codes.includes(m.code)) throw new Error(`${what}: exit ${m.code}, expected ${codes.join(" or ")}\n${m.stderr}`);
}

/** Calls in the emulator's log since it was cleared: by method, and the 429s. */
async function requestStats(emu) {
  const reqs = await emu.admin("GET", "/requests");
  const stats = { total: reqs.length, get: 0, post: 0, write: 0, throttled: 0, failed: 0 };
  for (const r of reqs) {
    if (r.method === "GET") stats.get++;
    else if (r.method === "POST" && /\/logpush\/(validate|ownership)/.test(r.path)) stats.post++;
    else stats.write++;
    if (r.status === 429) stats.throttled++;
    else if (r.status >= 500 || r.status === 0) stats.failed++;
  }
  return stats;
}

/** A fresh measuring window: the emulator's rate counters and request log emptied. */
async function freshWindow(emu, latencyMs, rate) {
  await emu.admin("PUT", "/latency", { ms: latencyMs });
  await emu.admin("PUT", "/rate-limit", rate);
  await emu.admin("DELETE", "/requests");
}

const configFile = (from, to) => {
  const file = join(tmp, `zones-${from}-${to}.yaml`);
  writeFileSync(file, benchConfig(from, to));
  return file;
};

/**
 * The least time `requests` calls can take: `parallelism` in flight, each answered after the latency,
 * and the sliding window: the (k·N+1)-th call cannot be sent before k windows have passed, and the
 * calls after the last full window still take their share of latency.
 */
function lowerBoundMs(requests) {
  const windows = Math.floor(Math.max(0, requests - 1) / RATE.requests);
  const rest = requests - windows * RATE.requests;
  return windows * RATE.seconds * 1000 + (rest / PARALLELISM) * LATENCY_MS;
}

/** How many items each audited list holds (its total_count, with the audit's default filters). */
async function auditListSizes(emu, zone) {
  const sizes = {};
  for (const list of AUDIT_LISTS) {
    const res = await fetch(`${emu.url}/zones/${zone}/page_shield/${list}?per_page=1`, { headers: { authorization: "Bearer emulator-token" } });
    if (!res.ok) throw new Error(`GET ${list} of the audit zone: ${res.status}`);
    sizes[list] = (await res.json()).result_info.total_count;
  }
  return sizes;
}

/** The fewest calls an audit can make: ceil(n/100) per list, one at least. */
const auditMinimum = (sizes) => AUDIT_LISTS.reduce((n, list) => n + Math.max(1, Math.ceil(sizes[list] / AUDIT_PER_PAGE)), 0);

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ms = (v) => (v >= 10_000 ? `${(v / 1000).toFixed(1)} s` : `${Math.round(v)} ms`);
const mb = (kb) => `${(kb / 1024).toFixed(0)} MB`;
const verdict = (ok) => (ok ? "PASS" : "MISS");

async function main() {
  const started = performance.now();
  log(`bench: emulator (latency ${LATENCY_MS} ms, rate limit ${RATE.requests}/${RATE.seconds}s), ${TOTAL_ZONES} zones…`);
  const emu = await startEmulator();
  const rows = { plan: [], apply: [], audit: [], validate: undefined };
  try {
    // Zones, their custom hostnames and the ownership tokens of their S3 destinations.
    for (let i = 0; i < TOTAL_ZONES; i++) await emu.admin("POST", "/zones", { name: zoneName(i), plan: "enterprise" });
    await emu.admin("PUT", "/state", withCustomHostnames(await emu.admin("GET", "/state"), TOTAL_ZONES));
    const env = { CLOUDFLARE_API_TOKEN: "emulator-token", BENCH_AWS_KEY_ID: "AKIABENCH", BENCH_AWS_SECRET: "bench-secret", BENCH_DD_KEY: "bench-dd-key" };
    for (let i = 0; i < TOTAL_ZONES; i++) {
      const dest = encodeURIComponent(s3Destination(i).replace(/\?.*$/, ""));
      env[`BENCH_CHALLENGE_${i}`] = (await emu.admin("GET", `/ownership/${zoneIdOf(i)}?destination=${dest}`)).token;
    }
    const client = (rate = RATE, parallelism = PARALLELISM) => ["--api-url", emu.url, "--parallelism", String(parallelism), "--rate-limit", `${rate.requests}/${rate.seconds}`];

    // Applies of fresh zones (zone 0, then zones 1–10), with the latency.
    let next = 0;
    for (const n of APPLY_SIZES) {
      const file = configFile(next, next + n);
      next += n;
      await freshWindow(emu, LATENCY_MS, RATE);
      const m = await measure(["apply", "-c", file, "--auto-approve", ...client()], env);
      expectExit(m, [0], `apply of ${n} fresh zone(s)`);
      const s = await requestStats(emu);
      const min = minimumApplyCalls(n);
      const minimum = minimumReads(n) + min.checks + min.writes;
      // Inside a zone the checks and writes go one after another, after two rounds of reads.
      const bound = Math.max(lowerBoundMs(s.total), (2 + min.chain) * LATENCY_MS);
      rows.apply.push({ n, m, s, minimum, bound });
      log(`  apply ${n} fresh zone(s): ${s.total} requests, ${ms(m.wallMs)}`);
    }

    // Every zone in the desired state, fast (no latency, no limit): the plans below change nothing.
    await freshWindow(emu, 0, { requests: 1_000_000, seconds: 1 });
    const all = configFile(0, TOTAL_ZONES);
    log(`  converging ${TOTAL_ZONES} zones (not measured)…`);
    expectExit(await measure(["apply", "-c", all, "--auto-approve", ...client({ requests: 1_000_000, seconds: 1 }, 32)], env), [0], "setup apply");

    for (const n of PLAN_SIZES) {
      const file = n === TOTAL_ZONES ? all : configFile(0, n);
      await freshWindow(emu, LATENCY_MS, RATE);
      const m = await measure(["plan", "-c", file, "--detailed-exitcode", ...client()], env);
      expectExit(m, [0], `plan of ${n} zones (expected no changes)`);
      const s = await requestStats(emu);
      // The OWASP ruleset is read after the ruleset list names it: two rounds at least.
      const bound = Math.max(lowerBoundMs(s.total), 2 * LATENCY_MS);
      rows.plan.push({ n, m, s, minimum: minimumReads(n), bound });
      log(`  plan ${n} zone(s): ${s.total} requests, ${ms(m.wallMs)}`);
    }

    // Audit: a zone with a generated inventory, paged through by the CLI.
    const auditZone = (await emu.admin("POST", "/zones", { name: "bench-audit.example", plan: "enterprise" })).id;
    for (const scripts of AUDIT_SIZES) {
      await emu.admin("POST", "/inventory", { zone_id: auditZone, scripts, connections: 1000, cookies: 200, malicious_ratio: 0.02, seed: 7 });
      const sizes = await auditListSizes(emu, auditZone);
      await freshWindow(emu, LATENCY_MS, RATE);
      const m = await measure(["audit", "--zone", auditZone, "--format", "csv", "--fail-on", "none", ...client()], env);
      expectExit(m, [0], `audit of ${scripts} scripts`);
      const s = await requestStats(emu);
      rows.audit.push({ scripts, m, s, sizes, minimum: auditMinimum(sizes) });
      log(`  audit ${scripts} scripts: ${s.total} requests, ${ms(m.wallMs)}, ${mb(m.maxRssKB)}`);
    }
  } finally {
    await emu.close();
  }

  // validate start-up vs bare Node, interleaved so that machine load hits both alike.
  const validateArgs = [CLI, "validate", "-c", join(ROOT, "examples/full.yaml")];
  const bare = [];
  const val = [];
  for (let i = 0; i < 15; i++) {
    for (const [args, into] of [[["-e", "0"], bare], [validateArgs, val]]) {
      const t = performance.now();
      const r = spawnSync(process.execPath, args, { stdio: "ignore", env: { ...process.env, NO_COLOR: "1" } });
      into.push(performance.now() - t);
      if (r.status !== 0) throw new Error(`node ${args.join(" ")} exited ${r.status}`);
    }
  }
  rows.validate = { bare: median(bare), validate: median(val) };

  const report = render(rows, performance.now() - started);
  process.stdout.write(report.text);
  if (!process.argv.includes("--no-readme")) updateReadme(report.markdown);
  rmSync(tmp, { recursive: true, force: true });
}

function render(rows, totalMs) {
  const lines = [];
  const md = [];
  const add = (cells) => {
    lines.push(cells);
    md.push(`| ${cells.join(" | ")} |`);
  };
  const header = ["run", "requests (min)", "429s", "wall", "API phase", "lower bound", "peak RSS", "targets"];
  add(header);
  md.push(`|${header.map(() => "---").join("|")}|`);
  let misses = [];
  const runRow = (label, r, minimumText) => {
    const api = r.m.apiMs;
    const reqOk = r.s.total === r.minimum;
    const wallOk = api <= WALL_TARGET * r.bound;
    const noThrottle = r.s.throttled === 0;
    const t = [`requests = min ${verdict(reqOk)}`, `wall ≤ ${WALL_TARGET}× ${verdict(wallOk)}`, `no 429 ${verdict(noThrottle)}`];
    if (!reqOk) misses.push(`${label}: ${r.s.total} requests for a minimum of ${r.minimum}`);
    if (!wallOk) misses.push(`${label}: API phase ${ms(api)} over ${WALL_TARGET}× the lower bound ${ms(r.bound)}`);
    if (!noThrottle) misses.push(`${label}: ${r.s.throttled} answers 429`);
    add([label, `${r.s.total} (${minimumText})`, String(r.s.throttled), ms(r.m.wallMs), ms(api), ms(r.bound), mb(r.m.maxRssKB), t.join(", ")]);
  };
  for (const r of rows.plan) runRow(`plan, ${r.n} zone${r.n === 1 ? "" : "s"}`, r, `${r.minimum}: ${r.s.get} reads`);
  for (const r of rows.apply) runRow(`apply, ${r.n} fresh zone${r.n === 1 ? "" : "s"}`, r, `${r.minimum}: ${r.s.get} reads, ${r.s.post} checks, ${r.s.write} writes`);
  for (const r of rows.audit) {
    const label = `audit, ${r.scripts.toLocaleString("en")} scripts`;
    const reqOk = r.s.total === r.minimum;
    if (!reqOk) misses.push(`${label}: ${r.s.total} requests for a minimum of ${r.minimum} (ceil(n/100) per list)`);
    const pages = AUDIT_LISTS.map((list) => `${Math.max(1, Math.ceil(r.sizes[list] / AUDIT_PER_PAGE))} ${list}`).join(", ");
    add([label, `${r.s.total} (${r.minimum}: ${pages})`, String(r.s.throttled), ms(r.m.wallMs), "", "", mb(r.m.maxRssKB), `requests = min ${verdict(reqOk)}`]);
  }
  const [small, big] = rows.audit;
  const flat = big.m.maxRssKB <= AUDIT_RSS_TARGET * small.m.maxRssKB;
  if (!flat) misses.push(`audit: peak RSS ${mb(big.m.maxRssKB)} at ${big.scripts} scripts vs ${mb(small.m.maxRssKB)} at ${small.scripts}`);
  add(["audit memory flat", "", "", "", "", "", `×${(big.m.maxRssKB / small.m.maxRssKB).toFixed(2)}`, `≤ ${AUDIT_RSS_TARGET}× ${verdict(flat)}`]);
  const ratio = rows.validate.validate / rows.validate.bare;
  const fast = ratio <= VALIDATE_TARGET;
  if (!fast) misses.push(`validate start-up ${ms(rows.validate.validate)} is ${ratio.toFixed(2)}× bare Node (${ms(rows.validate.bare)})`);
  add(["validate start-up", "", "", ms(rows.validate.validate), "", `node -e 0: ${ms(rows.validate.bare)}`, "", `×${ratio.toFixed(2)} ≤ ${VALIDATE_TARGET}× ${verdict(fast)}`]);

  const widths = header.map((_, i) => Math.max(...lines.map((l) => (l[i] ?? "").length)));
  const text = [
    `zoneform bench: latency ${LATENCY_MS} ms per request, parallelism ${PARALLELISM}, rate limit ${RATE.requests}/${RATE.seconds}s (client and emulator), node ${process.version}, ${ms(totalMs)} in all`,
    "",
    ...lines.map((l) => l.map((c, i) => (c ?? "").padEnd(widths[i])).join("  ").trimEnd()),
    "",
    misses.length ? `Missed: \n${misses.map((m) => `  - ${m}`).join("\n")}` : "All targets met.",
    "",
  ].join("\n");
  const markdown = [
    `Latest \`npm run bench\` (${new Date().toISOString().slice(0, 10)}, node ${process.version}, ${cpuLine()}): latency ${LATENCY_MS} ms per request, parallelism ${PARALLELISM}, rate limit ${RATE.requests} per ${RATE.seconds} s on both the client (\`--rate-limit\`) and the emulator.`,
    "",
    ...md,
    "",
    misses.length ? `Missed:\n\n${misses.map((m) => `- ${m}`).join("\n")}` : "All targets met.",
  ].join("\n");
  return { text, markdown };
}

function cpuLine() {
  const cpus = os.cpus();
  return `${cpus.length} × ${cpus[0]?.model.trim() ?? "unknown CPU"}, load ${os.loadavg()[0].toFixed(1)}`;
}

const START = "<!-- section:bench -->";
const END = "<!-- /section:bench -->";

/** Puts the figures between the bench markers; adds a Performance section before the client section if absent. */
function updateReadme(markdown) {
  const file = join(ROOT, "README.md");
  let text = readFileSync(file, "utf8");
  const block = `${START}\n${markdown}\n${END}`;
  if (text.includes(START) && text.includes(END)) {
    text = text.slice(0, text.indexOf(START)) + block + text.slice(text.indexOf(END) + END.length);
  } else {
    const anchor = text.indexOf("<!-- section:client -->");
    const section = `## Performance\n\n${PERFORMANCE_INTRO}\n\n${block}\n\n`;
    text = anchor >= 0 ? text.slice(0, anchor) + section + text.slice(anchor) : `${text}\n${section}`;
  }
  writeFileSync(file, text);
}

const PERFORMANCE_INTRO = `\`npm run bench\` builds zoneform and measures it against the emulator (\`scripts/bench.mjs\`): plans
of 1 to 500 zones that use every section (each zone already in the desired state, as in a cron
\`drift\` run), applies of fresh zones, \`validate\` start-up and \`audit\` of a large Page Shield inventory.
The targets: as many requests as the file needs (one read per owned collection per zone, the managed
rulesets once per run, and for an apply the destination checks and one write per change); the API
phase (from the first request sent to the last answer) within 1.2× the lower bound (requests ÷
parallelism × latency, plus the rate limit's floor of one window per full budget; for an apply, at
least the chain of calls that must follow one another in a zone); no 429 when the emulator's limit
equals the client's; \`validate\` within 2× the start-up of bare Node; \`audit\` memory flat in the
number of scripts, reading each Page Shield list in ceil(n/100) calls. Wall time is the whole command (loading the CLI, reading the file, rendering)
without Node's own start-up; peak RSS is the command's process.

Where a figure misses, the reasons are structural: a 1-zone plan is two rounds of calls (the OWASP
ruleset is read after the list that names it) plus the CPU of a cold process, about 30 ms; an apply
plans every zone before its first write (the plan is shown and its safety checked first) and makes a
zone's calls one at a time, so a few zones cannot fill every request slot; \`validate\` loads the
\`yaml\` package and \`commander\` (about 0.5× of bare Node's start-up together) and reads and checks the
file, with the schema precompiled at build time (\`scripts/build-schema-validator.mjs\`) and no other
command's modules loaded. Figures vary with the machine's load: run \`npm run bench\` on a quiet one.`;

main().catch((err) => {
  process.stderr.write(`bench failed: ${err.stack ?? err}\n`);
  process.exitCode = 1;
});
