#!/usr/bin/env node
// `npm run bench`: zoneform at its physical limits, measured against the emulator (issue 18). Every
// figure is a whole command, `node dist/cli/zoneform.js …` spawned as a user runs it (start-up and exit
// included), next to bare `node -e 0` measured in the same run. Prints one table, each figure with its
// limit or target and PASS/MISS:
//   - reads per plan vs the file's minimum (6 per zone + 1 with every section: see readsOf);
//   - plan wall, 44 and 500 zones at 25 and 80 ms, vs the bound ceil(reads / parallelism) × RTT + RTT
//     (wall less bare Node's start, which zoneform cannot change);
//   - a cold 1-zone plan, `validate` start-up, client CPU per request, the 500-zone file's parse;
//   - a 1-zone apply of a fresh zone: its calls (Cloudflare's checks, the dry runs, counted apart) vs its
//     dependent rounds × RTT + RTT;
//   - a rate-limited plan (limit 120/30 s on client and emulator) vs its floor, and its 429s;
//   - an estate of 3 accounts × 50 zones, each account's token limited to 120/30 s on the emulator and
//     the client: a plan's wall vs the floor of the slowest account (not of the sum), its 429s and reads;
//   - the same reads made by a plain sequential client: the official `cloudflare` SDK (dev dependency);
//   - `audit` of 10 000 and 50 000 scripts (requests ceil(n/100) per list, memory flat).
// Writes the table into docs/performance.md (README.md without it) between the <!-- section:bench -->
// markers, and a few headline lines into README.md between <!-- section:bench-summary -->; skip
// both with --no-readme.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os, { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { parse } from "yaml";
import { startEmulator } from "./bench/emulator.mjs";
import { writeFloorPrograms } from "./bench/floors.mjs";
import { profileCommand } from "./bench/profile.mjs";
import {
  benchConfig,
  ESTATE_ACCOUNTS,
  estateConfig,
  estateReadsOf,
  readsOf,
  withCustomHostnames,
  zoneIdOf,
  s3Destination,
  zoneName,
} from "./bench/config.mjs";

const ROOT = new URL("..", import.meta.url).pathname;
const CLI = join(ROOT, "dist/cli/zoneform.js");
const USAGE = join(ROOT, "scripts/bench/usage.mjs");
const MEASURE = join(ROOT, "scripts/bench/measure.mjs");
const SDK_PLAN = join(ROOT, "scripts/bench/sdk-plan.mjs");

const SDK_VERSION = JSON.parse(readFileSync(join(ROOT, "node_modules/cloudflare/package.json"), "utf8")).version;
const PARALLELISM = 8;
const LATENCIES = [25, 80];
const PLAN_SIZES = [44, 500];
/** Client and emulator limit where the rate limit must not be what is measured. */
const UNLIMITED = { requests: 1_000_000, seconds: 1 };
/** The rate-limited run: Cloudflare's limit scaled down (1200/300 s → 120/30 s) over about 310 reads. */
const RATE_LIMITED = { requests: 120, seconds: 30, zones: 52, latencyMs: 25 };
/** The estate run: accounts of ESTATE_ZONES zones, each token held to the rate-limited run's limit. */
const ESTATE_ZONES = 50;
const AUDIT_SIZES = [10_000, 50_000];
const AUDIT_PER_PAGE = 100;
const AUDIT_LISTS = ["scripts", "connections", "cookies"];
const STARTUP_RUNS = 15;

/**
 * The dependent rounds a fresh zone with every section needs (see the apply row): 5, and one more for Cloudflare's
 * checks of its ruleset writes (dry runs, all at once, before the first write).
 */
const APPLY_MIN_ROUNDS = 6;
const TARGET = {
  wall: 1.1,
  apply: 1.2,
  validate: 1.5,
  cpuPerRequestMs: 0.2,
  rateLimited: 1.02,
  auditRss: 1.3,
  estate: 1.1,
};

const TOTAL_ZONES = Math.max(...PLAN_SIZES, RATE_LIMITED.zones);
const tmp = mkdtempSync(join(tmpdir(), "zoneform-bench-"));
const log = (line) => process.stderr.write(`${line}\n`);

/**
 * Runs `node …args` to its exit: wall time (spawn to exit), exit code, stdout, stderr's tail, and CPU/RSS when
 * preloaded.
 */
function run(args, { env = {}, usage = false } = {}) {
  const out = join(tmp, `usage-${Math.random().toString(36).slice(2)}.json`);
  const argv = usage ? ["--import", USAGE, ...args] : args;
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, argv, {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, ...env, NO_COLOR: "1", ...(usage ? { BENCH_USAGE_OUT: out } : {}) },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout = (stdout + d).slice(-4000)));
    child.stderr.on("data", (d) => (stderr = (stderr + d).slice(-4000)));
    child.once("error", reject);
    child.once("exit", (code) => {
      const wallMs = performance.now() - started;
      let u = {};
      if (usage) {
        try {
          u = JSON.parse(readFileSync(out, "utf8"));
        } catch {
          /* killed before exit */
        }
      }
      resolve({ code, wallMs, stdout, stderr, ...u });
    });
  });
}

