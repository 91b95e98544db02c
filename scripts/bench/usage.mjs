// Preloaded into a measured zoneform command (`node --import ./usage.mjs dist/cli/zoneform.js …`): writes,
// as it exits, to the JSON file BENCH_USAGE_OUT: the process's CPU time and peak resident memory, and its
// timeline in ms from the process's start (performance.now()): when its first request was sent, when its
// last answer ended, and when it exits (from undici's diagnostics channels, which the bundled undici
// publishes to as the package does).
import diagnostics from "node:diagnostics_channel";
import process from "node:process";
import { writeFileSync } from "node:fs";

const out = process.env.BENCH_USAGE_OUT;
if (out) {
  let firstRequestMs;
  let lastAnswerMs;
  diagnostics.subscribe("undici:request:create", () => (firstRequestMs ??= performance.now()));
  const answered = () => (lastAnswerMs = performance.now());
  diagnostics.subscribe("undici:request:trailers", answered);
  diagnostics.subscribe("undici:request:error", answered);
  process.once("exit", () => {
    const u = process.resourceUsage();
    writeFileSync(
      out,
      JSON.stringify({
        cpuMs: (u.userCPUTime + u.systemCPUTime) / 1000,
        maxRssKB: u.maxRSS,
        firstRequestMs,
        lastAnswerMs,
        exitMs: performance.now(),
      }),
    );
  });
}
