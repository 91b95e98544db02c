// Writes an export as a zoneform file.
import { documentYaml } from "../safe-yaml.js";
import { printable } from "../safe-text.js";
import type { ExportNotes, ExportSection } from "./types.js";

export interface DocumentHeader {
  schemaRef?: string | undefined;
  version: string;
  exportedAt: Date;
  zones: string[];
  /** The accounts exported (`export --account`). */
  accounts?: string[];
  sections: readonly ExportSection[];
}

/** The header comment. */
export function headerComment(h: DocumentHeader, notes: ExportNotes): string {
  const lines = [
    ...(h.schemaRef === undefined ? [] : [`# yaml-language-server: $schema=${h.schemaRef}`]),
    `# Exported by zoneform ${h.version} export at ${h.exportedAt.toISOString()}`,
    `# from ${exportedUnits(h)}; sections: ${h.sections.join(", ")}.`,
    "# `zoneform plan -c <this file>` shows no changes while the zone stays as it was.",
  ];
  if (notes.env.length > 0) {
    const names = notes.env.map((e) => printable(e.name));
    const width = Math.max(...names.map((n) => n.length));
    lines.push(
      "#",
      "# Credentials are ${env:…} references. Set these variables to the values you own (the API may",
      "# not return a credential in full), as they appear in the destination URL:",
    );
    notes.env.forEach((e, i) => {
      lines.push(`#   ${names[i]!.padEnd(width)}  ${printable(e.purpose)}`);
    });
    lines.push("# Existing Logpush jobs need no ownership_challenge; add one only to change a job's destination.");
  }
  for (const r of notes.remarks) lines.push(`# ${printable(r)}`);
  return `${lines.join("\n")}\n`;
}

function exportedUnits(h: DocumentHeader): string {
  const parts = [
    ...(h.zones.length > 0 || !h.accounts?.length
      ? [`zone${h.zones.length === 1 ? "" : "s"} ${h.zones.join(", ")}`]
      : []),
    ...(h.accounts?.length ? [`account${h.accounts.length === 1 ? "" : "s"} ${h.accounts.join(", ")}`] : []),
  ];
  return printable(parts.join(" and "));
}

/** The exported file: the header comment, then the document. */
export function renderExport(document: Record<string, unknown>, header: DocumentHeader, notes: ExportNotes): string {
  return headerComment(header, notes) + documentYaml(document);
}
