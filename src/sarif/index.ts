// sarif: what other layers use of it (its front door).
export { inventoryFinding, verdictFinding } from "./findings.js";
export { DEFAULT_INVENTORY_CATEGORY, inventorySarif } from "./inventory.js";
export { configPositions, type ConfigPositions } from "./locate.js";
export {
  artifactUri,
  categoryProblem,
  sarifLog,
  sarifResult,
  sarifText,
  type SarifFinding,
  type SarifResult,
  type ZoneName,
} from "./log.js";
export { levelOf, type RuleKey } from "./rules.js";
