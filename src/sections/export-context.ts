// What the sections' exporters share: the context they read through, and the notes an export collects
// on the way (warnings for what the file cannot say, the environment variables its secrets refer to).
import type { ReadContext } from "./types.js";

/** An `${env:NAME}` reference the exported file makes, and what the user must set it to. */
export interface EnvVarNote {
  name: string;
  zone_id: string;
  /** e.g. `logpush job http-to-s3, destination_conf parameter secret-access-key` */
  purpose: string;
}

export interface ExportNotes {
  /** Things the file could not express or that plan will still change; printed on stderr. */
  warnings: string[];
  env: EnvVarNote[];
  /** Remarks for the file's header comment. */
  remarks: string[];
}

export interface SectionContext {
  read: ReadContext;
  zoneId: string;
  notes: ExportNotes;
}

export function newNotes(): ExportNotes {
  return { warnings: [], env: [], remarks: [] };
}

/**
 * Escapes `${` in a value read from the API as `$${`, so that loading the file gives back the text
 * itself instead of reading it as an environment reference. Deep over arrays and objects.
 */
export function escapeTemplates<T>(value: T): T {
  if (typeof value === "string") return value.replace(/\$\{/g, () => "$${") as T;
  if (Array.isArray(value)) return value.map((v) => escapeTemplates(v)) as T;
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, escapeTemplates(v)])) as T;
  }
  return value;
}
