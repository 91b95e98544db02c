// A valid document → the normalized desired state: the zone's own fields here, the rest (defaults
// filled, thresholds as integers, an empty filter dropped) by each section's normalizer (src/sections/).
// Runs only on documents that passed every check.
import type { SourceRef } from "../model/desired.js";
import { SECTIONS, type DesiredZone, type FileZone } from "../sections/index.js";

export const DEFAULT_MAX_DELETES = 5;

/** The shape the schema guarantees (optional fields as written); each section declares its part of a zone. */
export interface FileDocument {
  version: 1;
  account_id?: string;
  safety?: { max_deletes?: number };
  zones: FileZone[];
}

/** The file's zone → the desired zone: the zone's own fields here, each section's part by its normalizer. */
export function normalizeZone(zone: FileZone, source?: SourceRef): DesiredZone {
  const out: DesiredZone = { zone_id: zone.zone_id };
  if (zone.name !== undefined) out.name = zone.name;
  // `logs` holds two sections (custom fields, Logpush jobs): the container is the zone's.
  if (zone.logs) out.logs = {} as NonNullable<DesiredZone["logs"]>;
  for (const section of SECTIONS) section.normalize(zone, out);
  if (source) out.source = source;
  return out;
}
