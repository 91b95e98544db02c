// inventory: what other layers use of it (its front door).
export {
  DEFAULT_STALE_DAYS,
  checkInventory,
  type InventoryCheck,
  type InventoryFinding,
  type SeenScript,
} from "./check.js";
export {
  MALICIOUS_SCORE_THRESHOLD,
  THREAT_SCORE_THRESHOLD,
  classify,
  classifyConnection,
  classifyScript,
  compareFindings,
  scoreOf,
  type Finding,
  type InventoryKind,
  type Severity,
} from "./classify.js";
export { hostPartProblem, hostSource, inventoryPolicy, serializePolicy } from "./csp.js";
export { LookalikeJudge, hostReferences, lookalikeFinding } from "./lookalike.js";
export {
  DEFAULT_PAGE_TIMEOUT_MS,
  MAX_PAGE_TIMEOUT_MS,
  PageFetcher,
  type PageFailure,
  type PageFetch,
  type PageFetchProblem,
} from "./page-fetch.js";
export { auditInventory, inventoryQuery, listInScopeScripts } from "./read.js";
export type { AuthorizedScript, ScriptInventory } from "./types.js";
export {
  draftInventory,
  withoutLookalikes,
  type LeftOutScript,
  type PageHeadersSeen,
  DEFAULT_RECENT_DAYS,
} from "./yaml.js";
export { existingPages, locateInventory, readInventory } from "./yaml-locate.js";
export { mergeInventory, type HeaderMerge } from "./yaml-merge.js";
