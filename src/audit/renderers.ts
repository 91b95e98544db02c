// Audit output: one renderer per format, all given the same calls (renderer-contract.ts), every value
// redacted first when the CLI knows secrets. JSON and CSV stream; the others are written at the end.
// Spec: docs/commands/audit.md.
import type { InventoryKind } from "../inventory/index.js";
import type { AuditCollector } from "./collector.js";
import { CsvRenderer, JsonRenderer } from "./render-data.js";
import { HtmlRenderer } from "./render-html.js";
import { TableRenderer } from "./render-table.js";
import type { AuditProvenance, AuditRenderer, FormatRenderer } from "./renderer-contract.js";
import { DEFAULT_FAIL_ON, overallResult } from "./result.js";
import { SarifAuditRenderer, type SarifAuditOptions } from "./sarif.js";

export type { AuditFilters, AuditRenderer, AuditTotals } from "./renderer-contract.js";
export { CSV_COLUMNS, csvCell } from "./render-data.js";
export { describeTotals } from "./render-describe.js";

export type AuditFormat = "text" | "json" | "markdown" | "csv" | "sarif" | "html";
export const AUDIT_FORMATS: readonly AuditFormat[] = ["text", "json", "markdown", "csv", "sarif", "html"];

export function createRenderer(
  format: AuditFormat,
  write: (text: string) => void,
  opts: { now?: () => Date; sarif?: SarifAuditOptions; width?: number; redact?: Redact } = {},
): AuditRenderer {
  const now = opts.now ?? (() => new Date());
  const renderer = completing(formatRenderer(format, write, { ...opts, now }), now);
  return opts.redact ? redactingRenderer(renderer, opts.redact) : renderer;
}

export function teeRenderer(...renderers: AuditRenderer[]): AuditRenderer {
  const each =
    <K extends keyof AuditRenderer>(k: K) =>
    (...args: Parameters<AuditRenderer[K]>) => {
      for (const r of renderers) (r[k] as (...a: Parameters<AuditRenderer[K]>) => void)(...args);
    };
  return {
    begin: each("begin"),
    zoneStart: each("zoneStart"),
    finding: each("finding"),
    inventory: each("inventory"),
    headers: each("headers"),
    alerting: each("alerting"),
    zoneEnd: each("zoneEnd"),
    end: each("end"),
  };
}

export type Redact = <T>(value: T) => T;

/** Redacts the structures before any format serializes them: no escaping can hide a secret from it. */
function redactingRenderer(r: AuditRenderer, redact: Redact): AuditRenderer {
  return {
    begin: (provenance) => r.begin(provenance === undefined ? undefined : redact(provenance)),
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
    end: (totals, result) => r.end(totals, result),
  };
}

/** For callers without the provenance or the result (runAudit always gives both): defaults for each. */
function completing(r: FormatRenderer, now: () => Date): AuditRenderer {
  const unknown = (): AuditProvenance => ({
    zoneform_version: "unknown",
    files: [],
    run_at: now().toISOString(),
    zones: [],
  });
  return {
    begin: (provenance) => r.begin(provenance ?? unknown()),
    zoneStart: (zoneId, filters) => r.zoneStart(zoneId, filters),
    finding: (zoneId, f) => r.finding(zoneId, f),
    inventory: (zoneId, check, meta) => r.inventory(zoneId, check, meta),
    headers: (zoneId, check, meta) => r.headers(zoneId, check, meta),
    alerting: (zoneId, check, meta) => r.alerting(zoneId, check, meta),
    zoneEnd: (zoneId, c) => r.zoneEnd(zoneId, c),
    end: (totals, result) => r.end(totals, result ?? overallResult(totals, DEFAULT_FAIL_ON)),
  };
}

function formatRenderer(
  format: AuditFormat,
  write: (text: string) => void,
  opts: { now: () => Date; sarif?: SarifAuditOptions; width?: number },
): FormatRenderer {
  switch (format) {
    case "sarif":
      return new SarifAuditRenderer(write, opts.sarif ?? { version: "unknown" });
    case "json":
      return new JsonRenderer(write, opts.now);
    case "csv":
      return new CsvRenderer(write);
    case "html":
      return new HtmlRenderer(write);
    case "markdown":
      return new TableRenderer(write, "markdown");
    default:
      return new TableRenderer(write, "text", opts.width);
  }
}
