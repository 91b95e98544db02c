// Audit output. JSON and CSV are streamed: every finding is written as soon as it is classified, so
// they list all findings (in the order read) while memory stays flat. Text and Markdown are for people:
// per zone, the worst `--limit` findings of each kind as a table, worst first, and the counts. URLs,
// hosts, cookie names and categories come from the internet: text and CSV show them printable (control,
// invisible and bidirectional characters escaped), Markdown through the one Markdown encoder
// (src/safe-markdown.ts: no markup, link, mention or reference made of data), JSON through safeJson.
import type { InventoryCheck, InventoryFinding, Finding, InventoryKind } from "../inventory/index.js";
import { mdCell, mdCode, mdCodeCell, mdText } from "../safe-markdown.js";
import { printable, safeJson } from "../safe-text.js";
import { clipUrl, layoutTable, type TableColumn } from "../text-width.js";
import { INVENTORY_KINDS, type AuditCollector, type KindSummary } from "./collector.js";
import type { AlertingCheck } from "./alerting.js";
import type { HeaderCheck } from "./headers.js";
import { alertingCsvRows, alertingMarkdown, alertingText } from "./render-alerting.js";
import { headersCsvRows, headersMarkdown, headersText } from "./render-headers.js";
import type {
  AlertingMeta,
  AuditFilters,
  AuditRenderer,
  AuditTotals,
  HeadersMeta,
  InventoryMeta,
} from "./renderer-contract.js";
import { SarifAuditRenderer, type SarifAuditOptions } from "./sarif.js";

export type { AuditFilters, AuditRenderer, AuditTotals } from "./renderer-contract.js";

export type AuditFormat = "text" | "json" | "markdown" | "csv" | "sarif";
export const AUDIT_FORMATS: readonly AuditFormat[] = ["text", "json", "markdown", "csv", "sarif"];

const KIND_TITLE: Record<InventoryKind, string> = { script: "Scripts", connection: "Connections", cookie: "Cookies" };
const KIND_FINDING: Record<InventoryKind, string> = {
  script: "malicious",
  connection: "malicious",
  cookie: "insecure",
};

export function createRenderer(
  format: AuditFormat,
  write: (text: string) => void,
  opts: { now?: () => Date; sarif?: SarifAuditOptions; width?: number; redact?: Redact } = {},
): AuditRenderer {
  const renderer = formatRenderer(format, write, opts);
  return opts.redact ? redactingRenderer(renderer, opts.redact) : renderer;
}

/** A deep copy of a value with every string that holds a secret redacted (Redactor.redactDeep). */
export type Redact = <T>(value: T) => T;

/**
 * The renderer given only redacted values: every finding, check, filter and name is redacted as a
 * structure before any format serializes it (so no JSON, SARIF or Markdown escaping of a secret can
 * slip past a redactor that looks at the output text).
 */
function redactingRenderer(r: AuditRenderer, redact: Redact): AuditRenderer {
  return {
    begin: () => r.begin(),
    zoneStart: (zoneId, filters) => r.zoneStart(redact(zoneId), redact(filters)),
    finding: (zoneId, f) => r.finding(redact(zoneId), redact(f)),
    inventory: (zoneId, check, meta) => r.inventory(redact(zoneId), redact(check), redact(meta)),
    headers: (zoneId, check, meta) => r.headers(redact(zoneId), redact(check), redact(meta)),
    alerting: (zoneId, check, meta) => r.alerting(redact(zoneId), redact(check), redact(meta)),
    zoneEnd: (zoneId, c) =>
      r.zoneEnd(
        redact(zoneId),
        // The collector as the renderers read it: its counts, and its worst findings redacted.
        Object.assign(Object.create(c) as AuditCollector, {
          summary: redact(c.summary),
          worst: (kind: InventoryKind) => redact(c.worst(kind)),
        }),
      ),
    end: (totals) => r.end(totals),
  };
}

function formatRenderer(
  format: AuditFormat,
  write: (text: string) => void,
  opts: { now?: () => Date; sarif?: SarifAuditOptions; width?: number },
): AuditRenderer {
  switch (format) {
    case "sarif":
      return new SarifAuditRenderer(write, opts.sarif ?? { version: "unknown" });
    case "json":
      return new JsonRenderer(write, opts.now ?? (() => new Date()));
    case "csv":
      return new CsvRenderer(write);
    case "markdown":
      return new TableRenderer(write, "markdown");
    default:
      return new TableRenderer(write, "text", opts.width);
  }
}

