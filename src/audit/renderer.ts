// What every audit output (render.ts, sarif.ts) implements, and what it is given.
import type { InventoryCheck } from "../inventory/check.js";
import type { Finding } from "../inventory/classify.js";
import type { AuditCollector } from "./collector.js";

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

export interface AuditRenderer {
  begin(): void;
  zoneStart(zoneId: string, filters: AuditFilters): void;
  finding(zoneId: string, f: Finding): void;
  /** The zone's script inventory check (zones whose file declares one), before zoneEnd. */
  inventory(zoneId: string, check: InventoryCheck, meta: InventoryMeta): void;
  zoneEnd(zoneId: string, collector: AuditCollector): void;
  end(totals: AuditTotals): void;
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
  high: number;
  medium: number;
  low: number;
}
