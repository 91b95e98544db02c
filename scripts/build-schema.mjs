#!/usr/bin/env node
// Part of `npm run build` (after tsc, before the validator): writes schemas/zoneform.schema.json from
// src/sections/schema.base.json and each registered section's fragment (src/sections/<folder>/schema.json),
// in the registry's order. The file is committed (editors and users reference it); a unit test fails
// when it is not what the fragments assemble.
import { writeFileSync } from "node:fs";

const { assembleSchemaFrom, formatSchema } = await import(new URL("../dist/sections/schema.js", import.meta.url).href);
writeFileSync(new URL("../schemas/zoneform.schema.json", import.meta.url), formatSchema(assembleSchemaFrom(new URL("../src/sections/", import.meta.url))));
