// The Terraform-like text rendering of a plan.
import pc from "picocolors";
import type { Change, FieldDiff, Plan } from "../../model/index.js";
import { printable } from "../../safe-text.js";
import { summariseZones, summaryLine, totalChanges } from "../summary.js";
import { SIGN, changeTitle, formatValue, isTextDiff, operationLine, wordDiff, zoneLabel } from "./format.js";
import { agrees, unitCount, unitName } from "../units.js";
import { AUDIT_TITLE, auditChanged, auditDiff, auditListing } from "./audit-checks.js";

export interface TextOptions {
  color: boolean;
  verbose?: boolean;
  errors?: boolean;
}

type Colors = ReturnType<typeof pc.createColors>;

function colorFor(c: Colors, kind: Change["kind"]): (s: string) => string {
  return { create: c.green, update: c.yellow, replace: c.magenta, delete: c.red }[kind];
}

function renderField(c: Colors, f: FieldDiff, kind: Change["kind"]): string {
  const field = printable(f.field);
  if (kind === "create" || f.before === undefined) {
    return `      ${c.green("+")} ${field}: ${formatValue(f.after, f.sensitive)}`;
  }
  if (f.after === undefined) return `      ${c.red("-")} ${field}: ${formatValue(f.before, f.sensitive)}`;
  if (isTextDiff(f)) {
    const words = wordDiff(f.before as string, f.after as string)
      .map((p) => {
        const value = printable(p.value);
        return p.added ? c.green(`{+${value}+}`) : p.removed ? c.red(`[-${value}-]`) : value;
      })
      .join("");
    return `      ${c.yellow("~")} ${field}: ${words}`;
  }
  const [before, after] = [formatValue(f.before, f.sensitive), formatValue(f.after, f.sensitive)];
  return `      ${c.yellow("~")} ${field}: ${before} → ${after}`;
}

function renderChangeText(change: Change, c: Colors, verbose = false): string[] {
  const paint = colorFor(c, change.kind);
  const lines = [`  ${paint(SIGN[change.kind])} ${c.bold(changeTitle(change))}`];
  if (change.summary) lines.push(`      ${c.dim("#")} ${printable(change.summary)}`);
  for (const note of change.notes ?? []) lines.push(`      ${c.yellow("!")} ${printable(note)}`);
  for (const f of change.fields) lines.push(renderField(c, f, change.kind));
  for (const op of change.operations) {
    lines.push(`        ${c.dim(operationLine(op))}`);
    if (verbose && op.body !== undefined) {
      for (const l of JSON.stringify(op.body, null, 2).split("\n")) lines.push(`          ${c.dim(printable(l))}`);
    }
  }
  return lines;
}

export function renderPlanText(plan: Plan, opts: TextOptions): string {
  const c = pc.createColors(opts.color);
  const out: string[] = [];
  const audited = new Set(auditChanged(plan.zones));
  const changed = plan.zones.filter((z) => z.changes.length > 0 || z.errors.length > 0 || audited.has(z));
  const unchanged = plan.zones.filter((z) => z.changes.length === 0 && z.errors.length === 0);
  const failed = plan.zones.filter((z) => z.errors.length > 0);
  const counts = summariseZones(plan.zones);
  for (const z of plan.zones) {
    for (const w of z.warnings) out.push(`${c.yellow("Warning:")} [${printable(unitName(z))}] ${printable(w)}`);
  }
  if (out.length > 0) out.push("");
  const listing = auditListing(plan.zones).map((l) => c.dim(l));
  if (totalChanges(counts) === 0 && changed.length === 0) {
    out.push(
      `${c.green("No changes.")} ${unitCount(plan.zones)} ${agrees(plan.zones, "matches", "match")} the configuration.`,
      ...listing,
    );
    return `${out.join("\n")}\n`;
  }
  for (const z of changed) {
    out.push(c.bold(`# ${zoneLabel(z)}`));
    if (opts.errors === false && z.errors.length > 0)
      out.push(`  ${c.red("could not be planned")} (the error is below)`);
    else for (const e of z.errors) out.push(`  ${c.red("Error:")} ${printable(e)}`);
    for (const change of z.changes) {
      out.push(...renderChangeText(change, c, opts.verbose));
      out.push("");
    }
    const audit = auditDiff(z) ?? [];
    if (audit.length > 0) {
      out.push(`  ${c.cyan("~")} ${c.bold(AUDIT_TITLE)}`);
      for (const a of audit) out.push(`      ${a.sign === "+" ? c.green("+") : c.red("-")} ${printable(a.line)}`);
      out.push("");
    } else if (z.changes.length === 0) out.push("");
  }
  if (unchanged.length > 0) out.push(c.dim(`${unitCount(unchanged)} unchanged.`));
  // A plan that failed has no summary: its counts would leave the failed zones out.
  if (failed.length > 0)
    out.push(
      c.red(
        `${unitCount(failed)} could not be planned; apply makes no change anywhere until every zone and account ` +
          "can be planned.",
      ),
    );
  else out.push(c.bold(summaryLine(counts)));
  if (audited.size > 0)
    out.push(`What audit checks changes in ${unitCount([...audited])}: shown above, never written to Cloudflare.`);
  out.push(...listing);
  return `${out.join("\n")}\n`;
}
