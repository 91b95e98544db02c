// A valid document → the normalized desired state: the zone's own fields here, the rest (defaults
// filled, thresholds as integers, an empty filter dropped) by each section's normalizer (src/sections/).
// Runs only on documents that passed every check.
import type { SourceRef, TokenRef } from "../model/index.js";
import { ACCOUNT_SECTIONS, SECTIONS, type DesiredAccount, type DesiredZone, type FileZone } from "../sections/index.js";

export const DEFAULT_MAX_DELETES = 5;

/** The shape the schema guarantees (optional fields as written); each section declares its part of a zone. */
export interface FileDocument {
  version: 1;
  account_id?: string;
  safety?: { max_deletes?: number };
  accounts?: FileAccount[];
  zones: FileZone[];
}

/** An entry of `accounts:` as the schema guarantees it; each section's list under its key. */
export type FileAccount = { account_id: string; api_token?: string; prune?: boolean } & Record<string, unknown>;

/**
 * The file's entry → the desired account: its own fields here, each section's list by its normalizer.
 * `token` is its api_token (the rules made sure it is one `${env:NAME}`); `zones` the zones of its file.
 */
export function normalizeAccount(
  entry: FileAccount,
  token?: TokenRef,
  source?: SourceRef,
  zones: FileDocument["zones"] = [],
): DesiredAccount {
  const out = { account_id: entry.account_id, prune: entry.prune ?? true } as DesiredAccount;
  if (token) out.api_token = token;
  for (const section of ACCOUNT_SECTIONS) section.normalize(entry, out, { zones });
  if (source) out.source = source;
  return out;
}

/** The file's zone → the desired zone: the zone's own fields here, each section's part by its normalizer. */
export function normalizeZone(zone: FileZone, source?: SourceRef): DesiredZone {
  const out: DesiredZone = { zone_id: zone.zone_id };
  if (zone.name !== undefined) out.name = zone.name;
  if (zone.account_id !== undefined) out.account_id = zone.account_id;
  // `logs` holds two sections (custom fields, Logpush jobs): the container is the zone's.
  if (zone.logs) out.logs = {} as NonNullable<DesiredZone["logs"]>;
  for (const section of SECTIONS) section.normalize(zone, out);
  if (source) out.source = source;
  return out;
}
