// `audit --format sarif`: the audit's findings as one SARIF 2.1.0 log, for GitHub code scanning. Unlike
// JSON and CSV it is one document, written when the audit ends: the results are kept until then (a
// failed audit writes nothing, rather than a log that looks complete).
import type { InventoryCheck } from "../inventory/check.js";
import { inventoryFinding, verdictFinding } from "../sarif/findings.js";
import type { ConfigPositions } from "../sarif/locate.js";
import { sarifLog, sarifResult, sarifText, type SarifResult, type ZoneName } from "../sarif/log.js";
import type { Finding } from "../inventory/classify.js";
import type { AuditFilters, AuditRenderer, AuditTotals, InventoryMeta } from "./renderer.js";

export const DEFAULT_AUDIT_CATEGORY = "zoneform/audit";

export interface SarifAuditOptions {
  /** zoneform's version, for tool.driver. */
  version: string;
  /** runAutomationDetails.id without its final `/` (code scanning's category). */
  category?: string;
  /** Where findings sit in the configuration (-c), when one was read. */
  positions?: ConfigPositions;
  /** Zone names by id, for the logical locations. */
  zoneNames?: ReadonlyMap<string, string>;
}

export class SarifAuditRenderer implements AuditRenderer {
  private readonly results: SarifResult[] = [];
  private readonly filters = new Map<string, AuditFilters>();

  constructor(
    private readonly write: (text: string) => void,
    private readonly opts: SarifAuditOptions,
  ) {}

  private zone(zoneId: string): ZoneName {
    const name = this.opts.zoneNames?.get(zoneId);
    return { id: zoneId, ...(name ? { name } : {}) };
  }

  begin(): void {}

  zoneStart(zoneId: string, filters: AuditFilters): void {
    this.filters.set(zoneId, filters);
  }

  finding(zoneId: string, f: Finding): void {
    this.results.push(sarifResult(verdictFinding(this.zone(zoneId), f, this.opts.positions)));
  }

  inventory(zoneId: string, check: InventoryCheck, _meta?: InventoryMeta): void {
    for (const f of check.findings)
      this.results.push(sarifResult(inventoryFinding(this.zone(zoneId), f, this.opts.positions)));
  }

  zoneEnd(): void {}

  end(totals: AuditTotals): void {
    const zones = [...this.filters].map(([zone_id, filters]) => ({ zone_id, filters }));
    const log = sarifLog({
      version: this.opts.version,
      category: this.opts.category ?? DEFAULT_AUDIT_CATEGORY,
      results: this.results,
      properties: { zones, totals },
    });
    this.write(sarifText(log));
  }
}
