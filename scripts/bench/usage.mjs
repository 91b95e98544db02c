// Preloaded into a measured zoneform command (`node --import ./usage.mjs dist/cli/zoneform.js …`): writes
// the process's CPU time and peak resident memory, as it exits, to the JSON file BENCH_USAGE_OUT.
import { writeFileSync } from "node:fs";
import process from "node:process";

const out = process.env.BENCH_USAGE_OUT;
if (out) {
  process.once("exit", () => {
    const u = process.resourceUsage();
    writeFileSync(out, JSON.stringify({ cpuMs: (u.userCPUTime + u.systemCPUTime) / 1000, maxRssKB: u.maxRSS }));
  });
}
