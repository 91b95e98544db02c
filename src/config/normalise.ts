// A valid document → the normalised desired state: defaults filled, thresholds as integers, custom
// fields as three lists, an empty filter dropped (each by its section's normaliser, src/sections/).
// Runs only on documents that passed every check.
import type {
  CertificateAuthority,
  DesiredCustomFields,
  DesiredLogpushJob,
  DesiredLogs,
  DesiredPageShield,
  DesiredZone,
  OwaspAction,
  PolicyAction,
  SourceRef,
} from "../model/desired.js";
import { SECTIONS } from "../sections/index.js";
import type { SCORE_THRESHOLDS } from "../sections/waf/normalise.js";

export { SCORE_THRESHOLDS } from "../sections/waf/normalise.js";
export const DEFAULT_MAX_DELETES = 5;

/** The shape the schema guarantees (optional fields as written). */
export interface FileDocument {
  version: 1;
  account_id?: string;
  safety?: { max_deletes?: number };
  zones: FileZone[];
}

export interface FileZone {
  zone_id: string;
  name?: string;
  page_shield?: Omit<DesiredPageShield, "prune" | "policies"> & {
    prune?: boolean;
    policies?: Array<{ description: string; action: PolicyAction; expression: string; value: string; enabled?: boolean }>;
  };
  waf?: {
    owasp?: { enabled: boolean; paranoia_level?: number; score_threshold?: number | keyof typeof SCORE_THRESHOLDS; action?: OwaspAction; expression?: string };
    cloudflare_managed?: { enabled: boolean; action?: OwaspAction; expression?: string };
  };
  logs?: {
    custom_fields?: Partial<DesiredCustomFields>;
    logpush_jobs?: Array<Omit<DesiredLogpushJob, "enabled"> & { enabled?: boolean }>;
    prune?: boolean;
  };
  custom_hostnames?: Array<{ hostname: string; certificate_authority?: CertificateAuthority }>;
}

/** The file's zone → the desired zone: the zone's own fields here, each section's part by its normaliser. */
export function normaliseZone(zone: FileZone, source?: SourceRef): DesiredZone {
  const out: DesiredZone = { zone_id: zone.zone_id };
  if (zone.name !== undefined) out.name = zone.name;
  // `logs` holds two sections (custom fields, Logpush jobs): the container is the zone's.
  if (zone.logs) out.logs = {} as DesiredLogs;
  for (const section of SECTIONS) section.normalise(zone, out);
  if (source) out.source = source;
  return out;
}
