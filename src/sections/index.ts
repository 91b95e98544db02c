// The sections layer's front door: what other layers use of it.
// Spec: docs/architecture.md.
export {
  ACCOUNT_KINDS,
  ACCOUNT_SECTIONS,
  RESOURCE_KINDS,
  SECTIONS,
  type DesiredAccount,
  type DesiredState,
  type DesiredZone,
  type FileZone,
} from "./registry.js";
export type {
  Section,
  SectionPermission,
  AccountSection,
  AccountUnit,
  ResourceKind,
  ReadContext,
  LiveRead,
  DiffResult,
} from "./types.js";
export type { Finding, Rule, RuleContext } from "./rules.js";
export { CLIENT_HINTS } from "./client-hints.js";
export {
  buildCertificateReport,
  customHostnamesApiPath,
  renderCertificateReportText,
} from "./custom_hostnames/index.js";
export { escapeTemplates, newNotes, type EnvVarNote, type ExportNotes, type SectionContext } from "./export-context.js";
export {
  destinationBucket,
  destinationScheme,
  literalSecretParams,
  needsOwnershipChallenge,
} from "./logpush_jobs/index.js";
export {
  PAGE_SHIELD_ALERTS,
  POLICIES_PATH,
  SCRIPT_INVENTORY_HEADERS_PATH,
  SCRIPT_INVENTORY_KEYS,
  SCRIPT_INVENTORY_PATH,
  SECURITY_HEADERS,
  TODO_JUSTIFICATION,
  cspAtLeastAsStrict,
  declaredPoliciesOf,
  hostPartProblem,
  hostSource,
  invisibleCharacters,
  isInsecurePageUrl,
  isPageShieldAlert,
  isPrefix,
  isSessionHeader,
  isTodoJustification,
  pagePatternProblem,
  pageShieldApiPath,
  pageUrlProblem,
  policiesPointer,
  readNotificationPolicies,
  scriptInventoryIn,
  scriptInventoryOf,
  scriptInventoryPointer,
  serializePolicy,
  urlMatches,
  urlParts,
  withoutInvisible,
  type CspJudgement,
  type DesiredAuthorizedScript,
  type DesiredPageHeaders,
  type DesiredPolicy,
  type DesiredScriptInventory,
  type LiveNotification,
} from "./page_shield/index.js";
export { permissionsNeeded } from "./permissions.js";
export { accountsOf, asArray, asRecord, asString, childPointer, literalOnly, zonesOf, type Rec } from "./rules.js";
export { readEntrypoint, writableRule, type Entrypoint, type LiveRule } from "./shared/entrypoint.js";
export { zonePath } from "./shared/fields.js";
export { readZoneInfo } from "./shared/zone-info.js";
export {
  CLOUDFLARE_MANAGED_RULESET_ID,
  CLOUDFLARE_MANAGED_RULESET_NAME,
  OWASP_RULESET_ID,
  OWASP_RULESET_NAME,
  WAF_KEY,
  formatThreshold,
  intentFrom,
  readOwaspRuleset,
  sameParanoia,
  type ExecuteParameters,
  type OwaspAction,
  type OwaspRuleset,
} from "./waf/index.js";