const zoneform = (argv, opts) => run([CLI, ...argv], opts);

function expectExit(r, codes, what) {
  if (!codes.includes(r.code)) throw new Error(`${what}: exit ${r.code}, expected ${codes.join(" or ")}\n${r.stderr}`);
}

/**
 * Calls in the emulator's log since it was cleared: by kind (reads, Logpush checks, Cloudflare's checks of the
 * ruleset writes sent with `?dry_run=true`, writes), and the 429s.
 */
async function requestStats(emu) {
  const reqs = await emu.admin("GET", "/requests");
  const stats = { total: reqs.length, get: 0, post: 0, dry: 0, write: 0, throttled: 0, failed: 0 };
  for (const r of reqs) {
    if (r.method === "GET") stats.get++;
    else if (r.method === "POST" && /\/logpush\/(validate|ownership)/.test(r.path)) stats.post++;
    else if (r.query?.dry_run === "true") stats.dry++;
    else stats.write++;
    if (r.status === 429) stats.throttled++;
    else if (r.status >= 500 || r.status === 0) stats.failed++;
  }
  return stats;
}

/** A fresh measuring window: latency and rate limit set, the emulator's counters and log emptied. */
async function freshWindow(emu, latencyMs, rate = UNLIMITED) {
  await emu.admin("PUT", "/latency", { ms: latencyMs });
  await emu.admin("PUT", "/rate-limit", { requests: rate.requests, seconds: rate.seconds });
  await emu.admin("DELETE", "/requests");
}

const configFile = (from, to) => {
  const file = join(tmp, `zones-${from}-${to}.yaml`);
  writeFileSync(file, benchConfig(from, to));
  return file;
};

/** The file's minimum reads, computed from the file itself. */
const minimumReads = (file, opts) => readsOf(parse(readFileSync(file, "utf8")), opts).length;

/** The latency bound: `parallelism` calls in flight, each answered after one RTT, plus one dependent round. */
const latencyBound = (reads, rttMs) => Math.ceil(reads / PARALLELISM) * rttMs + rttMs;

/** The rate limit's floor: the (k·N+1)-th call cannot be sent before k windows have passed. */
function rateFloor(reads, rate, rttMs) {
  const windows = Math.floor(Math.max(0, reads - 1) / rate.requests);
  return windows * rate.seconds * 1000 + latencyBound(reads - windows * rate.requests, rttMs);
}

/** How many items each audited list holds (its total_count, with the audit's default filters). */
async function auditListSizes(emu, zone) {
  const sizes = {};
  for (const list of AUDIT_LISTS) {
    const res = await fetch(`${emu.url}/zones/${zone}/page_shield/${list}?per_page=1`, {
      headers: { authorization: "Bearer emulator-token" },
    });
    if (!res.ok) throw new Error(`GET ${list} of the audit zone: ${res.status}`);
    sizes[list] = (await res.json()).result_info.total_count;
  }
  return sizes;
}

/** The fewest calls an audit can make: ceil(n/100) per list, one at least. */
const auditMinimum = (sizes) =>
  AUDIT_LISTS.reduce((n, list) => n + Math.max(1, Math.ceil(sizes[list] / AUDIT_PER_PAGE)), 0);

