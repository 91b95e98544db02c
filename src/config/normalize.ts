// A valid document → the normalized desired state.
import type { SourceRef, TokenRef } from "../model/index.js";
import { ACCOUNT_SECTIONS, SECTIONS, type DesiredAccount, type DesiredZone, type FileZone } from "../sections/index.js";

export const DEFAULT_MAX_DELETES = 5;

export interface FileDocument {
  version: 1;
  account_id?: string;
  safety?: { max_deletes?: number };
  accounts?: FileAccount[];
  zones: FileZone[];
}

export type FileAccount = { account_id: string; api_token?: string; prune?: boolean } & Record<string, unknown>;

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
