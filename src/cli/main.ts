#!/usr/bin/env node
// The `zoneform` executable.
import process from "node:process";
import { main } from "./program.js";
import { outputFailed, processIO } from "./io.js";

const io = processIO();
const code = await main(process.argv.slice(2), io);
// A reader that went away (`| head`) is not an error; a write that failed otherwise (a full disk) is.
const failed = outputFailed();
if (failed && code === 0) io.stderr.write(`Error: writing the output failed (${failed.code ?? failed.message})\n`);
process.exitCode = failed && code === 0 ? 1 : code;
