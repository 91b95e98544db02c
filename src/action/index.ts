// The Action's entry (action.yml `runs.main`, bundled to dist-action/index.js by
// scripts/bundle-action.mjs): reads the runner's variables, runs the mode(s), and exits 1 with an
// ::error:: line when a mode fails. docs/ci.md says what each mode does.
import process from "node:process";
import { runAction } from "./main.js";

// Node's own warning printer writes raw lines to stderr, which the runner reads as its log: a warning a
// dependency emits is not shown (as in the CLI without --verbose, src/cli/warnings.ts).
process.removeAllListeners("warning");
process.on("warning", () => undefined);
process.exitCode = await runAction(process.env, process.cwd());