/** A finding as shown to machines: without the internal sort rank. */
function findingRecord(zoneId: string, f: Finding): Record<string, unknown> {
  const { rank: _rank, ...rest } = f;
  return { zone_id: zoneId, ...rest };
}

export function describeTotals(t: AuditTotals): string {
  const inv = t.inventories ? describeInventoryTotals(t) : "";
  const pages = t.pages_checked !== undefined ? describeHeaderTotals(t) : "";
  if (t.findings === 0) {
    return (
      `No findings: no malicious scripts or connections, no insecure ` +
      `cookies${t.inventories ? ", no unauthorized or changed scripts, no stale authorizations" : ""}` +
      `${t.pages_checked !== undefined ? ", no changed or missing headers on the payment pages" : ""}.`
    );
  }
  return (
    `Findings: ${t.malicious_scripts} malicious script${plural(t.malicious_scripts)}, ` +
    `${t.malicious_connections} malicious connection${plural(t.malicious_connections)}, ` +
    `${t.insecure_cookies} insecure cookie${plural(t.insecure_cookies)}` +
    `${t.lookalike_hosts ? `, ${t.lookalike_hosts} look-alike host${plural(t.lookalike_hosts)}` : ""}${inv}${pages}.`
  );
}

function describeHeaderTotals(t: AuditTotals): string {
  const c = t.changed_headers ?? 0;
  const m = t.missing_headers ?? 0;
  const u = t.unreachable_pages ?? 0;
  const i = t.insecure_pages ?? 0;
  const p = t.policies_not_applied ?? 0;
  return (
    `, ${c} changed header${plural(c)}, ${m} missing header${plural(m)}, ${u} unreachable page${plural(u)}` +
    `${i ? `, ${i} insecure page${plural(i)}` : ""}${p ? `, ${p} polic${p === 1 ? "y" : "ies"} not applied` : ""}`
  );
}

function describeInventoryTotals(t: AuditTotals): string {
  const u = t.unauthorized_scripts ?? 0;
  const c = t.changed_scripts ?? 0;
  const st = t.stale_authorizations ?? 0;
  const r = t.unreviewed_authorizations ?? 0;
  return (
    `, ${u} unauthorized script${plural(u)}, ${r} unreviewed (draft) entr${r === 1 ? "y" : "ies"}, ${c} changed ` +
    `script${plural(c)}, ${st} stale authorization${plural(st)}`
  );
}

function plural(n: number): string {
  return n === 1 ? "" : "s";
}

function describeFilters(f: AuditFilters): string {
  const parts = [`status ${f.status?.join(",") ?? "active (default)"}`];
  if (f.hosts) parts.push(`host ${f.hosts.join(",")}`);
  if (f.page_url) parts.push(`page URL ${f.page_url.join(",")}`);
  parts.push(
    `malicious: js_integrity_score below ${f.malicious_below}, magecart/malware/cryptomining_score below ` +
      `${f.threat_below}, or reported`,
  );
  return printable(parts.join("; "));
}

function describeKind(kind: InventoryKind, s: KindSummary): string {
  const unscored = s.unscored ? ` (${s.unscored} not scored yet)` : "";
  const look = s.lookalike ? `, ${s.lookalike} look-alike host${plural(s.lookalike)}` : "";
  const verdicts = s.findings - (s.lookalike ?? 0);
  return `${KIND_TITLE[kind]}: ${s.read} read, ${verdicts} ${KIND_FINDING[kind]}${look}${unscored}`;
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
  return printable(
    [domain ? `domain categories: ${domain}` : "", url ? `URL categories: ${url}` : ""].filter(Boolean).join("; "),
  );
}

function truncate(s: string, max: number): string {
  return s.length <= max ? s : `${s.slice(0, max - 1)}…`;
}

interface FindingColumn extends TableColumn {
  cell: (f: Finding) => string;
  max?: number;
}

