// audit's text and Markdown: the result and provenance first, then each zone's evidence and worst
// `--limit` findings per kind, then the totals. Internet text is escaped for each format.
// Spec: docs/commands/audit.md.
import type { InventoryCheck, Finding, InventoryKind } from "../inventory/index.js";
import { mdCell, mdCode, mdText } from "../safe-markdown.js";
import { printable } from "../safe-text.js";
import { clipMiddle, clipUrl, cutApart, layoutTable, type TableColumn } from "../text-width.js";
import { INVENTORY_KINDS, type AuditCollector } from "./collector.js";
import type { AlertingCheck } from "./alerting.js";
import type { HeaderCheck } from "./headers.js";
import { alertingMarkdown, alertingText } from "./render-alerting.js";
import {
  describeCategories,
  describeFilters,
  describeKind,
  describeResult,
  describeTotals,
  KIND_TITLE,
  truncate,
} from "./render-describe.js";
import { headersMarkdown, headersText } from "./render-headers.js";
import { inventoryMarkdown, inventoryText } from "./render-inventory.js";
import { provenanceMarkdown, provenanceText } from "./render-provenance.js";
import type {
  AlertingMeta,
  AuditFilters,
  AuditProvenance,
  AuditTotals,
  FormatRenderer,
  HeadersMeta,
  InventoryMeta,
  OverallResult,
} from "./renderer-contract.js";

interface FindingColumn extends TableColumn {
  cell: (f: Finding) => string;
  max?: number;
}

function columnsFor(kind: InventoryKind): FindingColumn[] {
  const severity = { title: "SEVERITY", cell: (f: Finding) => f.severity };
  // Each reason stays whole or wraps: a cut could hide the number that made the finding.
  const why = { title: "WHY", cell: (f: Finding) => f.reasons.join("; "), clip: "wrap" as const };
  // At a narrow width the HOST column goes first (the URL's cut keeps its host), then STATUS (the
  // filters line above the table names the status asked for).
  const host = { title: "HOST", cell: (f: Finding) => f.host, yields: 2, min: Number.POSITIVE_INFINITY };
  const status = { title: "STATUS", cell: (f: Finding) => f.status ?? "", yields: 1, min: Number.POSITIVE_INFINITY };
  if (kind === "cookie")
    return [severity, { title: "NAME", cell: (f) => f.subject, max: 40 }, { ...host, yields: 0 }, why];
  const url = { title: "URL", cell: (f: Finding) => f.subject, max: 72, clip: "url" as const };
  if (kind === "connection") return [severity, url, host, status, why];
  // js_integrity_score; the score that made the verdict, when another, is named in WHY.
  const score = {
    title: "INTEGRITY",
    cell: (f: Finding) =>
      f.js_integrity_score === null || f.js_integrity_score === undefined ? "-" : String(f.js_integrity_score),
  };
  return [severity, score, url, host, status, why];
}

export class TableRenderer implements FormatRenderer {
  private readonly body: string[] = [];
  private provenance?: AuditProvenance;

  constructor(
    private readonly out: (text: string) => void,
    private readonly style: "text" | "markdown",
    private readonly width?: number,
  ) {}

  private write(text: string): void {
    this.body.push(text);
  }

  begin(provenance: AuditProvenance): void {
    this.provenance = provenance;
  }

  zoneStart(zoneId: string, filters: AuditFilters): void {
    const zone = printable(zoneId);
    if (this.style === "markdown")
      this.write(`## Zone ${mdCode(zoneId)}\n\nFilters: ${mdText(describeFilters(filters))}\n\n`);
    else this.write(`Page Shield audit of zone ${zone} (${describeFilters(filters)})\n\n`);
  }

  finding(): void {}

  inventory(zoneId: string, check: InventoryCheck, meta: InventoryMeta): void {
    this.write(
      this.style === "markdown" ? inventoryMarkdown(zoneId, check, meta) : inventoryText(check, meta, this.width),
    );
  }

  headers(zoneId: string, check: HeaderCheck, meta: HeadersMeta): void {
    this.write(this.style === "markdown" ? headersMarkdown(zoneId, check, meta) : headersText(check, meta, this.width));
  }

