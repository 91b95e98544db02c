#!/usr/bin/env node
// The plain sequential client the bench compares zoneform with: the official `cloudflare` SDK (a dev
// dependency of the bench only) making the same reads a plan of the file needs, one after another,
// and nothing else (no diff, no output).
//   node scripts/bench/sdk-plan.mjs <api-url> <zones.yaml>
import { readFileSync } from "node:fs";
import process from "node:process";
import Cloudflare from "cloudflare";
import { parse } from "yaml";
import { readsOf } from "./config.mjs";

const [baseURL, file] = process.argv.slice(2);
const cf = new Cloudflare({ apiToken: process.env.CLOUDFLARE_API_TOKEN, baseURL, maxRetries: 2 });
let calls = 0;
for (const { path, query } of readsOf(parse(readFileSync(file, "utf8")))) {
  await cf.get(`/${path}`, query ? { query } : {});
  calls++;
}
process.stdout.write(`${calls}\n`);
