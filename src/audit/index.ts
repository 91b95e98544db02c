// audit: what other layers use of it (its front door).
export { AUDIT_FORMATS, type AuditFormat } from "./renderers.js";
export {
  DEFAULT_AUDIT_LIMIT,
  DEFAULT_FAIL_ON,
  parseFailOn,
  runAudit,
  shouldFail,
  type AuditOptions,
  type AuditResult,
  type FailOn,
  type ZoneInventory,
} from "./run.js";
export { DEFAULT_AUDIT_CATEGORY, type SarifAuditOptions } from "./sarif.js";
export type { ConfigFileProvenance, GitProvenance } from "./renderer-contract.js";
export { evidencePeriod, sha256, type EvidenceFile, type Period } from "./evidence-period.js";
export {
  periodHolds,
  renderEvidenceHtml,
  renderEvidenceJson,
  renderEvidenceMarkdown,
  renderEvidenceText,
} from "./render-evidence.js";
