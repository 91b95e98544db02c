// vitest's global set-up: the tests that run the built CLI (child processes, real signals) test what
// src/ says now. dist/ is rebuilt when any input is newer than the last build, whoever runs vitest
// (`npm test`, or `npx vitest run <file>`), so no test passes or fails on a stale build.
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

export default function setup(): void {
  const script = fileURLToPath(new URL("../../scripts/build-if-stale.mjs", import.meta.url));
  const r = spawnSync(process.execPath, [script], { stdio: "inherit" });
  if (r.status !== 0) throw new Error(`the build before the tests failed (exit ${r.status ?? r.signal})`);
}