  alerting(zoneId: string, check: AlertingCheck, meta: AlertingMeta): void {
    this.write(
      this.style === "markdown" ? alertingMarkdown(zoneId, check, meta) : alertingText(check, meta, this.width),
    );
  }

  zoneEnd(_zoneId: string, c: AuditCollector): void {
    if (this.style === "markdown")
      this.write(
        "### Page Shield: scripts, connections and cookies\n\n" +
          INVENTORY_KINDS.map((kind) => `- ${describeKind(kind, c.summary[kind])}\n`).join("") +
          "\n",
      );
    let bare = false;
    for (const kind of INVENTORY_KINDS) {
      const s = c.summary[kind];
      const rows = c.worst(kind);
      const more = c.notShown(kind);
      const categories = describeCategories(s);
      if (this.style === "markdown") {
        // Counted in the list above; a kind gets a section only when it has findings to show.
        if (rows.length === 0 && more === 0) continue;
        this.write(`#### ${KIND_TITLE[kind]}\n\n`);
        if (categories) this.write(`Malicious ${mdText(categories)}\n\n`);
        if (rows.length > 0) this.write(markdownTable(kind, rows));
        if (more > 0)
          this.write(
            `\n…and ${more} more, not shown (raise \`--limit\`, or use \`--format csv\` for every finding).\n`,
          );
        this.write("\n");
      } else {
        // A kind with nothing to show is its count line alone, the lines of such kinds together.
        const shown = rows.length > 0 || more > 0 || categories !== undefined;
        if (shown && bare) this.write("\n");
        this.write(`${describeKind(kind, s)}\n`);
        if (categories) this.write(`  malicious ${categories}\n`);
        if (rows.length > 0) this.write(textTable(kind, rows, this.width));
        if (more > 0)
          this.write(`  …and ${more} more, not shown (raise --limit, or use --format csv for every finding)\n`);
        if (shown) this.write("\n");
        bare = !shown;
      }
    }
    if (bare) this.write("\n");
  }

  end(totals: AuditTotals, result: OverallResult): void {
    const provenance = this.provenance ?? { zoneform_version: "unknown", files: [], run_at: "", zones: [] };
    const head =
      this.style === "markdown"
        ? `# Page Shield audit\n\n**${mdText(describeResult(result))}**\n\n${provenanceMarkdown(provenance)}`
        : `${describeResult(result)}\n${provenanceText(provenance)}\n`;
    this.out(head + this.body.join(""));
    this.body.length = 0;
    this.out(this.style === "markdown" ? `**${describeTotals(totals)}**\n` : `${describeTotals(totals)}\n`);
  }
}

/** A column's cells cut to its `max`, or left whole when the cut would make two of them alike. */
function capped(c: FindingColumn, rows: readonly Finding[]): string[] {
  return cutApart(
    rows.map((f) => printable(c.cell(f))),
    (s) =>
      c.clip === "url" ? clipUrl(s, c.max ?? 200) : c.max !== undefined ? clipMiddle(s, c.max) : truncate(s, 200),
  );
}

function textTable(kind: InventoryKind, rows: readonly Finding[], width?: number): string {
  const cols = columnsFor(kind);
  const byColumn = cols.map((c) => capped(c, rows));
  const cells = rows.map((_, r) => byColumn.map((column) => column[r]!));
  return layoutTable(cols, cells, width, { indent: "  " })
    .map((l) => `${l}\n`)
    .join("");
}

function markdownTable(kind: InventoryKind, rows: readonly Finding[]): string {
  const cols = columnsFor(kind);
  const head = `| ${cols.map((c) => c.title.charAt(0) + c.title.slice(1).toLowerCase()).join(" | ")} |\n`;
  const rule = `|${cols.map(() => "---").join("|")}|\n`;
  // Cut only past what a reviewer reads whole (a URL, the reasons); the JSON and CSV keep every character.
  const body = rows.map((f) => `| ${cols.map((c) => mdCell(c.cell(f), 400)).join(" | ")} |\n`).join("");
  return head + rule + body;
}
