// The Action's entry (action.yml `runs.main`, bundled to dist-action/index.js by scripts/bundle-action.mjs).
// Spec: docs/ci.md.
import process from "node:process";
import { runAction } from "./main.js";

process.removeAllListeners("warning");
process.on("warning", () => undefined);
process.exitCode = await runAction(process.env, process.cwd());
