// The Action's entry (action.yml `runs.main`, bundled to dist-action/index.js by
// scripts/bundle-action.mjs): reads the runner's variables, runs the mode(s), and exits 1 with an
// ::error:: line when a mode fails. docs/ci.md says what each mode does.
import process from "node:process";
import { runAction } from "./main.js";

process.exitCode = await runAction(process.env, process.cwd());
