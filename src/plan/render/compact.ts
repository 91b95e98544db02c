// The compact drift report for cron: one line per zone that differs, then a total.
import type { Plan } from "../../model/index.js";
import { printable } from "../../safe-text.js";
import { summarise, totalChanges } from "../summary.js";
import { agrees, unitCount, unitName, unitsOf } from "../units.js";

export function renderDriftReport(plan: Plan): string {
  const lines: string[] = [];
  const drifted: typeof plan.zones = [];
  for (const z of plan.zones) {
    const label = printable(unitName(z));
    for (const e of z.errors) lines.push(`${label}: error: ${printable(e)}`);
    const s = summarise(z.changes);
    if (totalChanges(s) === 0) continue;
    drifted.push(z);
    const what = printable(z.changes.map((c) => `${c.kind} ${c.resource} "${c.identity}"`).join("; "));
    lines.push(
      `${label}: drift (${s.create} create, ${s.update} update, ${s.replace} replace, ${s.delete} delete): ${what}`,
    );
  }
  lines.push(
    drifted.length === 0
      ? `No drift: ${unitCount(plan.zones)} ${agrees(plan.zones, "matches", "match")} the configuration.`
      : `Drift in ${unitsOf(drifted, plan.zones)}.`,
  );
  return `${lines.join("\n")}\n`;
}
