// What the sections' exporters share.
// Spec: docs/architecture.md.
import { setOwn } from "../data-record.js";
import { escapeTemplateText } from "../template.js";
import type { ExportNotes } from "./types.js";

export type { EnvVarNote, ExportNotes, SectionContext } from "./types.js";

export function newNotes(): ExportNotes {
  return { warnings: [], env: [], remarks: [] };
}

/** A string an exporter has already written in file form. */
export class FileText {
  constructor(readonly text: string) {}
}

/** Escapes `${` as `$${` in every string of a value read from the API. */
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
