// Counts of a plan's changes, and the closing line of every rendering.
import type { Change, PlanSummary, ZonePlan } from "../model/index.js";

export function summarise(changes: Iterable<Change>): PlanSummary {
  const s: PlanSummary = { create: 0, update: 0, replace: 0, delete: 0 };
  for (const c of changes) s[c.kind] += 1;
  return s;
}

export function summariseZones(zones: ZonePlan[]): PlanSummary {
  return summarise(zones.flatMap((z) => z.changes));
}

export function totalChanges(s: PlanSummary): number {
  return s.create + s.update + s.replace + s.delete;
}

export function summaryLine(s: PlanSummary): string {
  return `Plan: ${s.create} to create, ${s.update} to update, ${s.replace} to replace, ${s.delete} to delete.`;
}
