#!/usr/bin/env node
// Part of `npm run build` (after tsc, before the validator): writes schemas/zoneform.schema.json from
// src/sections/schema.base.json and each registered section's fragment (src/sections/<folder>/schema.json),
// in the registry's order, with an `$id` naming the package's version; then its draft-07 form,
// schemas/zoneform.schema.draft-07.json, the file editors are pointed at. Both files are committed
// (editors and users reference them); a unit test fails when they are not what the fragments assemble.
import { writeFileSync } from "node:fs";

const { assembleSchemaFrom, formatSchema } = await import(new URL("../dist/sections/schema.js", import.meta.url).href);
const { publishedSchema, toDraft07, EDITOR_SCHEMA_FILE } = await import(
  new URL("../dist/config/schema.js", import.meta.url).href
);
const schema = publishedSchema(assembleSchemaFrom(new URL("../src/sections/", import.meta.url)));
writeFileSync(new URL("../schemas/zoneform.schema.json", import.meta.url), formatSchema(schema));
writeFileSync(new URL(`../schemas/${EDITOR_SCHEMA_FILE}`, import.meta.url), formatSchema(toDraft07(schema)));
