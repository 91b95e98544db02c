// engine: what other layers use of it (its front door).
export { apply, openPlan, planAndApply, type ApplyHooks, type ApplyOptions } from "./apply.js";
export { assertChecked, checkWrites } from "./dry-run.js";
export { executeOne, type ApplyReport } from "./execute.js";
export { lockZones } from "./lock.js";
export { readPlanFile, writePlanFile } from "./plan-store.js";
export { planZones, sealOf } from "./plan.js";
export { createReadContext, readLive } from "./read.js";
export { assertNoZoneErrors, checkSavedPlan, describeViolation, findSafetyViolations } from "./verify.js";
