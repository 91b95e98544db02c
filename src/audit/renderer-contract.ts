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
  begin(): void;
  zoneStart(zoneId: string, filters: AuditFilters): void;
  finding(zoneId: string, f: Finding): void;
  /** The zone's script inventory check (zones whose file declares one), before zoneEnd. */
  inventory(zoneId: string, check: InventoryCheck, meta: InventoryMeta): void;
  /** The payment pages' headers (zones whose inventory declares `headers`), after inventory, before zoneEnd. */
  headers(zoneId: string, check: HeaderCheck, meta: HeadersMeta): void;
  /** The Page Shield alert policies covering the zone (zones whose account is known), after headers. */
  alerting(zoneId: string, check: AlertingCheck, meta: AlertingMeta): void;
  zoneEnd(zoneId: string, collector: AuditCollector): void;
  end(totals: AuditTotals): void;
}

/** When the pages' headers were checked, and against which file. */
export interface HeadersMeta {
  checked_at: string;
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
