// Shared formatting for plan renderers: values, signs, zone labels, word diffs as plain tokens.
import { diffArrays } from "diff/lib/diff/array.js";
import type { Change, FieldDiff, Operation, ZonePlan } from "../../model/index.js";
import { SENSITIVE } from "../../redact.js";
import { printable } from "../../safe-text.js";

export const SIGN: Record<Change["kind"], string> = { create: "+", update: "~", replace: "-/+", delete: "-" };

export function zoneLabel(z: ZonePlan): string {
  return printable(z.scope === "account" ? `account ${z.zone_id}` : z.name ? `${z.name} (${z.zone_id})` : z.zone_id);
}

export function changeTitle(c: Change): string {
  const id = c.live_id && c.kind !== "create" ? ` (id ${c.live_id})` : "";
  return printable(`${c.resource} "${c.identity}"${id}`);
}

export function formatValue(v: unknown, sensitive = false): string {
  if (sensitive) return SENSITIVE;
  if (v === undefined) return "(none)";
  // JSON already escapes C0 controls; DEL, C1 and bidirectional characters are left to printable.
  return printable(JSON.stringify(v));
}

export function operationLine(op: Operation): string {
  const q = op.query && Object.keys(op.query).length > 0 ? `?${new URLSearchParams(op.query).toString()}` : "";
  return printable(`${op.method} ${op.path}${q}`);
}

export interface WordPart {
  value: string;
  added?: boolean;
  removed?: boolean;
}

export function wordDiff(before: string, after: string): WordPart[] {
  const words = (s: string) => s.split(/(\s+|[;,])/).filter((w) => w !== "");
  const out: WordPart[] = [];
  for (const p of diffArrays(words(before), words(after))) {
    const value = p.value.join("");
    if (!p.added && !p.removed) {
      out.push({ value });
      continue;
    }
    // Whitespace around a changed run is shown as common text, so markers wrap the words alone.
    const [, lead = "", core = "", trail = ""] = /^(\s*)(.*?)(\s*)$/s.exec(value) ?? [];
    if (lead) out.push({ value: lead });
    if (core) out.push({ value: core, added: p.added, removed: p.removed });
    if (trail) out.push({ value: trail });
  }
  return out;
}

export function isTextDiff(f: FieldDiff): boolean {
  return Boolean(f.text) && !f.sensitive && typeof f.before === "string" && typeof f.after === "string";
}
