// What every audit output (renderers.ts, sarif.ts) implements, and what it is given.
import type { InventoryCheck, Finding } from "../inventory/index.js";
import type { AuditCollector } from "./collector.js";
import type { AlertingCheck } from "./alerting.js";
import type { HeaderCheck } from "./headers.js";

/** The list filters an audit ran with, as sent to the API, and the verdict's score threshold. */
export interface AuditFilters {
  status?: string[];
  hosts?: string[];
  page_url?: string[];
  /** A script scored below this js_integrity_score is malicious. */
  malicious_below: number;
  /** …or below this magecart_score, malware_score or cryptomining_score. */
  threat_below: number;
}

/**
 * What every format is given, in this order for each zone: zoneStart, each finding of Page Shield's
 * lists, then the zone's evidence sections (the Markdown report's 11.6.1 evidence, in this order): the
 * script inventory check, the payment pages' headers, the account's notification policies that alert
 * personnel (11.6.1); then zoneEnd.
 */
export interface AuditRenderer {
  /** The run's provenance, known before anything is read: every format carries it (runAudit always gives it). */
  begin(provenance?: AuditProvenance): void;
  zoneStart(zoneId: string, filters: AuditFilters): void;
  finding(zoneId: string, f: Finding): void;
  /** The zone's script inventory check (zones whose file declares one), before zoneEnd. */
  inventory(zoneId: string, check: InventoryCheck, meta: InventoryMeta): void;
  /** The payment pages' headers (zones whose inventory declares `headers`), after inventory, before zoneEnd. */
  headers(zoneId: string, check: HeaderCheck, meta: HeadersMeta): void;
  /** The Page Shield alert policies covering the zone (zones whose account is known), after headers. */
  alerting(zoneId: string, check: AlertingCheck, meta: AlertingMeta): void;
  zoneEnd(zoneId: string, collector: AuditCollector): void;
  /** The totals and the overall result as `--fail-on` decides the exit code (runAudit always gives it). */
  end(totals: AuditTotals, result?: OverallResult): void;
}

/** A format's renderer: given the provenance and the result always (createRenderer fills in what a caller lacks). */
export interface FormatRenderer extends Omit<AuditRenderer, "begin" | "end"> {
  begin(provenance: AuditProvenance): void;
  end(totals: AuditTotals, result: OverallResult): void;
}

/** Git's word on a configuration file: its checkout's commit, and whether the file is that commit's. */
export type GitProvenance =
  /** `commit` is null in a repository without one yet; `clean`: `git status` shows nothing for the file. */
  | { commit: string | null; clean: boolean }
  /** git ran but could not tell (it timed out, or refused the repository). */
  | { error: string };

/** A configuration file read with `-c` (or ./zoneform.yaml): its path as shown, its bytes' sha256. */
export interface ConfigFileProvenance {
  path: string;
  sha256: string;
  /** null: not in a git checkout (or no git on the machine). */
  git: GitProvenance | null;
}

/** A zone in scope, and the pages of it the evidence covers. */
export interface ZoneScope {
  zone_id: string;
  name?: string;
  /** The script inventory's page patterns (PCI DSS 6.4.3 scope). */
  pages?: string[];
  /** The payment pages fetched for their headers (11.6.1). */
  header_urls?: string[];
}

/** Where a report comes from: what ran, on which files, when, over what. */
export interface AuditProvenance {
  zoneform_version: string;
  files: ConfigFileProvenance[];
  run_at: string;
  zones: ZoneScope[];
}

/** What each `--fail-on` value counts (`any` counts every finding). */
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

/** The audit's verdict, as the exit code says it: fail (exit 2) when `--fail-on` counts a finding. */
export interface OverallResult {
  status: "pass" | "fail";
  exit_code: 0 | 2;
  fail_on: string[];
  /** The `--fail-on` values that counted a finding (what made it fail). */
  failed_on: string[];
  /** Every finding, by what each `--fail-on` value counts. */
  counts: FailCounts & { findings: number; high: number; medium: number; low: number };
}

/** When the pages' headers were checked, and against which file. */
export interface HeadersMeta {
  checked_at: string;
  /** The pinned values by header (the file's, reviewed): the HTML report shows them against what was seen. */
  pinned_values?: Readonly<Record<string, string>>;
  zone_name?: string;
  /** The configuration file (file:line of the zone). */
  source?: string;
}

/** When the account's notification policies were read. */
export interface AlertingMeta {
  checked_at: string;
  zone_name?: string;
}

/** Where a script inventory check came from and when it ran: the evidence report is dated. */
export interface InventoryMeta {
  checked_at: string;
  zone_name?: string;
  /** The configuration file the inventory was read from. */
  source?: string;
  /** The list query sent for the in-scope pages. */
  query: Record<string, string>;
}

export interface AuditTotals {
  findings: number;
  malicious_scripts: number;
  malicious_connections: number;
  insecure_cookies: number;
  /** Scripts and connections from a look-alike host (audit's pass and the script inventory check). */
  lookalike_hosts: number;
  /** Script inventory (zones audited against one): present when at least one was. */
  inventories?: number;
  unauthorized_scripts?: number;
  changed_scripts?: number;
  stale_authorizations?: number;
  /** Inventory entries still drafts (a TODO justification or no owner): they authorize nothing. */
  unreviewed_authorizations?: number;
  /** Payment page headers (zones whose inventory declares `headers`): present when at least one did. */
  pages_checked?: number;
  changed_headers?: number;
  missing_headers?: number;
  /** Pages whose headers could not be read (page unreachable). */
  unreachable_pages?: number;
  /** Page URLs on plain http, not fetched. */
  insecure_pages?: number;
  policies_not_applied?: number;
  /** Page Shield alerting (zones whose account is known): present when at least one zone was checked. */
  alerting_checked?: number;
  /** Zones no enabled Page Shield alert policy with someone to notify covers. */
  no_alerting?: number;
  /** Zones whose account's notification policies could not be read. */
  alerting_unread?: number;
  high: number;
  medium: number;
  low: number;
}
