// The payment pages' headers in text, Markdown evidence and CSV. What a page sends is hostile text:
// each format escapes it (src/safe-markdown.ts for Markdown). Spec: docs/commands/audit.md.
import { mdCell, mdCode, mdCodeCell, mdText } from "../safe-markdown.js";
import { printable } from "../safe-text.js";
import { clipUrl, cutApart, layoutTable, type TableColumn } from "../text-width.js";
import type { HeaderCheck, HeaderFinding } from "./headers.js";
import { truncate } from "./render-describe.js";
import type { HeadersMeta } from "./renderer-contract.js";

const FINDING_TITLE: Record<HeaderFinding["type"], string> = {
  "changed-header": "Changed header",
  "missing-header": "Missing header",
  "page-unreachable": "Page unreachable",
  "insecure-page": "Insecure page",
  "policy-not-applied": "Policy not applied",
};

/** A page's result is prose: it wraps rather than lose its end (an unreachable page's reason). */
const PAGE_COLUMNS: TableColumn[] = [
  { title: "PAGE", clip: "url" },
  { title: "HEADERS" },
  { title: "RESULT", clip: "wrap" },
];

function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

function how(check: HeaderCheck): string {
  return (
    `each page fetched once: GET, no cookies or credentials, headers only (the body is not read), within ` +
    `${seconds(check.timeout_ms)}; a redirect followed only within the page's origin`
  );
}

export function headersText(check: HeaderCheck, meta: HeadersMeta, width?: number): string {
  const lines = [
    `Payment page headers (PCI DSS 11.6.1), checked at ${meta.checked_at}` +
      `${meta.source ? ` against ${printable(meta.source)}` : ""}`,
    `  pinned: ${check.pinned.length > 0 ? printable(check.pinned.join(", ")) : "nothing"}`,
    `  ${how(check)}`,
  ];
  const urls = cutApart(
    check.pages.map((p) => printable(p.url)),
    (u) => clipUrl(u, 72),
  );
  const cells = check.pages.map((p, i) => [
    urls[i]!,
    String(p.headers_checked.length),
    truncate(printable(p.summary), 120),
  ]);
  if (cells.length > 0) lines.push(...layoutTable(PAGE_COLUMNS, cells, width, { indent: "  " }));
  if (check.findings.length === 0) lines.push("  every page sends its pinned headers as pinned");
  for (const f of check.findings)
    lines.push(`  ${f.severity.toUpperCase()} ${printable(truncate(f.message, 600))} [${f.requirement}]`);
  return `${lines.join("\n")}\n\n`;
}

export function headersMarkdown(zoneId: string, check: HeaderCheck, meta: HeadersMeta): string {
  // Evidence for an assessor: cells are cut only past 1000 characters.
  const esc = (v: string | undefined) => (v === undefined || v === "" ? "-" : mdCell(v, 1000));
  const code = (v: string | undefined) => (v === undefined ? "-" : mdCodeCell(v, 1000));
  const out: string[] = [
    "### Security headers of the payment pages (PCI DSS v4.0.1 11.6.1)",
    "",
    `- Zone: ${mdCode(zoneId)}${meta.zone_name ? ` (${mdText(meta.zone_name)})` : ""}`,
    `- Checked at: ${meta.checked_at}`,
    ...(meta.source ? [`- Pins: ${mdCode(meta.source)}`] : []),
    `- Pinned headers: ${check.pinned.length > 0 ? check.pinned.map((h) => mdCode(h)).join(", ") : "none"}`,
    `- How: ${mdText(how(check))}`,
    "",
    "| Page | Headers checked | Result |",
    "|---|---|---|",
    ...check.pages.map((p) => {
      const checked = p.headers_checked.length > 0 ? mdCell(p.headers_checked.join(", "), 1000) : "-";
      return `| ${mdCodeCell(p.url, 1000)} | ${checked} | ${mdCell(p.summary, 1000)} |`;
    }),
    "",
    "#### Header findings",
    "",
  ];
  if (check.findings.length === 0) out.push("Every page sends each pinned header with its pinned value.", "");
  else {
    out.push("| Finding | PCI DSS | Page | Header | Pinned | Seen | Detail |", "|---|---|---|---|---|---|---|");
    for (const f of check.findings)
      out.push(
        `| ${FINDING_TITLE[f.type]} | ${f.requirement} | ${mdCodeCell(f.url, 1000)} | ${code(f.header)} | ` +
          `${code(f.pinned)} | ${code(f.seen)} | ${esc(f.message)} |`,
      );
    out.push("");
  }
  out.push(
    `- **11.6.1** (a change- and tamper-detection mechanism alerts on unauthorized modification of the ` +
      `security-impacting HTTP headers of the payment pages as the consumer's browser receives them): ` +
      `${plural(check.pages.length, "page", "pages")} fetched as a browser requests them and each pinned ` +
      "header compared with what it sent; run on a schedule (at least weekly), the audit exits 2 on a " +
      "*changed* or *missing header* and on a page it could not check.",
    "",
  );
  return `${out.join("\n")}\n`;
}

export function headersCsvRows(check: HeaderCheck, meta: HeadersMeta): Array<Record<string, string>> {
  const rows: Array<Record<string, string>> = check.pages.map((p) => ({
    finding: "page_checked",
    requirement: "11.6.1",
    subject: p.url,
    status: p.result,
    header: p.headers_checked.join(";"),
    reasons: `checked at ${meta.checked_at}: ${p.summary}`,
  }));
  for (const f of check.findings)
    rows.push({
      finding: f.type,
      requirement: f.requirement,
      severity: f.severity,
      subject: f.url,
      status: f.status === undefined ? "" : String(f.status),
      header: f.header ?? "",
      pinned_value: f.pinned ?? "",
      seen_value: f.seen ?? "",
      reasons: f.message,
    });
  return rows;
}
