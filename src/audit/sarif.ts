// `audit --format sarif`: the findings as one SARIF 2.1.0 log, written when the audit ends (a failed
// audit writes nothing rather than a log that looks complete). Spec: docs/commands/audit.md#sarif.
import type { InventoryCheck, Finding } from "../inventory/index.js";
import {
  artifactUri,
  inventoryFinding,
  verdictFinding,
  type ConfigPositions,
  sarifLog,
  sarifResult,
  sarifText,
  type SarifFinding,
  type SarifResult,
  type ZoneName,
  levelOf,
  type RuleKey,
} from "../sarif/index.js";
import type { AlertingCheck, AlertingFinding } from "./alerting.js";
import type { HeaderCheck, HeaderFinding } from "./headers.js";
import type {
  AuditFilters,
  AuditProvenance,
  AuditTotals,
  FormatRenderer,
  HeadersMeta,
  InventoryMeta,
  OverallResult,
} from "./renderer-contract.js";

export const DEFAULT_AUDIT_CATEGORY = "zoneform/audit";

export interface SarifAuditOptions {
  version: string;
  category?: string;
  positions?: ConfigPositions;
  zoneNames?: ReadonlyMap<string, string>;
}

export class SarifAuditRenderer implements FormatRenderer {
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

  private provenance?: AuditProvenance;

  // Optional for callers that drive this renderer alone (createRenderer always gives both).
  begin(provenance?: AuditProvenance): void {
    this.provenance = provenance;
  }

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

  headers(zoneId: string, check: HeaderCheck, _meta?: HeadersMeta): void {
    for (const f of check.findings)
      this.results.push(sarifResult(headerFinding(this.zone(zoneId), f, this.opts.positions)));
  }

  alerting(zoneId: string, check: AlertingCheck): void {
    for (const f of check.findings) this.results.push(sarifResult(alertingFinding(this.zone(zoneId), f)));
  }

  zoneEnd(): void {}

  end(totals: AuditTotals, result?: OverallResult): void {
    const zones = [...this.filters].map(([zone_id, filters]) => ({ zone_id, filters }));
    const provenance = this.provenance;
    const log = sarifLog({
      version: this.opts.version,
      category: this.opts.category ?? DEFAULT_AUDIT_CATEGORY,
      results: this.results,
      ...(provenance && result ? provenanceParts(provenance, result) : {}),
      properties: { ...(provenance ? { provenance } : {}), ...(result ? { result } : {}), zones, totals },
    });
    this.write(sarifText(log));
  }
}

/** The provenance where SARIF keeps it: the invocation, and each file as an artifact. */
function provenanceParts(
  p: AuditProvenance,
  result: OverallResult,
): { invocations: Array<Record<string, unknown>>; artifacts?: Array<Record<string, unknown>> } {
  const invocation = {
    executionSuccessful: true,
    exitCode: result.exit_code,
    startTimeUtc: p.run_at,
    properties: { result, zoneform_version: p.zoneform_version, zones: p.zones },
  };
  const artifacts = p.files.map((f) => ({
    location: { uri: artifactUri(f.path) },
    roles: ["analysisTarget"],
    hashes: { "sha-256": f.sha256 },
    properties: { git: f.git },
  }));
  return { invocations: [invocation], ...(artifacts.length > 0 ? { artifacts } : {}) };
}

/** A payment page header finding, at its pin, its page URL or its policy; its subject is the page URL. */
function headerFinding(zone: ZoneName, f: HeaderFinding, at?: ConfigPositions): SarifFinding {
  const rule: RuleKey = f.type;
  const where =
    f.type === "changed-header" || f.type === "missing-header"
      ? at?.headerPin(zone.id, f.header ?? "", f.url)
      : f.type === "policy-not-applied" && f.policy
        ? at?.policy(zone.id, f.policy.index)
        : at?.pageUrl(zone.id, f.url);
  const subject =
    f.type === "policy-not-applied"
      ? `${f.url}\npolicy\n${f.policy?.id ?? f.policy?.description ?? ""}`
      : f.header !== undefined
        ? `${f.url}\n${f.header}`
        : f.url;
  const { message, requirement, ...rest } = f;
  return {
    rule,
    level: levelOf(f.severity),
    message: `${message} (PCI DSS v4.0.1 ${requirement}).`,
    zone,
    subject,
    ...(where ? { where } : {}),
    properties: { zone_id: zone.id, ...rest, requirement: `PCI DSS v4.0.1 ${requirement}` },
  };
}

function alertingFinding(zone: ZoneName, f: AlertingFinding): SarifFinding {
  const { message, requirement, ...rest } = f;
  return {
    rule: f.type,
    level: levelOf(f.severity),
    message: `${message} (PCI DSS v4.0.1 ${requirement}).`,
    zone,
    subject: `alerting\n${f.account_id}`,
    properties: { zone_id: zone.id, ...rest, requirement: `PCI DSS v4.0.1 ${requirement}` },
  };
}