function columnsFor(kind: InventoryKind): FindingColumn[] {
  const severity = { title: "SEVERITY", cell: (f: Finding) => f.severity };
  const why = { title: "WHY", cell: (f: Finding) => f.reasons.join("; ") };
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

class TableRenderer implements AuditRenderer {
  constructor(
    private readonly write: (text: string) => void,
    private readonly style: "text" | "markdown",
    /** Text: the columns tables fit in (columns narrowed, cells cut with …). */
    private readonly width?: number,
  ) {}

  begin(): void {
    if (this.style === "markdown") this.write("# Page Shield audit\n\n");
  }

  zoneStart(zoneId: string, filters: AuditFilters): void {
    const zone = printable(zoneId);
    if (this.style === "markdown")
      this.write(`## Zone ${mdCode(zoneId)}\n\nFilters: ${mdText(describeFilters(filters))}\n\n`);
    else this.write(`Page Shield audit of zone ${zone} (${describeFilters(filters)})\n\n`);
  }

  finding(): void {}

  // The zone's evidence sections, in the order runAudit gives them: the script inventory, the payment
  // pages' headers, the notification policies of the Page Shield alerts (11.6.1's alerting).
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
    for (const kind of INVENTORY_KINDS) {
      const s = c.summary[kind];
      const rows = c.worst(kind);
      const more = c.notShown(kind);
      const categories = describeCategories(s);
      if (this.style === "markdown") {
        this.write(`### ${describeKind(kind, s)}\n\n`);
        if (categories) this.write(`Malicious ${mdText(categories)}\n\n`);
        if (rows.length > 0) this.write(markdownTable(kind, rows));
        if (more > 0)
          this.write(
            `\n…and ${more} more, not shown (raise \`--limit\`, or use \`--format csv\` for every finding).\n`,
          );
        this.write("\n");
      } else {
        this.write(`${describeKind(kind, s)}\n`);
        if (categories) this.write(`  malicious ${categories}\n`);
        if (rows.length > 0) this.write(textTable(kind, rows, this.width));
        if (more > 0)
          this.write(`  …and ${more} more, not shown (raise --limit, or use --format csv for every finding)\n`);
        this.write("\n");
      }
    }
  }

  end(totals: AuditTotals): void {
    this.write(this.style === "markdown" ? `**${describeTotals(totals)}**\n` : `${describeTotals(totals)}\n`);
  }
}

