// Audit output. JSON and CSV are streamed: every finding is written as soon as it is classified, so
// they list all findings (in the order read) while memory stays flat. Text and Markdown are for people:
// per zone, the worst `--limit` findings of each kind as a table, worst first, and the counts. URLs,
// hosts, cookie names and categories come from the internet: text, Markdown and CSV show them printable
// (control and bidirectional characters escaped); JSON escapes them itself.
import { printable } from "../safe-text.js";
import type { Finding, InventoryKind } from "./classify.js";
import { INVENTORY_KINDS, type AuditCollector, type KindSummary } from "./collector.js";

export type AuditFormat = "text" | "json" | "markdown" | "csv";
export const AUDIT_FORMATS: readonly AuditFormat[] = ["text", "json", "markdown", "csv"];

/** The list filters an audit ran with, as sent to the API, and the verdict's score threshold. */
export interface AuditFilters {
  status?: string[];
  hosts?: string[];
  page_url?: string[];
  /** A script scored below this js_integrity_score is malicious. */
  malicious_below: number;
}

export interface AuditRenderer {
  begin(): void;
  zoneStart(zoneId: string, filters: AuditFilters): void;
  finding(zoneId: string, f: Finding): void;
  zoneEnd(zoneId: string, collector: AuditCollector): void;
  end(totals: AuditTotals): void;
}

export interface AuditTotals {
  findings: number;
  malicious_scripts: number;
  malicious_connections: number;
  insecure_cookies: number;
  high: number;
  medium: number;
  low: number;
}

const KIND_TITLE: Record<InventoryKind, string> = { script: "Scripts", connection: "Connections", cookie: "Cookies" };
const KIND_FINDING: Record<InventoryKind, string> = { script: "malicious", connection: "malicious", cookie: "insecure" };

export function createRenderer(format: AuditFormat, write: (text: string) => void, opts: { now?: () => Date } = {}): AuditRenderer {
  switch (format) {
    case "json":
      return new JsonRenderer(write, opts.now ?? (() => new Date()));
    case "csv":
      return new CsvRenderer(write);
    case "markdown":
      return new TableRenderer(write, "markdown");
    default:
      return new TableRenderer(write, "text");
  }
}

/** A finding as shown to machines: without the internal sort rank. */
export function findingRecord(zoneId: string, f: Finding): Record<string, unknown> {
  const { rank: _rank, ...rest } = f;
  return { zone_id: zoneId, ...rest };
}

export function describeTotals(t: AuditTotals): string {
  if (t.findings === 0) return "No findings: no malicious scripts or connections, no insecure cookies.";
  return (
    `Findings: ${t.malicious_scripts} malicious script${plural(t.malicious_scripts)}, ` +
    `${t.malicious_connections} malicious connection${plural(t.malicious_connections)}, ` +
    `${t.insecure_cookies} insecure cookie${plural(t.insecure_cookies)}.`
  );
}

function plural(n: number): string {
  return n === 1 ? "" : "s";
}

function describeFilters(f: AuditFilters): string {
  const parts = [`status ${f.status?.join(",") ?? "active (default)"}`];
  if (f.hosts) parts.push(`host ${f.hosts.join(",")}`);
  if (f.page_url) parts.push(`page URL ${f.page_url.join(",")}`);
  parts.push(`malicious below js_integrity_score ${f.malicious_below}`);
  return printable(parts.join("; "));
}

function describeKind(kind: InventoryKind, s: KindSummary): string {
  const unscored = s.unscored ? ` (${s.unscored} not scored yet)` : "";
  return `${KIND_TITLE[kind]}: ${s.read} read, ${s.findings} ${KIND_FINDING[kind]}${unscored}`;
}

function describeCategories(s: KindSummary): string | undefined {
  const list = (counts: Record<string, number> | undefined) =>
    Object.entries(counts ?? {})
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .map(([c, n]) => `${c} ${n}`)
      .join(", ");
  const domain = list(s.malicious_domain_categories);
  const url = list(s.malicious_url_categories);
  if (!domain && !url) return undefined;
  return printable([domain ? `domain categories: ${domain}` : "", url ? `URL categories: ${url}` : ""].filter(Boolean).join("; "));
}

function truncate(s: string, max: number): string {
  return s.length <= max ? s : `${s.slice(0, max - 1)}…`;
}

function columnsFor(kind: InventoryKind): Array<{ title: string; cell: (f: Finding) => string; max?: number }> {
  const severity = { title: "SEVERITY", cell: (f: Finding) => f.severity };
  const why = { title: "WHY", cell: (f: Finding) => f.reasons.join("; ") };
  const host = { title: "HOST", cell: (f: Finding) => f.host };
  const status = { title: "STATUS", cell: (f: Finding) => f.status ?? "" };
  if (kind === "cookie") return [severity, { title: "NAME", cell: (f) => f.subject, max: 40 }, host, why];
  const url = { title: "URL", cell: (f: Finding) => f.subject, max: 72 };
  if (kind === "connection") return [severity, url, host, status, why];
  const score = { title: "SCORE", cell: (f: Finding) => (f.js_integrity_score === null || f.js_integrity_score === undefined ? "-" : String(f.js_integrity_score)) };
  return [severity, score, url, host, status, why];
}

class TableRenderer implements AuditRenderer {
  constructor(
    private readonly write: (text: string) => void,
    private readonly style: "text" | "markdown",
  ) {}

  begin(): void {
    if (this.style === "markdown") this.write("# Page Shield audit\n\n");
  }

  zoneStart(zoneId: string, filters: AuditFilters): void {
    const zone = printable(zoneId);
    if (this.style === "markdown") this.write(`## Zone \`${zone}\`\n\nFilters: ${mdEscape(describeFilters(filters))}\n\n`);
    else this.write(`Page Shield audit of zone ${zone} (${describeFilters(filters)})\n\n`);
  }

