// Custom log fields: the names the zone's log_custom_field rule logs, read with the custom-fields
// kind's own `read`. No rule exports as empty lists, which plan reads as "nothing to log".
import type { DesiredCustomFields, DesiredZone } from "../../model/desired.js";
import { fieldsOfRule, logCustomFields, logFieldRules } from "./custom-fields.js";
import type { SectionContext } from "../export-context.js";

export async function exportCustomFields(ctx: SectionContext): Promise<DesiredCustomFields> {
  const zone: DesiredZone = { zone_id: ctx.zoneId, logs: { prune: true, custom_fields: { request_headers: [], response_headers: [], cookies: [] } } };
  const { live } = await logCustomFields.read(ctx.read, zone);
  const rules = logFieldRules(live.entrypoint);
  const rule = rules[0];
  if (!rule) return { request_headers: [], response_headers: [], cookies: [] };
  if (rules.length > 1) ctx.notes.warnings.push(`zone ${ctx.zoneId}: ${rules.length} log_custom_field rules; the file describes the first (${rule.id}), plan leaves the others alone`);
  if (rule.enabled === false) ctx.notes.warnings.push(`zone ${ctx.zoneId}: the custom log fields rule is disabled; the file cannot say so, and plan will enable it`);
  return fieldsOfRule(rule);
}
