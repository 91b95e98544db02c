// `zoneform evidence DIR` as text, Markdown, JSON and HTML: the period's verdict first, then each run, each
// finding with when it appeared and cleared, the gaps and the changed records. Text from the records is
// data: printable in text, through src/safe-markdown.ts in Markdown and src/safe-html.ts in HTML.
import { html, type SafeHtml } from "../safe-html.js";
import { mdCell, mdCode, mdText } from "../safe-markdown.js";
import { printable } from "../safe-text.js";
import { MAX_GAP_DAYS, type Period } from "./evidence-period.js";
import { code, table } from "./render-html-zone.js";
import { htmlPage } from "./render-html.js";

/** Whether the record holds as evidence of the period: no gap, nothing changed, every record readable. */
export function periodHolds(p: Period): boolean {
  return p.gaps.length === 0 && p.tampered.length === 0 && p.runs.every((r) => r.result !== "unreadable");
}

const counted = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

function verdict(p: Period): string {
  const failed = p.runs.filter((r) => r.result === "fail").length;
  const open = p.findings.filter((f) => !f.cleared).length;
  const span = p.window ? ` for ${p.window.since ?? "the first run"} to ${p.window.until ?? "the last run"}` : "";
  return (
    `${periodHolds(p) ? "RECORD COMPLETE" : "RECORD INCOMPLETE"}${span}: ${counted(p.runs.length, "run")} from ` +
    `${p.runs[0]?.run_at ?? "-"} to ${p.runs.at(-1)?.run_at ?? "-"}, ${failed} failed; ` +
    `${counted(p.gaps.length, "gap")} of more than ${MAX_GAP_DAYS} days, ` +
    `${counted(p.tampered.length, "changed record")}; ` +
    `${counted(p.findings.length, "finding")}, ${open} still open`
  );
}

const GAPS_TITLE = `Gaps in the weekly evaluation (PCI DSS 11.6.1: more than ${MAX_GAP_DAYS} days without a run)`;
const TAMPERED_TITLE = "Records that are not as they were written";

export function renderEvidenceText(p: Period): string {
  const lines = [verdict(p), "", "Runs:"];
  for (const r of p.runs)
    lines.push(`  ${r.run_at ?? "-"}  ${r.result.padEnd(10)} ${counted(r.findings, "finding")}  ${r.file}`);
  if (p.gaps.length > 0)
    lines.push("", `${GAPS_TITLE}:`, ...p.gaps.map((g) => `  ${g.from} → ${g.to}: ${g.days} days`));
  if (p.tampered.length > 0) lines.push("", `${TAMPERED_TITLE}:`, ...p.tampered.map((t) => `  ${t.file}: ${t.why}`));
  if (p.findings.length > 0) {
    lines.push("", "Findings:");
    for (const f of p.findings)
      lines.push(
        `  ${f.type} [${f.requirement ?? "-"}] zone ${f.zone_id}: ${f.message} (first ${f.first_seen}; ` +
          `${f.cleared ? `cleared ${f.cleared}` : "still open"})`,
      );
  }
  return `${lines.map((l) => printable(l)).join("\n")}\n`;
}

export function renderEvidenceMarkdown(p: Period): string {
  const out = ["# Audit evidence of the period", "", `**${mdText(verdict(p))}**`, "", "## Runs", ""];
  out.push("| Run | Result | Findings | Record |", "|---|---|---:|---|");
  for (const r of p.runs) out.push(`| ${mdCell(r.run_at ?? "-")} | ${r.result} | ${r.findings} | ${mdCode(r.file)} |`);
  if (p.gaps.length > 0) {
    out.push("", `## ${GAPS_TITLE}`, "");
    for (const g of p.gaps) out.push(`- ${mdText(`${g.from} → ${g.to}`)}: ${g.days} days`);
  }
  if (p.tampered.length > 0) {
    out.push("", `## ${TAMPERED_TITLE}`, "");
    for (const t of p.tampered) out.push(`- ${mdCode(t.file)}: ${mdText(t.why)}`);
  }
  if (p.findings.length > 0) {
    out.push("", "## Findings", "", "| Finding | PCI DSS | Zone | Detail | First seen | Cleared |");
    out.push("|---|---|---|---|---|---|");
    for (const f of p.findings)
      out.push(
        `| ${mdCell(f.type)} | ${mdCell(f.requirement ?? "-")} | ${mdCode(f.zone_id)} | ${mdCell(f.message)} | ` +
          `${mdCell(f.first_seen)} | ${mdCell(f.cleared ?? "still open")} |`,
      );
  }
  return `${out.join("\n")}\n`;
}

export function renderEvidenceJson(p: Period): string {
  return `${JSON.stringify({ format_version: 1, holds: periodHolds(p), ...p }, null, 2)}\n`;
}

/** One self-contained page (the audit report's shell: nothing loads or runs), to read or print. */
export function renderEvidenceHtml(p: Period): string {
  const holds = periodHolds(p);
  const sections: SafeHtml[] = [
    html`<h2>Runs</h2>`,
    table(
      ["Run", "Result", "Findings", "Record", "sha256"],
      p.runs.map((r) => [r.run_at ?? "-", r.result, r.findings, code(r.file), code(r.sha256)]),
    ),
  ];
  if (p.gaps.length > 0)
    sections.push(
      html`<h2>${GAPS_TITLE}</h2>`,
      table(
        ["From", "To", "Days"],
        p.gaps.map((g) => [g.from, g.to, g.days]),
      ),
    );
  if (p.tampered.length > 0)
    sections.push(
      html`<h2>${TAMPERED_TITLE}</h2>`,
      table(
        ["Record", "Why"],
        p.tampered.map((t) => [code(t.file), t.why]),
      ),
    );
  if (p.findings.length > 0)
    sections.push(
      html`<h2>Findings</h2>`,
      table(
        ["Finding", "PCI DSS", "Zone", "Detail", "First seen", "Cleared"],
        p.findings.map((f) => [
          f.type,
          f.requirement ?? "-",
          code(f.zone_id),
          f.message,
          f.first_seen,
          f.cleared ?? "still open",
        ]),
      ),
    );
  const body = html`<header><h1>Audit evidence of the period</h1>
<div class="result ${holds ? "pass" : "fail"}"><p><strong>${verdict(p)}</strong></p></div></header>
<main>${sections}</main>`;
  return htmlPage(`Audit evidence: ${holds ? "complete" : "INCOMPLETE"}`, body).markup;
}
