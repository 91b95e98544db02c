// What every audit output (renderers.ts, sarif.ts) implements, and what it is given.
// Spec: docs/commands/audit.md, "The result and the provenance".
import type { InventoryCheck, Finding } from "../inventory/index.js";
import type { AuditCollector } from "./collector.js";
import type { AlertingCheck } from "./alerting.js";
import type { HeaderCheck } from "./headers.js";

export interface AuditFilters {
  status?: string[];
  hosts?: string[];
  page_url?: string[];
  malicious_below: number;
  threat_below: number;
}

/** Called per zone in this order: zoneStart, the findings, inventory, headers, alerting, zoneEnd. */
export interface AuditRenderer {
  begin(provenance?: AuditProvenance): void;
  zoneStart(zoneId: string, filters: AuditFilters): void;
  finding(zoneId: string, f: Finding): void;
  inventory(zoneId: string, check: InventoryCheck, meta: InventoryMeta): void;
  headers(zoneId: string, check: HeaderCheck, meta: HeadersMeta): void;
  alerting(zoneId: string, check: AlertingCheck, meta: AlertingMeta): void;
  zoneEnd(zoneId: string, collector: AuditCollector): void;
  end(totals: AuditTotals, result?: OverallResult): void;
}

export interface FormatRenderer extends Omit<AuditRenderer, "begin" | "end"> {
  begin(provenance: AuditProvenance): void;
  end(totals: AuditTotals, result: OverallResult): void;
}

export type GitProvenance =
  /** `commit` is null in a repository without one yet. */
  { commit: string | null; clean: boolean } | { error: string };

export interface ConfigFileProvenance {
  path: string;
  sha256: string;
  /** null: not in a git checkout (or no git). */
  git: GitProvenance | null;
}

export interface ZoneScope {
  zone_id: string;
  name?: string;
  pages?: string[];
  header_urls?: string[];
}

export interface AuditProvenance {
  zoneform_version: string;
  files: ConfigFileProvenance[];
  run_at: string;
  zones: ZoneScope[];
}

export type FailCounts = Record<
  | "malicious"
  | "lookalike"
  | "insecure"
  | "unauthorized"
  | "unreviewed"
  | "changed"
  | "stale"
  | "headers"
  | "unreachable"
  | "policy"
  | "alerting",
  number
>;

export interface OverallResult {
  status: "pass" | "fail";
  exit_code: 0 | 2;
  fail_on: string[];
  failed_on: string[];
  counts: FailCounts & { findings: number; high: number; medium: number; low: number };
}

export interface HeadersMeta {
  checked_at: string;
  pinned_values?: Readonly<Record<string, string>>;
  zone_name?: string;
  source?: string;
}

export interface AlertingMeta {
  checked_at: string;
  zone_name?: string;
}

export interface InventoryMeta {
  checked_at: string;
  zone_name?: string;
  source?: string;
  query: Record<string, string>;
}

export interface AuditTotals {
  findings: number;
  malicious_scripts: number;
  malicious_connections: number;
  insecure_cookies: number;
  lookalike_hosts: number;
  inventories?: number;
  unauthorized_scripts?: number;
  changed_scripts?: number;
  stale_authorizations?: number;
  unreviewed_authorizations?: number;
  pages_checked?: number;
  changed_headers?: number;
  missing_headers?: number;
  unreachable_pages?: number;
  insecure_pages?: number;
  policies_not_applied?: number;
  alerting_checked?: number;
  no_alerting?: number;
  alerting_unread?: number;
  high: number;
  medium: number;
  low: number;
}
