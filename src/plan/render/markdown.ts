// The Markdown rendering of a plan, for a pull-request comment: a summary table, then one collapsible diff block per
// zone that changes.
import type { Change, FieldDiff, Plan } from "../../model/index.js";
import { htmlCode, mdCell, mdCode, mdCodeBlock, mdText } from "../../safe-markdown.js";
import { printable } from "../../safe-text.js";
import { summarise, summariseZones, summaryLine, totalChanges } from "../summary.js";
import { SIGN, changeTitle, formatValue, operationLine } from "./format.js";
import { agrees, unitCount, unitName, unitsOf } from "../units.js";
import { AUDIT_TITLE, auditChanged, auditDiff, auditListing } from "./audit-checks.js";

function fieldLines(f: FieldDiff, kind: Change["kind"]): string[] {
  const field = printable(f.field);
  if (kind === "create" || f.before === undefined) return [`+     ${field}: ${formatValue(f.after, f.sensitive)}`];
  if (f.after === undefined) return [`-     ${field}: ${formatValue(f.before, f.sensitive)}`];
  return [
    `-     ${field}: ${formatValue(f.before, f.sensitive)}`,
    `+     ${field}: ${formatValue(f.after, f.sensitive)}`,
  ];
}

function changeLines(c: Change): string[] {
  // In a diff block the first character colours the line: + green, - red, !
  const lead = c.kind === "create" ? "+" : c.kind === "delete" ? "-" : "!";
  const lines = [`${lead} ${SIGN[c.kind]} ${changeTitle(c)}`];
  if (c.summary) lines.push(`#     ${printable(c.summary)}`);
  for (const n of c.notes ?? []) lines.push(`!     ${printable(n)}`);
  for (const f of c.fields) lines.push(...fieldLines(f, c.kind));
  for (const op of c.operations) lines.push(`#       ${operationLine(op)}`);
  return lines;
}

/** GitHub's limit on a comment's length, in characters. */
export const GITHUB_COMMENT_LIMIT = 65_536;

export const COMMENT_MARKER = "<!-- zoneform plan -->";

export interface MarkdownOptions {
  /** The most characters the output may have (default GitHub's comment limit); 0: no limit. */
  maxBytes?: number;
  fullPlan?: string;
}

export function renderPlanMarkdown(plan: Plan, opts: MarkdownOptions = {}): string {
  const out: string[] = [COMMENT_MARKER, "### zoneform plan", ""];
  // Counted from the changes, never taken from the plan's `summary`.
  const counts = summariseZones(plan.zones);
  const audited = new Set(auditChanged(plan.zones));
  const listing = auditListing(plan.zones).map((l) => `> ${mdText(l)}`);
  if (totalChanges(counts) === 0 && audited.size === 0 && plan.zones.every((z) => z.errors.length === 0)) {
    out.push(
      `**No changes.** ${unitCount(plan.zones)} ${agrees(plan.zones, "matches", "match")} the configuration.`,
      "",
      ...listing,
    );
    return out.join("\n");
  }
  const changed = plan.zones.filter((z) => z.changes.length > 0 || z.errors.length > 0 || audited.has(z));
  out.push(`**${summaryLine(counts)}**`, "");
  if (audited.size > 0)
    out.push(
      `**What audit checks changes in ${unitCount([...audited])}** (the script inventory: never written to ` +
        "Cloudflare; audit fetches its pages on the default branch).",
      "",
    );
  if (listing.length > 0) out.push(...listing, "");
  out.push("| zone | create | update | replace | delete | errors |", "|---|---:|---:|---:|---:|---:|");
  for (const z of changed) {
    const s = summarise(z.changes);
    out.push(
      `| ${mdCell(unitName(z))} | ${s.create} | ${s.update} | ${s.replace} | ${s.delete} | ` + `${z.errors.length} |`,
    );
  }
  out.push("");
  const open = changed.length <= 5 ? " open" : "";
  const blocks = changed.map((z) => {
    const title =
      z.scope === "account"
        ? `account ${htmlCode(z.zone_id)}`
        : `${htmlCode(z.name ?? z.zone_id)} (${htmlCode(z.zone_id)})`;
    const lines = [`<details${open}><summary>${title}</summary>`, ""];
    for (const e of z.errors) lines.push(`> **Error:** ${mdText(e)}`, "");
    for (const w of z.warnings) lines.push(`> **Warning:** ${mdText(w)}`, "");
    if (z.changes.length > 0)
      lines.push(mdCodeBlock(z.changes.flatMap((c) => [...changeLines(c), ""]).slice(0, -1), "diff"), "");
    const audit = auditDiff(z) ?? [];
    if (audit.length > 0)
      lines.push(
        mdCodeBlock([`! ~ ${AUDIT_TITLE}`, ...audit.map((a) => `${a.sign}     ${printable(a.line)}`)], "diff"),
        "",
      );
    lines.push("</details>", "");
    return lines.join("\n");
  });
  const max = opts.maxBytes ?? GITHUB_COMMENT_LIMIT;
  let text = `${out.join("\n")}\n`;
  // Room for the closing note, whatever the numbers in it.
  const reserve = 400 + (opts.fullPlan?.length ?? 0);
  let shown = 0;
  for (const block of blocks) {
    if (max > 0 && text.length + block.length + reserve > max) break;
    text += `${block}\n`;
    shown += 1;
  }
  if (shown < blocks.length) {
    const left = changed.slice(shown).map((z) => unitName(z));
    const names =
      left
        .slice(0, 5)
        .map((n) => mdCode(n))
        .join(", ") + (left.length > 5 ? ", …" : "");
    text +=
      `> **${unitsOf(changed.slice(shown), changed)} left out** (${names}) to stay under ${max} ` +
      `characters; ` +
      `every zone is in the table above. The full plan: ` +
      `${opts.fullPlan ?? "run `zoneform plan`, or save it with `--out` and read it with `zoneform show`"}.\n`;
  }
  if (max > 0 && text.length > max) text = `${text.slice(0, max - 40)}\n\n> (cut at ${max} characters)\n`;
  return text;
}