function textTable(kind: InventoryKind, rows: readonly Finding[], width?: number): string {
  const cols = columnsFor(kind);
  const cells = rows.map((f) =>
    cols.map((c) =>
      c.clip === "url" ? clipUrl(printable(c.cell(f)), c.max ?? 200) : truncate(printable(c.cell(f)), c.max ?? 200),
    ),
  );
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

class JsonRenderer implements AuditRenderer {
  private zoneCount = 0;
  private findingCount = 0;
  constructor(
    private readonly write: (text: string) => void,
    private readonly now: () => Date,
  ) {}

  begin(): void {
    this.write(`{"format_version":1,"generated_at":${safeJson(this.now().toISOString())},"zones":[`);
  }

  zoneStart(zoneId: string, filters: AuditFilters): void {
    this.write(
      `${this.zoneCount++ === 0 ? "" : ","}\n{"zone_id":${safeJson(zoneId)},"filters":` +
        `${safeJson(filters)},"findings":[`,
    );
    this.findingCount = 0;
  }

  finding(zoneId: string, f: Finding): void {
    this.write(`${this.findingCount++ === 0 ? "" : ","}\n  ${safeJson(findingRecord(zoneId, f))}`);
  }

  private pendingInventory = "";

  inventory(_zoneId: string, check: InventoryCheck, meta: InventoryMeta): void {
    this.pendingInventory += `,"script_inventory":${safeJson({ ...meta, ...check })}`;
  }

  headers(_zoneId: string, check: HeaderCheck, meta: HeadersMeta): void {
    this.pendingInventory += `,"payment_page_headers":${safeJson({ ...meta, ...check })}`;
  }

  alerting(_zoneId: string, check: AlertingCheck, meta: AlertingMeta): void {
    this.pendingInventory += `,"alerting":${safeJson({ ...meta, ...check })}`;
  }

  zoneEnd(_zoneId: string, c: AuditCollector): void {
    this.write(`${this.findingCount > 0 ? "\n" : ""}]${this.pendingInventory},"summary":${safeJson(c.summary)}}`);
    this.pendingInventory = "";
  }

  end(totals: AuditTotals): void {
    this.write(`\n],"totals":${safeJson(totals)}}\n`);
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
  // Script inventory rows (and `finding` on every row): page_in_scope, authorized, unauthorized,
  // changed, stale; malicious and insecure for the rows above.
  "finding",
  "requirement",
  "justification",
  "owner",
  "pinned_hash",
  "seen_hash",
  "first_seen_at",
  "fetched_at",
  // Payment page headers rows: page_checked, changed-header, missing-header, page-unreachable,
  // insecure-page, policy-not-applied.
  "header",
  "pinned_value",
  "seen_value",
] as const;

type CsvRow = Record<(typeof CSV_COLUMNS)[number], string>;

const EMPTY_ROW: CsvRow = Object.fromEntries(CSV_COLUMNS.map((c) => [c, ""])) as CsvRow;

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
    const row: CsvRow = {
      ...EMPTY_ROW,
      finding: f.lookalike ? "lookalike" : f.kind === "cookie" ? "insecure" : "malicious",
      zone_id: zoneId,
      kind: f.kind,
      severity: f.severity,
      id: f.id,
      subject: f.subject,
      host: f.host,
      status: f.status ?? "",
      js_integrity_score:
        f.js_integrity_score === undefined || f.js_integrity_score === null ? "" : String(f.js_integrity_score),
      reasons: f.reasons.join("; "),
      malicious_domain_categories: f.malicious_domain_categories.join(";"),
      malicious_url_categories: f.malicious_url_categories.join(";"),
      first_page_url: f.first_page_url ?? "",
      last_seen_at: f.last_seen_at ?? "",
    };
    this.row(row);
  }
  private row(row: CsvRow): void {
    this.write(`${CSV_COLUMNS.map((c) => csvCell(row[c])).join(",")}\r\n`);
  }
  inventory(zoneId: string, check: InventoryCheck, meta: InventoryMeta): void {
    const base = { ...EMPTY_ROW, zone_id: zoneId, kind: "script" };
    for (const page of check.pages)
      this.row({
        ...base,
        finding: "page_in_scope",
        subject: page,
        reasons: `checked at ${meta.checked_at}; stale after ${check.stale_days} days`,
      });
    for (const a of check.authorized) {
      this.row({
        ...base,
        finding: "authorized",
        requirement: "6.4.3",
        subject: a.url,
        status: a.state,
        justification: a.justification,
        owner: a.owner ?? "",
        pinned_hash: a.pinned_hash ?? "",
        seen_hash: a.seen_hash ?? "",
        first_seen_at: a.first_seen_at ?? "",
        last_seen_at: a.last_seen_at ?? "",
      });
    }
    for (const f of check.findings) {
      this.row({
        ...base,
        finding: f.type,
        requirement: f.requirement,
        severity: f.severity,
        id: f.script_id ?? "",
        subject: f.url,
        reasons: f.message,
        first_page_url: f.first_page_url ?? "",
        pinned_hash: f.pinned_hash ?? "",
        seen_hash: f.seen_hash ?? "",
        first_seen_at: f.first_seen_at ?? "",
        last_seen_at: f.last_seen_at ?? "",
        fetched_at: f.fetched_at ?? "",
      });
    }
  }
  headers(zoneId: string, check: HeaderCheck, meta: HeadersMeta): void {
    for (const cells of headersCsvRows(check, meta)) {
      const row: CsvRow = { ...EMPTY_ROW, zone_id: zoneId, kind: "page" };
      for (const c of CSV_COLUMNS) {
        const v = cells[c];
        if (v !== undefined) row[c] = v;
      }
      this.row(row);
    }
  }
  alerting(zoneId: string, check: AlertingCheck, meta: AlertingMeta): void {
    for (const cells of alertingCsvRows(check, meta)) {
      const row: CsvRow = { ...EMPTY_ROW, zone_id: zoneId, kind: "alerting" };
      for (const c of CSV_COLUMNS) {
        const v = cells[c];
        if (v !== undefined) row[c] = v;
      }
      this.row(row);
    }
  }
  zoneEnd(): void {}
  end(): void {}
}

const FINDING_TITLE: Record<InventoryFinding["type"], string> = {
  lookalike: "Look-alike host",
  unauthorized: "Unauthorized script",
  unreviewed: "Unreviewed script (draft entry)",
  changed: "Changed script",
  stale: "Stale authorization",
};

function describeQuery(check: InventoryCheck, meta: InventoryMeta): string {
  return printable(
    `page_url ${meta.query.page_url ?? check.pages.join(",")}; status ${meta.query.status ?? "active"}; ` +
      `stale after ${check.stale_days} days`,
  );
}

function shortHash(h: string | undefined): string {
  return h ? (h.length > 16 ? `${h.slice(0, 16)}…` : h) : "-";
}

