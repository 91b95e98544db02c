#!/usr/bin/env node
// Part of `npm run build`: precompiles the desired-state schema with ajv's standalone code into
// dist/config/schema-validator.cjs, so `zoneform validate` does not compile the schema (a few hundred
// milliseconds) on every start. dist/config/schema.js uses it only while its hash matches the schema.
import { writeFileSync } from "node:fs";

const { standaloneValidatorSource } = await import(new URL("../dist/config/schema.js", import.meta.url).href);
const out = new URL("../dist/config/schema-validator.cjs", import.meta.url);
writeFileSync(out, standaloneValidatorSource());
