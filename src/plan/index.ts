// plan: what other layers use of it (its front door).
export { assertConsistent } from "./consistency.js";
export { startBinding } from "./binding.js";
export { derivedSalt, planDigest, saltMaterial } from "./digest.js";
export { toDocument } from "./document.js";
export { compareFingerprints, fingerprint } from "./fingerprint.js";
export { checkPlanDocument, parsePlanText, planFileProblem, serialisePlan } from "./plan-file.js";
export { assemblePlan, plan, planZone, unexpectedAnswer, type LiveState, type ZoneLive } from "./planner.js";
export { renderDriftReport } from "./render/compact.js";
export { digestLine } from "./render/digest.js";
export { SIGN } from "./render/format.js";
export { COMMENT_MARKER, GITHUB_COMMENT_LIMIT, renderPlanMarkdown, type MarkdownOptions } from "./render/markdown.js";
export { renderPlanText } from "./render/text.js";
export {
  displayRedactor,
  fileForm,
  fileView,
  planFileText,
  planForDisplay,
  planForFile,
  preparePlanFile,
  shownTemplate,
  type SecretHolder,
} from "./secrets.js";
export { summariseZones, totalChanges } from "./summary.js";
export { planUnits, unitCount, unitKey, unitName, unitPathPrefix, unitsOf } from "./units.js";