function inventoryText(check: InventoryCheck, meta: InventoryMeta, width?: number): string {
  const lines = [
    `Script inventory (PCI DSS 6.4.3, 11.6.1), checked at ` +
      `${meta.checked_at}${meta.source ? ` against ${printable(meta.source)}` : ""}`,
    `  pages in scope: ${printable(check.pages.join(", "))}`,
    `  filters: ${describeQuery(check, meta)}`,
    `  ${check.scripts_seen} in-scope script${plural(check.scripts_seen)} read, ${check.details_read} ` +
      `script detail${plural(check.details_read)} read, ${check.authorized.length} authorized ` +
      `entr${check.authorized.length === 1 ? "y" : "ies"}`,
  ];
  // Hashes yield first (shortened, then dropped); a URL is cut in its middle, its host and file name kept.
  const cols: TableColumn[] = [
    { title: "STATE" },
    { title: "URL", clip: "url" },
    { title: "OWNER" },
    { title: "PINNED", yields: true, min: 9 },
    { title: "SEEN HASH", yields: true, min: 9 },
    { title: "LAST SEEN" },
  ];
  const cells = check.authorized.map((a) => [
    a.state,
    clipUrl(printable(a.url), 72),
    printable(a.owner ?? "-"),
    shortHash(a.pinned_hash),
    shortHash(a.seen_hash),
    a.last_seen_at ?? "never",
  ]);
  if (cells.length > 0) lines.push(...layoutTable(cols, cells, width, { indent: "  " }));
  if (check.findings.length === 0) lines.push("  no unauthorized or changed scripts, no stale authorizations");
  for (const f of check.findings)
    lines.push(`  ${f.severity.toUpperCase()} ${printable(f.message)} [${f.requirement}]`);
  return `${lines.join("\n")}\n\n`;
}

function inventoryMarkdown(zoneId: string, check: InventoryCheck, meta: InventoryMeta): string {
  // Evidence for an assessor: cells are cut only past 1000 characters.
  const esc = (v: string | undefined) => (v === undefined || v === "" ? "-" : mdCell(v, 1000));
  const code = (v: string | undefined) => (v ? mdCodeCell(v, 1000) : "-");
  const out: string[] = [
    "### Script inventory of the payment pages (PCI DSS v4.0 6.4.3 and 11.6.1)",
    "",
    `- Zone: ${mdCode(zoneId)}${meta.zone_name ? ` (${mdText(meta.zone_name)})` : ""}`,
    `- Checked at: ${meta.checked_at}`,
    ...(meta.source ? [`- Inventory: ${mdCode(meta.source)}`] : []),
    `- Pages in scope: ${check.pages.map((p) => mdCode(p)).join(", ")}`,
    `- Filters: ${mdText(describeQuery(check, meta))}`,
    `- Read: ${check.scripts_seen} in-scope script${plural(check.scripts_seen)}, ${check.details_read} ` +
      `script detail${plural(check.details_read)}`,
    "",
    "#### Authorized scripts (6.4.3: inventory, written justification, authorization)",
    "",
  ];
  if (check.authorized.length === 0) out.push("None: the inventory authorizes no script.", "");
  else {
    out.push(
      "| Script | Justification | Owner | Pinned hash | Last seen hash | First seen | Last seen | State |",
      "|---|---|---|---|---|---|---|---|",
    );
    for (const a of check.authorized) {
      out.push(
        `| ${esc(a.url)} | ${esc(a.justification)} | ${esc(a.owner)} | ${code(a.pinned_hash)} | ` +
          `${code(a.seen_hash)} | ${esc(a.first_seen_at)} | ${esc(a.last_seen_at)} | ${mdCell(a.state)} |`,
      );
    }
    out.push("");
  }
  out.push("#### Findings", "");
  if (check.findings.length === 0)
    out.push("No unauthorized or changed script was seen on the pages in scope; no authorization is stale.", "");
  else {
    out.push("| Finding | PCI DSS | Script | Detail |", "|---|---|---|---|");
    for (const f of check.findings)
      out.push(`| ${FINDING_TITLE[f.type]} | ${f.requirement} | ${esc(f.url)} | ${esc(f.message)} |`);
    out.push("");
  }
  out.push(
    "#### How this maps to PCI DSS v4.0",
    "",
    "- **6.4.3** (scripts on payment pages are inventoried, each with a written justification, and a method " +
      "confirms each is authorized): the table of authorized scripts is the inventory and its justifications, " +
      "reviewed in the configuration's pull requests; every script Page Shield saw on the pages in scope is " +
      "checked against it (an *unauthorized script* is one it does not authorize), and an authorization no " +
      "longer used is reported as *stale*.",
    "- **11.6.1** (a change- and tamper-detection mechanism alerts on unauthorized modification of the " +
      "scripts): each authorized script pinned to a reviewed `hash` is compared with the hash Page Shield last " +
      "fetched; a *changed script* says when the new version was fetched. Run on a schedule, the audit exits 2 " +
      "on an unauthorized or changed script.",
    "",
  );
  return `${out.join("\n")}\n`;
}
