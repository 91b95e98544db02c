// The Markdown rendering of a plan, for a pull-request comment: a summary table, then one collapsible
// diff block per zone that changes. Text from the API or the file is made printable first, so that a
// value stays on its line of the diff block and in its table cell.
import type { Change, FieldDiff, Plan } from "../../model/plan.js";
import { printable } from "../../safe-text.js";
import { summarise, summaryLine, totalChanges } from "../summary.js";
import { SIGN, changeTitle, formatValue, operationLine } from "./format.js";

function fieldLines(f: FieldDiff, kind: Change["kind"]): string[] {
  const field = printable(f.field);
  if (kind === "create" || f.before === undefined) return [`+     ${field}: ${formatValue(f.after, f.sensitive)}`];
  if (f.after === undefined) return [`-     ${field}: ${formatValue(f.before, f.sensitive)}`];
  return [`-     ${field}: ${formatValue(f.before, f.sensitive)}`, `+     ${field}: ${formatValue(f.after, f.sensitive)}`];
}

function changeLines(c: Change): string[] {
  // In a diff block the first character colours the line: + green, - red, ! orange, # grey.
  const lead = c.kind === "create" ? "+" : c.kind === "delete" ? "-" : "!";
  const lines = [`${lead} ${SIGN[c.kind]} ${changeTitle(c)}`];
  if (c.summary) lines.push(`#     ${printable(c.summary)}`);
  for (const n of c.notes ?? []) lines.push(`!     ${printable(n)}`);
  for (const f of c.fields) lines.push(...fieldLines(f, c.kind));
  for (const op of c.operations) lines.push(`#       ${operationLine(op)}`);
  return lines;
}

/** A table cell: printable (a newline is `\n`), with `\` and `|` escaped so that the row holds. */
function escapeCell(s: string): string {
  return printable(s).replace(/[\\|]/g, "\\$&");
}

/** Text inside the HTML of `<summary>`. */
function escapeHtml(s: string): string {
  return printable(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

export function renderPlanMarkdown(plan: Plan): string {
  const out: string[] = ["### zoneform plan", ""];
  if (totalChanges(plan.summary) === 0 && plan.zones.every((z) => z.errors.length === 0)) {
    out.push(`**No changes.** ${plan.zones.length} zone(s) match the configuration.`, "");
    return out.join("\n");
  }
  out.push(`**${summaryLine(plan.summary)}**`, "");
  out.push("| zone | create | update | replace | delete | errors |", "|---|---:|---:|---:|---:|---:|");
  for (const z of plan.zones) {
    if (z.changes.length === 0 && z.errors.length === 0) continue;
    const s = summarise(z.changes);
    out.push(`| ${escapeCell(z.name ?? z.zone_id)} | ${s.create} | ${s.update} | ${s.replace} | ${s.delete} | ${z.errors.length} |`);
  }
  out.push("");
  for (const z of plan.zones) {
    if (z.changes.length === 0 && z.errors.length === 0) continue;
    out.push(`<details open><summary><code>${escapeHtml(z.name ?? z.zone_id)}</code> (${escapeHtml(z.zone_id)})</summary>`, "");
    for (const e of z.errors) out.push(`> **Error:** ${printable(e)}`, "");
    for (const w of z.warnings) out.push(`> **Warning:** ${printable(w)}`, "");
    if (z.changes.length > 0) {
      out.push("```diff", ...z.changes.flatMap((c) => [...changeLines(c), ""]).slice(0, -1), "```", "");
    }
    out.push("</details>", "");
  }
  return out.join("\n");
}
