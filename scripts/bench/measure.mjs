#!/usr/bin/env node
// Runs one zoneform command in this process from the built code (dist/) and writes what it cost to
// the JSON file named by BENCH_MEASURE_OUT: exit code, wall time of the command (from before the CLI
// is loaded to its end, without Node's own start-up), the API phase (from the first request sent to
// the last answer received, from undici's diagnostics channels) and peak resident memory (maxRSS).
//   BENCH_MEASURE_OUT=/tmp/m.json node scripts/bench/measure.mjs plan -c zones.yaml --api-url …
import { writeFileSync } from "node:fs";
import process from "node:process";
import diagnostics from "node:diagnostics_channel";

let apiStart;
let apiEnd;
const sent = () => (apiStart ??= performance.now());
const answered = () => (apiEnd = performance.now());
diagnostics.subscribe("undici:request:create", sent);
diagnostics.subscribe("undici:request:trailers", answered);
diagnostics.subscribe("undici:request:error", answered);

const started = performance.now();
const { main } = await import("../../dist/cli/program.js");
const { processIO } = await import("../../dist/cli/io.js");
const code = await main(process.argv.slice(2), processIO());
const wallMs = performance.now() - started;
const out = process.env.BENCH_MEASURE_OUT;
if (out)
  writeFileSync(
    out,
    JSON.stringify({
      code,
      wallMs,
      apiMs: apiStart === undefined ? 0 : apiEnd - apiStart,
      maxRssKB: process.resourceUsage().maxRSS,
    }),
  );
process.exitCode = code;
