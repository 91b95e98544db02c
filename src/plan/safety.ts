// The safety valve on a plan, in octoDNS's style: a zone whose plan deletes more than
// `safety.max_deletes` resources is refused unless --force. A replacement deletes the old resource
// (after creating the new one), so it counts as a delete. The plan is always shown before this runs.
import { UnsafePlanError } from "../errors.js";
import type { Plan } from "../model/plan.js";
import { printable } from "../safe-text.js";

export interface SafetyViolation {
  zone: string;
  deletes: number;
  max: number;
}

export function findSafetyViolations(plan: Plan, maxDeletes: number): SafetyViolation[] {
  const out: SafetyViolation[] = [];
  for (const z of plan.zones) {
    const deletes = z.changes.filter((c) => c.kind === "delete" || c.kind === "replace").length;
    if (deletes > maxDeletes) out.push({ zone: z.name ?? z.zone_id, deletes, max: maxDeletes });
  }
  return out;
}

export function describeViolation(v: SafetyViolation): string {
  return `[${printable(v.zone)}] too many deletes, ${v.deletes} is over ${v.max} (safety.max_deletes), force required`;
}

export function assertSafe(plan: Plan, maxDeletes: number, force: boolean): void {
  const violations = findSafetyViolations(plan, maxDeletes);
  if (violations.length === 0 || force) return;
  throw new UnsafePlanError(
    `${violations.map(describeViolation).join("\n")}\n` +
      "Nothing was changed. Review the deletes above; run again with --force to apply them, " +
      "or raise safety.max_deletes in the file.",
  );
}
