// audit's formats for machines, JSON and CSV, both streamed: every finding written as it is classified,
// memory flat. The provenance comes first, the result last. Spec: docs/commands/audit.md.
import type { InventoryCheck, Finding } from "../inventory/index.js";
import { printable, safeJson } from "../safe-text.js";
import type { AlertingCheck } from "./alerting.js";
import type { HeaderCheck } from "./headers.js";
import { alertingCsvRows } from "./render-alerting.js";
import { describeResult } from "./render-describe.js";
import { headersCsvRows } from "./render-headers.js";
import { provenanceCsvRows } from "./render-provenance.js";
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
import type { AuditCollector } from "./collector.js";

function findingRecord(zoneId: string, f: Finding): Record<string, unknown> {
  const { rank: _rank, ...rest } = f;
  return { zone_id: zoneId, ...rest };
}

export class JsonRenderer implements FormatRenderer {
  private zoneCount = 0;
  private findingCount = 0;
  constructor(
    private readonly write: (text: string) => void,
    private readonly now: () => Date,
  ) {}

  begin(provenance: AuditProvenance): void {
    this.write(
      `{"format_version":1,"generated_at":${safeJson(this.now().toISOString())},` +
        `"provenance":${safeJson(provenance)},"zones":[`,
    );
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
    // The pinned values are the file's own (its `pinned` names them): not repeated here.
    const { pinned_values: _values, ...rest } = meta;
    this.pendingInventory += `,"payment_page_headers":${safeJson({ ...rest, ...check })}`;
  }

  alerting(_zoneId: string, check: AlertingCheck, meta: AlertingMeta): void {
    this.pendingInventory += `,"alerting":${safeJson({ ...meta, ...check })}`;
  }

  zoneEnd(_zoneId: string, c: AuditCollector): void {
    this.write(`${this.findingCount > 0 ? "\n" : ""}]${this.pendingInventory},"summary":${safeJson(c.summary)}}`);
    this.pendingInventory = "";
  }

  // Streamed, so the result comes where it is known: last, beside the totals.
  end(totals: AuditTotals, result: OverallResult): void {
    this.write(`\n],"totals":${safeJson(totals)},"result":${safeJson(result)}}\n`);
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
  "finding",
  "requirement",
  "justification",
  "owner",
  "pinned_hash",
  "seen_hash",
  "first_seen_at",
  "fetched_at",
  "header",
  "pinned_value",
  "seen_value",
] as const;

type CsvRow = Record<(typeof CSV_COLUMNS)[number], string>;

const EMPTY_ROW: CsvRow = Object.fromEntries(CSV_COLUMNS.map((c) => [c, ""])) as CsvRow;

/** A CSV cell, one line; a leading apostrophe defuses a spreadsheet formula (cells are internet text). */
export function csvCell(value: string): string {
  const shown = printable(value);
  const safe = /^[=+\-@]/.test(shown) ? `'${shown}` : shown;
  return /[",]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

export class CsvRenderer implements FormatRenderer {
  constructor(private readonly write: (text: string) => void) {}
  begin(provenance: AuditProvenance): void {
    this.write(`${CSV_COLUMNS.join(",")}\r\n`);
    this.cells("", "provenance", provenanceCsvRows(provenance));
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
  private cells(zoneId: string, kind: string, rows: ReadonlyArray<Record<string, string>>): void {
    for (const cells of rows) {
      const row: CsvRow = { ...EMPTY_ROW, zone_id: zoneId, kind };
      for (const c of CSV_COLUMNS) {
        const v = cells[c];
        if (v !== undefined) row[c] = v;
      }
      this.row(row);
    }
  }
  headers(zoneId: string, check: HeaderCheck, meta: HeadersMeta): void {
    this.cells(zoneId, "page", headersCsvRows(check, meta));
  }
  alerting(zoneId: string, check: AlertingCheck, meta: AlertingMeta): void {
    this.cells(zoneId, "alerting", alertingCsvRows(check, meta));
  }
  zoneEnd(): void {}
  // Streamed, so the result row comes where it is known: last.
  end(_totals: AuditTotals, result: OverallResult): void {
    this.cells("", "result", [{ finding: "result", status: result.status, reasons: describeResult(result) }]);
  }
}