  finding(): void {}

  zoneEnd(_zoneId: string, c: AuditCollector): void {
    for (const kind of INVENTORY_KINDS) {
      const s = c.summary[kind];
      const rows = c.worst(kind);
      const more = c.notShown(kind);
      const categories = describeCategories(s);
      if (this.style === "markdown") {
        this.write(`### ${describeKind(kind, s)}\n\n`);
        if (categories) this.write(`Malicious ${mdEscape(categories)}\n\n`);
        if (rows.length > 0) this.write(markdownTable(kind, rows));
        if (more > 0) this.write(`\n…and ${more} more, not shown (raise \`--limit\`, or use \`--format csv\` for every finding).\n`);
        this.write("\n");
      } else {
        this.write(`${describeKind(kind, s)}\n`);
        if (categories) this.write(`  malicious ${categories}\n`);
        if (rows.length > 0) this.write(textTable(kind, rows));
        if (more > 0) this.write(`  …and ${more} more, not shown (raise --limit, or use --format csv for every finding)\n`);
        this.write("\n");
      }
    }
  }

  end(totals: AuditTotals): void {
    this.write(this.style === "markdown" ? `**${describeTotals(totals)}**\n` : `${describeTotals(totals)}\n`);
  }
}

function textTable(kind: InventoryKind, rows: readonly Finding[]): string {
  const cols = columnsFor(kind);
  const cells = rows.map((f) => cols.map((c) => truncate(printable(c.cell(f)), c.max ?? 200)));
  const widths = cols.map((c, i) => Math.max(c.title.length, ...cells.map((r) => r[i]!.length)));
  const line = (values: string[]) =>
    `  ${values.map((v, i) => (i === values.length - 1 ? v : v.padEnd(widths[i]!))).join("  ")}`.trimEnd() + "\n";
  return line(cols.map((c) => c.title)) + cells.map(line).join("");
}

function mdEscape(s: string): string {
  return s.replace(/\\/g, "\\\\").replace(/\|/g, "\\|").replace(/([*_`[\]<>])/g, "\\$1");
}

function markdownTable(kind: InventoryKind, rows: readonly Finding[]): string {
  const cols = columnsFor(kind);
  const head = `| ${cols.map((c) => c.title.charAt(0) + c.title.slice(1).toLowerCase()).join(" | ")} |\n`;
  const rule = `|${cols.map(() => "---").join("|")}|\n`;
  const body = rows.map((f) => `| ${cols.map((c) => mdEscape(printable(c.cell(f)))).join(" | ")} |\n`).join("");
  return head + rule + body;
}

class JsonRenderer implements AuditRenderer {
  private zoneCount = 0;
  private findingCount = 0;
  constructor(
    private readonly write: (text: string) => void,
    private readonly now: () => Date,
  ) {}

  begin(): void {
    this.write(`{"format_version":1,"generated_at":${JSON.stringify(this.now().toISOString())},"zones":[`);
  }

  zoneStart(zoneId: string, filters: AuditFilters): void {
    this.write(`${this.zoneCount++ === 0 ? "" : ","}\n{"zone_id":${JSON.stringify(zoneId)},"filters":${JSON.stringify(filters)},"findings":[`);
    this.findingCount = 0;
  }

  finding(zoneId: string, f: Finding): void {
    this.write(`${this.findingCount++ === 0 ? "" : ","}\n  ${JSON.stringify(findingRecord(zoneId, f))}`);
  }

  zoneEnd(_zoneId: string, c: AuditCollector): void {
    this.write(`${this.findingCount > 0 ? "\n" : ""}],"summary":${JSON.stringify(c.summary)}}`);
  }

  end(totals: AuditTotals): void {
    this.write(`\n],"totals":${JSON.stringify(totals)}}\n`);
  }
}

export const CSV_COLUMNS = [
  "zone_id",
  "kind",
  "severity",
  "id",
  "subject",
  "host",
  "status",
  "js_integrity_score",
  "reasons",
  "malicious_domain_categories",
  "malicious_url_categories",
  "first_page_url",
  "last_seen_at",
] as const;

/**
 * One CSV cell (RFC 4180 quoting), printable: control characters are escaped (a newline is `\n`), so a
 * record is one line. A cell a spreadsheet would run as a formula (starting with = + - @) gets a leading
 * apostrophe: URLs and cookie names come from the internet.
 */
export function csvCell(value: string): string {
  const shown = printable(value);
  const safe = /^[=+\-@]/.test(shown) ? `'${shown}` : shown;
  return /[",]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

class CsvRenderer implements AuditRenderer {
  constructor(private readonly write: (text: string) => void) {}
  begin(): void {
    this.write(`${CSV_COLUMNS.join(",")}\r\n`);
  }
  zoneStart(): void {}
  finding(zoneId: string, f: Finding): void {
    const row: Record<(typeof CSV_COLUMNS)[number], string> = {
      zone_id: zoneId,
      kind: f.kind,
      severity: f.severity,
      id: f.id,
      subject: f.subject,
      host: f.host,
      status: f.status ?? "",
      js_integrity_score: f.js_integrity_score === undefined || f.js_integrity_score === null ? "" : String(f.js_integrity_score),
      reasons: f.reasons.join("; "),
      malicious_domain_categories: f.malicious_domain_categories.join(";"),
      malicious_url_categories: f.malicious_url_categories.join(";"),
      first_page_url: f.first_page_url ?? "",
      last_seen_at: f.last_seen_at ?? "",
    };
    this.write(`${CSV_COLUMNS.map((c) => csvCell(row[c])).join(",")}\r\n`);
  }
  zoneEnd(): void {}
  end(): void {}
}
