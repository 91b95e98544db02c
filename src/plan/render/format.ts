// Shared formatting for plan renderers: values, signs, zone labels, word diffs as plain tokens. Every
// string here may come from the API or the file: what these functions return is printable (control and
// bidirectional characters escaped); word-diff parts are raw, the renderer escapes them.
// The one diff function, from its own module: the package index loads all thirty (start-up time).
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

/**
 * A word diff of two texts, words being what whitespace, `;` and `,` separate (a CSP source, a
 * directive, an expression operand), each separator a token of its own, so `https://old.example` is
 * replaced whole rather than letter groups inside it, and a source added at the end of a directive
 * (`https://a.example;` → `https://a.example https://b.example;`) shows as that source alone.
 */
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