/** Runs a command through measure.mjs, which records its peak RSS and its API phase (first call to last answer). */
function measured(argv, env) {
  const out = join(tmp, `measure-${Math.random().toString(36).slice(2)}.json`);
  return run([MEASURE, ...argv], { env: { ...env, BENCH_MEASURE_OUT: out } }).then((r) => ({
    ...r,
    ...JSON.parse(readFileSync(out, "utf8")),
  }));
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ms = (v) => (v >= 10_000 ? `${(v / 1000).toFixed(1)} s` : `${Math.round(v)} ms`);
const mb = (kb) => `${(kb / 1024).toFixed(0)} MB`;
/**
 * A ratio, to two decimals; against a target (`limit`), to as many more as tell the two apart, so that a figure
 * never reads as its limit on the wrong side of the PASS/MISS (1.3037 against 1.3 is "1.304×", not "1.30×").
 */
const x = (v, limit) => {
  let digits = 2;
  while (limit !== undefined && digits < 5 && v !== limit && Number(v.toFixed(digits)) === limit) digits++;
  return `${v.toFixed(digits)}×`;
};

/** The variables examples/full.yaml names: set, its `validate` is clean; unset, it warns (with positions). */
const EXAMPLE_ENV = {
  AWS_KEY_ID: "AKIAEXAMPLE",
  AWS_SECRET: "example-secret",
  LOGPUSH_CHALLENGE: "example-challenge",
  DATADOG_API_KEY: "example-dd-key",
};

/**
 * Bare Node and `validate` of examples/full.yaml, interleaved so that machine load hits all alike:
 * with the file's variables set (a clean file: the start-up figure) and unset (four warnings). The
 * first run fills Node's compile cache (where NODE_COMPILE_CACHE says, else the system's temporary
 * directory), which the others read, as a user's second run does.
 */
async function startup(floors, runs = STARTUP_RUNS) {
  const bare = [];
  const validate = [];
  const warned = [];
  const yamlAlone = [];
  const example = join(ROOT, "examples/full.yaml");
  for (let i = 0; i < runs; i++) {
    bare.push((await run(["-e", "0"])).wallMs);
    const y = await run([floors.yaml, example]);
    expectExit(y, [0], "the yaml package's parse of examples/full.yaml alone");
    yamlAlone.push(y.wallMs);
    const v = await zoneform(["validate", "-c", example], { env: EXAMPLE_ENV });
    expectExit(v, [0], "validate examples/full.yaml");
    if (v.stderr.trim() !== "")
      throw new Error(`validate of examples/full.yaml with its variables set was not clean:\n${v.stderr}`);
    validate.push(v.wallMs);
    const w = await zoneform(["validate", "-c", example]);
    expectExit(w, [0], "validate examples/full.yaml without its variables");
    warned.push(w.wallMs);
  }
  const profile = profileCommand(["validate", "-c", example], { runs: 5, env: profileEnv(EXAMPLE_ENV) });
  return {
    bare: median(bare),
    validate: median(validate),
    warned: median(warned),
    yamlAlone: median(yamlAlone),
    profile,
  };
}

/** The environment a profiled command runs with: the bench's own, and `env`. */
const profileEnv = (env) => ({ ...process.env, ...env, NO_COLOR: "1" });

/** The largest origins of a profile (scripts/bench/profile.mjs), in words: "yaml 14 ms, node: the rest 9 ms, …". */
const topOrigins = (profile, n = 6, scale = 1) =>
  profile.origins
    .filter(([o]) => !o.startsWith("(idle"))
    .slice(0, n)
    .map(([o, v]) => `${o} ${(v * scale).toFixed(scale === 1 ? 0 : 3)} ms`)
    .join(", ");

/** A plan run's timeline (scripts/bench/usage.mjs), in words, from its process's start. */
const timeline = (r) =>
  `first request at ${ms(r.firstRequestMs)}, last answer at ${ms(r.lastAnswerMs)}, exit at ${ms(r.exitMs)}`;

async function main() {
  const started = performance.now();
  const rows = [];
  const misses = [];
  /**
   * One line of the table: figure, measured, limit or target, verdict (PASS, MISS or "" for a figure with no target).
   */
  const add = (figure, measured, target, ok, why) => {
    rows.push([figure, measured, target, ok === undefined ? "" : ok ? "PASS" : "MISS"]);
    if (ok === false) misses.push(`${figure}: ${measured} (target ${target})${why ? `: ${why}` : ""}`);
  };

  const floorPrograms = await writeFloorPrograms(tmp);
  log(`bench: start-up (${STARTUP_RUNS} runs each of node -e 0, the yaml package alone and validate)…`);
  const boot = await startup(floorPrograms);
  log(`  node -e 0 ${ms(boot.bare)}, validate ${ms(boot.validate)}`);

  log(`bench: emulator, ${TOTAL_ZONES} zones…`);
  const emu = await startEmulator();
  const figures = { plans: [] };
  try {
    for (let i = 0; i < TOTAL_ZONES; i++) await emu.admin("POST", "/zones", { name: zoneName(i), plan: "enterprise" });
    await emu.admin("PUT", "/state", withCustomHostnames(await emu.admin("GET", "/state"), TOTAL_ZONES));
    const env = {
      CLOUDFLARE_API_TOKEN: "emulator-token",
      BENCH_AWS_KEY_ID: "AKIABENCH",
      BENCH_AWS_SECRET: "bench-secret",
      BENCH_DD_KEY: "bench-dd-key",
    };
    for (let i = 0; i < TOTAL_ZONES; i++) {
      const dest = encodeURIComponent(s3Destination(i).replace(/\?.*$/, ""));
      env[`BENCH_CHALLENGE_${i}`] = (await emu.admin("GET", `/ownership/${zoneIdOf(i)}?destination=${dest}`)).token;
    }
    const client = (rate = UNLIMITED, parallelism = PARALLELISM) => [
      "--api-url",
      emu.url,
      "--parallelism",
      String(parallelism),
      "--rate-limit",
      `${rate.requests}/${rate.seconds}`,
    ];

    // A 1-zone apply of a fresh zone (zone 0) at 25 ms: how many rounds it takes.
    const applyFile = configFile(0, 1);
    await freshWindow(emu, LATENCIES[0]);
    const apply = await measured(["apply", "-c", applyFile, "--auto-approve", ...client()], env);
    expectExit(apply, [0], "apply of a fresh zone");
    figures.apply = { r: apply, s: await requestStats(emu), minReads: minimumReads(applyFile, { deploying: true }) };
    log(`  apply 1 fresh zone: ${figures.apply.s.total} requests, ${ms(apply.wallMs)}`);

    // Every zone in the desired state, fast: the plans below change nothing (as a cron drift run).
    await freshWindow(emu, 0);
    const all = configFile(0, TOTAL_ZONES);
    log(`  converging ${TOTAL_ZONES} zones (not measured)…`);
    expectExit(
      await zoneform(["apply", "-c", all, "--auto-approve", ...client(UNLIMITED, 32)], { env }),
      [0],
      "setup apply",
    );

    const files = new Map();
    const fileOf = (n) => files.get(n) ?? (files.set(n, configFile(0, n)), files.get(n));
    for (const [n, latency] of [[1, LATENCIES[0]], ...PLAN_SIZES.flatMap((n) => LATENCIES.map((l) => [n, l]))]) {
      const file = fileOf(n);
      const min = minimumReads(file);
      // The short runs are repeated and the median run kept (a second of a busy machine decides
      // nothing); every run must make exactly the file's reads.
      const runs = [];
      for (let i = 0; i < (n === 1 ? 5 : n <= PLAN_SIZES[0] ? 3 : 1); i++) {
        await freshWindow(emu, latency);
        const r = await zoneform(["plan", "-c", file, "--detailed-exitcode", ...client()], { env, usage: true });
        expectExit(r, [0], `plan of ${n} zones (expected no changes)`);
        runs.push({ r, s: await requestStats(emu) });
      }
      const { r, s } = [...runs].sort((a, b) => a.r.wallMs - b.r.wallMs)[Math.floor(runs.length / 2)];
      if (runs.some((run) => run.s.total !== s.total))
        throw new Error(`plan of ${n} zones: the runs made ${runs.map((run) => run.s.total).join(", ")} requests`);
      figures.plans.push({ n, latency, r, s, min, bound: latencyBound(min, latency), runs: runs.length });
      log(
        `  plan ${n} zone(s) @ ${latency} ms: ${s.total} requests (min ${min}), ` +
          `${ms(r.wallMs)}${runs.length > 1 ? ` (median of ${runs.length})` : ""}`,
      );
    }

    // The rate-limited run: client and emulator at 120 per 30 s.
    {
      const file = fileOf(RATE_LIMITED.zones);
      await freshWindow(emu, RATE_LIMITED.latencyMs, RATE_LIMITED);
      log(`  rate-limited plan (${RATE_LIMITED.requests}/${RATE_LIMITED.seconds} s), about a minute…`);
      const r = await zoneform(["plan", "-c", file, "--detailed-exitcode", ...client(RATE_LIMITED)], { env });
      expectExit(r, [0], "rate-limited plan");
      const s = await requestStats(emu);
      figures.limited = { r, s, floor: rateFloor(s.total, RATE_LIMITED, RATE_LIMITED.latencyMs) };
    }

    // The estate: 3 accounts × 50 zones, a token each, each token at 120 per 30 s on both sides.
    {
      const file = join(tmp, "estate.yaml");
      writeFileSync(file, estateConfig(ESTATE_ZONES));
      const tokenEnv = Object.fromEntries(ESTATE_ACCOUNTS.map((a) => [a.variable, a.token]));
      for (const a of ESTATE_ACCOUNTS) {
        await emu.admin("POST", "/accounts", {
          account_id: a.id,
          token: a.token,
          token_name: a.variable,
          zones: ESTATE_ZONES,
          domain: a.domain,
        });
      }
      await freshWindow(emu, 0);
      log(`  converging the estate, ${ESTATE_ACCOUNTS.length} × ${ESTATE_ZONES} zones (not measured)…`);
      expectExit(
        await zoneform(["apply", "-c", file, "--auto-approve", ...client(UNLIMITED, 32)], {
          env: { ...env, ...tokenEnv },
        }),
        [0],
        "estate setup apply",
      );
      // Each account's token held to its own limit; PUT rate-limit (in freshWindow) empties the counters.
      for (const a of ESTATE_ACCOUNTS) {
        await emu.admin("PUT", "/tokens", {
          token: a.token,
          name: a.variable,
          account_id: a.id,
          rate_limit: { requests: RATE_LIMITED.requests, seconds: RATE_LIMITED.seconds },
        });
      }
      await freshWindow(emu, RATE_LIMITED.latencyMs);
      log(`  estate plan (${RATE_LIMITED.requests}/${RATE_LIMITED.seconds} s per token), about half a minute…`);
      const r = await zoneform(["plan", "-c", file, "--detailed-exitcode", ...client(RATE_LIMITED)], {
        env: { ...env, ...tokenEnv },
      });
      expectExit(r, [0], "estate plan (expected no changes)");
      const s = await requestStats(emu);
      const reads = estateReadsOf(parse(readFileSync(file, "utf8")));
      const floors = [...reads.values()].map((n) => rateFloor(n, RATE_LIMITED, RATE_LIMITED.latencyMs));
      const min = [...reads.values()].reduce((a, b) => a + b, 0);
      figures.estate = {
        r,
        s,
        min,
        floor: Math.max(...floors),
        sumFloor: rateFloor(min, RATE_LIMITED, RATE_LIMITED.latencyMs),
      };
      log(`  estate plan: ${s.total} requests (min ${min}), ${ms(r.wallMs)}, ${s.throttled} × 429`);
    }

    // The plain sequential client (the official SDK): the same reads, one at a time.
    figures.sdk = [];
    for (const latency of LATENCIES) {
      const n = PLAN_SIZES[0];
      await freshWindow(emu, latency);
      const r = await run([SDK_PLAN, emu.url, fileOf(n)], { env });
      expectExit(r, [0], "the SDK's sequential reads");
      figures.sdk.push({ n, latency, r, s: await requestStats(emu) });
      log(`  cloudflare SDK, sequential, ${n} zones @ ${latency} ms: ${ms(r.wallMs)}`);
    }

    // Audit of a generated inventory (the CLI pages through it), with its peak memory.
    figures.audit = [];
    const auditZone = (await emu.admin("POST", "/zones", { name: "bench-audit.example", plan: "enterprise" })).id;
    for (const scripts of AUDIT_SIZES) {
      await emu.admin("POST", "/inventory", {
        zone_id: auditZone,
        scripts,
        connections: 1000,
        cookies: 200,
        malicious_ratio: 0.02,
        seed: 7,
      });
      const sizes = await auditListSizes(emu, auditZone);
      await freshWindow(emu, 50);
      const m = await measured(
        [
          "audit",
          "--zone",
          auditZone,
          "--format",
          "csv",
          "--fail-on",
          "none",
          ...client({ requests: 1200, seconds: 10 }),
        ],
        env,
      );
      expectExit(m, [0], `audit of ${scripts} scripts`);
      figures.audit.push({ scripts, m, s: await requestStats(emu), sizes, min: auditMinimum(sizes) });
      log(`  audit ${scripts} scripts: ${ms(m.wallMs)}, ${mb(m.maxRssKB)}`);
    }

    // The 500-zone file: validate (parse and checks, no network) against validate of the example; and what
    // loading each plan's file costs (validate's CPU), which the CPU per request leaves out.
    const big = await zoneform(["validate", "-c", fileOf(PLAN_SIZES[1])], { env, usage: true });
    expectExit(big, [0], "validate of the 500-zone file");
    figures.bigValidate = { r: big, kb: readFileSync(fileOf(PLAN_SIZES[1])).length / 1024 };
    figures.fileCpu = {};
    for (const n of PLAN_SIZES) {
      const runs = [];
      for (let i = 0; i < 3; i++)
        runs.push((await zoneform(["validate", "-c", fileOf(n)], { env, usage: true })).cpuMs);
      figures.fileCpu[n] = median(runs);
    }
    // Node with the yaml package alone parsing each plan's file (scripts/bench/floors.mjs): a floor of its start.
    figures.yamlAlone = {};
    for (const n of [1, ...PLAN_SIZES]) {
      const runs = [];
      for (let i = 0; i < 3; i++) {
        const y = await run([floorPrograms.yaml, fileOf(n)]);
        expectExit(y, [0], `the yaml package's parse of the ${n}-zone file alone`);
        runs.push(y.wallMs);
      }
      figures.yamlAlone[n] = median(runs);
    }

    // Where the time of the misses goes, measured: CPU profiles of the cold plan and of the 500-zone plan without
    // latency (scripts/bench/profile.mjs; the same as scripts/module-cost.mjs prints).
    await freshWindow(emu, LATENCIES[0]);
    figures.coldProfile = profileCommand(["plan", "-c", fileOf(1), ...client()], { runs: 5, env: profileEnv(env) });
    // The CPU per request of the HTTP clients alone, at the plans' latency and parallelism (scripts/bench/floors.mjs).
    figures.httpFloor = {};
    for (const c of ["undici", "node:http"]) {
      await freshWindow(emu, LATENCIES[0]);
      const f = await run([floorPrograms.http, c, emu.url, env.CLOUDFLARE_API_TOKEN, String(PARALLELISM), "400"]);
      expectExit(f, [0], `${c} alone`);
      figures.httpFloor[c] = JSON.parse(f.stdout).cpuMsPerRequest;
    }
    await freshWindow(emu, 0);
    figures.bigProfile = profileCommand(["plan", "-c", fileOf(PLAN_SIZES[1]), ...client()], {
      runs: 1,
      env: profileEnv(env),
    });
  } finally {
    await emu.close();
  }

  // ---- the verdicts ----
  const bare = boot.bare;
  const plan = (n, latency) => figures.plans.find((p) => p.n === n && p.latency === latency);
  for (const n of PLAN_SIZES) {
    const p = plan(n, LATENCIES[0]);
    add(
      `reads per plan, ${n} zones`,
      `${p.s.total} (${p.s.get} GET)`,
      `${p.min} = 6 per zone + 1`,
      p.s.total === p.min,
    );
  }
  for (const n of PLAN_SIZES) {
    for (const latency of LATENCIES) {
      const p = plan(n, latency);
      const ratio = (p.r.wallMs - bare) / p.bound;
      add(
        `plan wall, ${n} zones @ ${latency} ms`,
        `${ms(p.r.wallMs)}: ${x(ratio, TARGET.wall)} the bound${p.runs > 1 ? ` (median of ${p.runs})` : ""}`,
        `≤ ${TARGET.wall}× of ${ms(p.bound)} (+ node ${ms(bare)})`,
        ratio <= TARGET.wall && p.s.throttled === 0,
        `${timeline(p.r)} (bare node: ${ms(bare)}): ${ms(p.r.firstRequestMs - bare)} of start before the first ` +
          `request (Node with the yaml package alone parsing this file: ${ms(figures.yamlAlone[n])}), ` +
          `the calls ${ms(p.r.lastAnswerMs - p.r.firstRequestMs)} against their ` +
          `${ms(p.bound - latency)} of rounds (${x((p.r.lastAnswerMs - p.r.firstRequestMs) / (p.bound - latency))}: ` +
          `each answer's CPU, zoneform's and the emulator's on the same 2 cores, lengthens the rounds), and ` +
          `${ms(p.r.exitMs - p.r.lastAnswerMs)} after the last answer`,
      );
    }
  }
  const cold = plan(1, LATENCIES[0]);
  add(
    "cold 1-zone plan @ 25 ms",
    `${ms(cold.r.wallMs)} (${cold.s.total} reads; median of ${cold.runs})`,
    `≤ node ${ms(bare)} + ${TARGET.wall}× ${ms(cold.bound)} = ${ms(bare + TARGET.wall * cold.bound)}`,
    cold.r.wallMs <= bare + TARGET.wall * cold.bound,
    `${timeline(cold.r)}: ${ms(cold.r.firstRequestMs - bare)} after bare Node's start before the first request ` +
      `(Node with the yaml package alone parsing this file: ${ms(figures.yamlAlone[1])}) ` +
      `and ${ms(cold.r.exitMs - cold.r.lastAnswerMs)} after the last answer; its CPU by origin (a profile, ` +
      `medians of ${5}): ${topOrigins(figures.coldProfile, 8)}`,
  );
  const vRatio = boot.validate / bare;
  add(
    "validate start-up (examples/full.yaml, its variables set)",
    `${ms(boot.validate)}: ${x(vRatio, TARGET.validate)} node -e 0 (${ms(bare)})`,
    `≤ ${TARGET.validate}×`,
    vRatio <= TARGET.validate,
    `${ms(boot.validate - TARGET.validate * bare)} over; Node with the yaml package alone, loading it and parsing ` +
      `this file as validate does (scripts/bench/floors.mjs), takes ${ms(boot.yamlAlone)}: ` +
      `${x(boot.yamlAlone / bare)} node -e 0; validate's CPU by origin (a profile, medians of 5): ` +
      topOrigins(boot.profile, 8),
  );
  add(
    "validate, variables unset (4 warnings)",
    `${ms(boot.warned)}: ${x(boot.warned / bare)} node -e 0`,
    "the same, and four warnings printed",
  );
  // CPU: the 500-zone plan's less the 44-zone plan's, per extra request, at each latency. At 80 ms the
  // same work costs more CPU (the process sleeps between answers: cold caches, a slower clock).
  // Each plan's CPU less what loading its file costs (`validate` of it: parse and checks, a cost per file, not per
  // request), then the 500-zone plan's less the 44-zone plan's, per extra request.
  const cpuAt = (latency, withFile = false) => {
    const small = plan(PLAN_SIZES[0], latency);
    const large = plan(PLAN_SIZES[1], latency);
    const file = withFile ? 0 : figures.fileCpu[PLAN_SIZES[1]] - figures.fileCpu[PLAN_SIZES[0]];
    return (large.r.cpuMs - small.r.cpuMs - file) / (large.s.total - small.s.total);
  };
  const cpu = cpuAt(LATENCIES[0]);
  const bigReads = plan(PLAN_SIZES[1], LATENCIES[0]).s.total;
  add(
    `client CPU per request @ ${LATENCIES[0]} ms`,
    `${cpu.toFixed(2)} ms (${PLAN_SIZES[1]} vs ${PLAN_SIZES[0]} zones, less loading each file; with it ` +
      `${cpuAt(LATENCIES[0], true).toFixed(2)} ms; @ ${LATENCIES[1]} ms: ${cpuAt(LATENCIES[1]).toFixed(2)} ms)`,
    `≤ ${TARGET.cpuPerRequestMs} ms`,
    cpu <= TARGET.cpuPerRequestMs,
    `the HTTP clients alone, ${PARALLELISM} requests at once to the same emulator at ${LATENCIES[0]} ms ` +
      `(scripts/bench/floors.mjs): undici ${figures.httpFloor.undici.toFixed(2)} ms, node:http ` +
      `${figures.httpFloor["node:http"].toFixed(2)} ms CPU per request; ` +
      `a profile of the ${PLAN_SIZES[1]}-zone plan without latency, per request: ` +
      topOrigins(figures.bigProfile, 10, 1 / bigReads),
  );
  add(
    `${PLAN_SIZES[1]}-zone file (${Math.round(figures.bigValidate.kb)} KB)`,
    `validate ${ms(figures.bigValidate.r.wallMs)} (the example: ${ms(boot.validate)})`,
    "the yaml package, every node's position kept",
  );
  {
    // The calls' phase (first call to last answer) against the bound of its dependent rounds, as for
    // a plan: rounds × RTT + RTT. The fewest rounds for this zone: the reads, the Cloudflare Managed
    // ruleset (read once the entry point shows it is not deployed), the Logpush checks, Cloudflare's
    // checks of the ruleset writes (dry runs), the reads before creates beside the other writes, the creates.
    const a = figures.apply;
    const bound = APPLY_MIN_ROUNDS * LATENCIES[0] + LATENCIES[0];
    const ratio = a.r.apiMs / bound;
    add(
      "1-zone apply of a fresh zone @ 25 ms",
      `${a.s.total} calls (${a.s.get} reads, min ${a.minReads}; ${a.s.post} checks; ${a.s.dry} dry runs; ` +
        `${a.s.write} writes), ` +
        `${ms(a.r.wallMs)}; the calls ${ms(a.r.apiMs)}: ${x(ratio, TARGET.apply)} the bound`,
      `≤ ${TARGET.apply}× of ${APPLY_MIN_ROUNDS} dependent rounds: ${ms(bound)}`,
      ratio <= TARGET.apply,
      `the calls ${ms(a.r.apiMs)} for ${APPLY_MIN_ROUNDS} rounds of ${ms(LATENCIES[0])}: ` +
        `${ms(a.r.apiMs - bound)} between the rounds (each round's answers read and the next calls made)`,
    );
  }
  {
    const l = figures.limited;
    const ratio = l.r.wallMs / l.floor;
    add(
      `rate-limited plan (${RATE_LIMITED.requests}/${RATE_LIMITED.seconds} s, ${l.s.total} requests)`,
      `${ms(l.r.wallMs)}: ${x(ratio, TARGET.rateLimited)} the floor ${ms(l.floor)}, ${l.s.throttled} × 429`,
      `≤ ${TARGET.rateLimited}×, 0 × 429`,
      ratio <= TARGET.rateLimited && l.s.throttled === 0,
    );
  }
  {
    const e = figures.estate;
    const ratio = e.r.wallMs / e.floor;
    add(
      `estate plan, ${ESTATE_ACCOUNTS.length} accounts × ${ESTATE_ZONES} zones, a token each ` +
        `(${RATE_LIMITED.requests}/${RATE_LIMITED.seconds} s per token)`,
      `${ms(e.r.wallMs)}: ${x(ratio, TARGET.estate)} the slowest account's floor ${ms(e.floor)} (one token for all: ` +
        `${ms(e.sumFloor)}), ${e.s.total} reads (min ${e.min}), ${e.s.throttled} × 429`,
      `≤ ${TARGET.estate}×, 0 × 429, the minimum reads`,
      ratio <= TARGET.estate && e.s.throttled === 0 && e.s.total === e.min,
    );
  }
  for (const s of figures.sdk) {
    const z = plan(s.n, s.latency);
    add(
      `cloudflare SDK ${SDK_VERSION}, one call at a time, ${s.n} zones @ ${s.latency} ms`,
      `${ms(s.r.wallMs)} (${s.s.total} requests)`,
      `zoneform ${ms(z.r.wallMs)}: ${x(s.r.wallMs / z.r.wallMs)} faster`,
    );
  }
  for (const a of figures.audit) {
    const pages = AUDIT_LISTS.map((list) => `${Math.max(1, Math.ceil(a.sizes[list] / AUDIT_PER_PAGE))} ${list}`).join(
      ", ",
    );
    add(
      `audit, ${a.scripts.toLocaleString("en")} scripts @ 50 ms`,
      `${a.s.total} requests, ${ms(a.m.wallMs)}, ${mb(a.m.maxRssKB)}`,
      `${a.min} requests (${pages})`,
      a.s.total === a.min,
    );
  }
  const [auditSmall, auditBig] = figures.audit;
  const flat = auditBig.m.maxRssKB / auditSmall.m.maxRssKB;
  add(
    "audit memory flat",
    `${x(flat, TARGET.auditRss)} from ${auditSmall.scripts.toLocaleString("en")} to ` +
      `${auditBig.scripts.toLocaleString("en")} scripts`,
    `≤ ${TARGET.auditRss}×`,
    flat <= TARGET.auditRss,
  );

  const header = ["figure", "measured", "limit / target", ""];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const context =
    `node ${process.version}, ${cpuLine()}, parallelism ${PARALLELISM}, ` + `${ms(performance.now() - started)} in all`;
  const text = [
    `zoneform bench: ${context}`,
    "",
    ...[header, ...rows].map((r) =>
      r
        .map((c, i) => c.padEnd(widths[i]))
        .join("  ")
        .trimEnd(),
    ),
    "",
    misses.length ? `Missed:\n${misses.map((m) => `  - ${m}`).join("\n")}` : "All targets met.",
    "",
  ].join("\n");
  const markdown = [
    `Latest \`npm run bench\` (${new Date().toISOString().slice(0, 10)}, ${context}):`,
    "",
    `| ${header.join(" | ")} |`,
    `|${header.map(() => "---").join("|")}|`,
    ...rows.map((r) => `| ${r.join(" | ")} |`),
    "",
    misses.length ? `Missed:\n\n${misses.map((m) => `- ${m}`).join("\n")}` : "All targets met.",
  ].join("\n");
  // The README's lines: the figures a reader compares tools by, and the verdict, from this run.
  const verdicts = rows.filter((r) => r[3] !== "");
  const passed = verdicts.filter((r) => r[3] === "PASS").length;
  const p44 = plan(PLAN_SIZES[0], LATENCIES[0]);
  const sdk44 = figures.sdk.find((f) => f.latency === LATENCIES[0]);
  const summary = [
    `Latest \`npm run bench\` (${new Date().toISOString().slice(0, 10)}, ${os.cpus().length} cores): ` +
      `a drift check of ${PLAN_SIZES[0]} zones at ${LATENCIES[0]} ms a call makes the file's minimum of ` +
      `${p44.s.total} reads in ${ms(p44.r.wallMs)}, ${x(sdk44.r.wallMs / p44.r.wallMs)} faster than the ` +
      `official SDK one call at a time; \`validate\` starts in ${x(boot.validate / bare)} the time of a bare ` +
      `\`node\`; ${passed} of ${verdicts.length} targets met${
        misses.length
          ? ` (missed: ${rows
              .filter((r) => r[3] === "MISS")
              .map((r) => r[0])
              .join("; ")})`
          : ""
      }. Figures, targets and how they are reached: [docs/performance.md](docs/performance.md).`,
  ].join("\n");
  process.stdout.write(text);
  if (!process.argv.includes("--no-readme")) updateReadme(markdown, summary);
  rmSync(tmp, { recursive: true, force: true });
}

function cpuLine() {
  const cpus = os.cpus();
  return `${cpus.length} × ${cpus[0]?.model.trim() ?? "unknown CPU"}, load ${os.loadavg()[0].toFixed(1)}`;
}

const START = "<!-- section:bench -->";
const END = "<!-- /section:bench -->";
const SUMMARY_START = "<!-- section:bench-summary -->";
const SUMMARY_END = "<!-- /section:bench-summary -->";

/** Replaces what sits between `start` and `end` in `file`; false when the markers are not there. */
function replaceSection(file, start, end, content) {
  const text = readFileSync(file, "utf8");
  if (!text.includes(start) || !text.includes(end)) return false;
  writeFileSync(
    file,
    `${text.slice(0, text.indexOf(start))}${start}\n${content}\n${end}${text.slice(text.indexOf(end) + end.length)}`,
  );
  return true;
}

/** The table into docs/performance.md (README.md without it), and its few headline lines into README.md. */
function updateReadme(markdown, summary) {
  const doc = join(ROOT, "docs/performance.md");
  const readme = join(ROOT, "README.md");
  const file = existsSync(doc) && readFileSync(doc, "utf8").includes(START) ? doc : readme;
  if (!replaceSection(file, START, END, markdown))
    log(`bench: no ${START} markers in ${file}; the table is not written`);
  if (file !== readme && !replaceSection(readme, SUMMARY_START, SUMMARY_END, summary))
    log(`bench: no ${SUMMARY_START} markers in README.md; the summary is not written`);
}

main().catch((err) => {
  process.stderr.write(`bench failed: ${err.stack ?? err}\n`);
  process.exitCode = 1;
});
