// The published schema (schemas/zoneform.schema.json), assembled from a base.
// Spec: docs/architecture.md.
import { readFileSync } from "node:fs";
import { SECTIONS } from "./registry.js";

type Json = Record<string, any>;

export interface SchemaFragment {
  zone?: Json;
  logs?: Json;
  account?: Json;
  $defs?: Json;
}

/** Where the base and the fragments are: this folder in the source tree. */
const SECTIONS_DIR = new URL("../../src/sections/", import.meta.url);

function addAll(target: Json, from: Json | undefined, what: string): void {
  for (const [key, value] of Object.entries(from ?? {})) {
    if (key in target) throw new Error(`${what}: "${key}" is declared twice`);
    target[key] = value;
  }
}

export function assembleSchema(
  base: Json,
  fragments: ReadonlyArray<{ folder: string; fragment: SchemaFragment }>,
): Json {
  const out = structuredClone(base);
  const baseDefs = out.$defs as Json;
  const baseZone = baseDefs.zone.properties as Json;
  const { logs: logsDef, ...otherDefs } = baseDefs;
  const { logs: logsProp, ...otherZone } = baseZone;
  const defs: Json = { ...otherDefs };
  const zone: Json = { ...otherZone };
  const account: Json = { ...((baseDefs.account?.properties as Json | undefined) ?? {}) };
  // The `logs` container goes where the first section under it goes.
  let logs: Json | undefined;
  for (const { folder, fragment } of fragments) {
    if (fragment.logs && !logs) {
      zone.logs = logsProp;
      defs.logs = logs = { ...logsDef, properties: {} };
    }
    addAll(zone, fragment.zone, `${folder}/schema.json zone`);
    if (logs) addAll(logs.properties, fragment.logs, `${folder}/schema.json logs`);
    if (fragment.account && !baseDefs.account)
      throw new Error(`${folder}/schema.json account: the base has no account`);
    addAll(account, fragment.account, `${folder}/schema.json account`);
    addAll(defs, fragment.$defs, `${folder}/schema.json $defs`);
  }
  defs.zone = { ...baseDefs.zone, properties: zone };
  if (baseDefs.account) defs.account = { ...baseDefs.account, properties: account };
  // Keep the base's place of `zone` among the definitions.
  out.$defs = Object.fromEntries(Object.keys(defs).map((k) => [k, defs[k]]));
  return out;
}

/**
 * The schema's text as the committed file holds it.
 * @public scripts/build-schema.mjs imports it from dist/ (knip cannot follow that path).
 */
export function formatSchema(schema: Json): string {
  return `${JSON.stringify(schema, null, 2)}\n`;
}

/**
 * Reads the base and every registered section's fragment from `dir` and assembles them.
 * @public scripts/build-schema.mjs imports it from dist/ (knip cannot follow that path).
 */
export function assembleSchemaFrom(dir: URL = SECTIONS_DIR): Json {
  const read = (file: string): Json => JSON.parse(readFileSync(new URL(file, dir), "utf8"));
  return assembleSchema(
    read("schema.base.json"),
    SECTIONS.map((s) => ({ folder: s.name, fragment: read(`${s.name}/schema.json`) as SchemaFragment })),
  );
}
