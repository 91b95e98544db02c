#!/usr/bin/env node
// `node scripts/module-cost.mjs [--runs N] [--top N] -- <zoneform arguments>`: where a command's time goes, by the
// module it was spent in (issue 39; scripts/bench/profile.mjs says how). Prints the whole process's wall time and
// a bare `node -e 0`'s, then the self time of each origin per run (the median over the runs). Build first
// (`npm run build`); the environment is passed on, so a command that calls the API runs against what
// CLOUDFLARE_API_BASE_URL or --api-url names (e.g. `zoneform emulator`).
import { existsSync } from "node:fs";
import process from "node:process";
import { parseArgs } from "node:util";
import { CLI, profileCommand } from "./bench/profile.mjs";

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
const r = profileCommand(command, { runs });
const f = (ms) => `${ms.toFixed(1).padStart(7)} ms`;
console.log(`zoneform ${command.join(" ")}  (exit ${r.status}; ${runs} runs, medians; node ${process.version})`);
if (r.status !== 0) console.log(r.stderr.trim().split("\n").slice(-3).join("\n"));
console.log(`${f(r.wallMs)}  the whole process (spawn to exit, no profiler)`);
console.log(`${f(r.bareMs)}  a bare \`node -e 0\``);
console.log(`${f(r.profiledMs)}  profiled (from the profiler's start to the end), by origin:`);
for (const [origin, ms] of r.origins.slice(0, Number(values.top))) console.log(`${f(ms)}  ${origin}`);
