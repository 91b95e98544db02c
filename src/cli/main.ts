#!/usr/bin/env node
// The `zoneform` executable.
import process from "node:process";
import { main } from "./program.js";
import { processIO } from "./io.js";

const code = await main(process.argv.slice(2), processIO());
process.exitCode = code;
