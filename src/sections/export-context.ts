// What the sections' exporters share: the context they read through, and the notes an export collects
// on the way (warnings for what the file cannot say, the environment variables its secrets refer to).
import type { ReadContext } from "./types.js";
import { setOwn } from "../data-record.js";
import { escapeTemplateText } from "../template.js";

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
 * A string an exporter has already written in file form: its own `${env:…}` references (a Logpush
 * credential), every other `${` escaped. `escapeTemplates` keeps it as it is; every other string is
 * escaped there.
 */
export class FileText {
  constructor(readonly text: string) {}
}

/**
 * Escapes `${` as `$${` in every string of a value read from the API (src/template.ts), so that
 * loading the file gives back the text itself instead of reading it as an environment reference; a
 * FileText is written as its text. Deep over arrays and objects; keys are never interpolated.
 */
export function escapeTemplates<T>(value: T): T {
  if (typeof value === "string") return escapeTemplateText(value) as T;
  if (value instanceof FileText) return value.text as T;
  if (Array.isArray(value)) return value.map((v) => escapeTemplates(v)) as T;
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) setOwn(out, k, escapeTemplates(v));
    return out as T;
  }
  return value;
}
