// Custom log fields: the names the zone's log_custom_field rule logs, read with the custom-fields kind's own `read`.
// Spec: docs/configuration.md, `logs.custom_fields`.
import type { ZoneWithCustomFields } from "./types.js";
import {
  fieldsOfRule,
  LISTS,
  logCustomFields,
  logFieldRules,
  RESPONSE_LISTS,
  type FieldList,
} from "./custom-fields.js";
import type { SectionContext } from "../export-context.js";

export type ExportedCustomFields = Partial<
  Record<FieldList, Array<string | { name: string; preserve_duplicates: true }>>
>;

export async function exportCustomFields(ctx: SectionContext): Promise<ExportedCustomFields> {
  const zone: ZoneWithCustomFields = {
    zone_id: ctx.zoneId,
    logs: { custom_fields: { request_headers: [], response_headers: [], cookies: [] } },
  };
  const { live } = await logCustomFields.read(ctx.read, zone);
  const rules = logFieldRules(live.entrypoint);
  const rule = rules[0];
  if (!rule) return { request_headers: [], response_headers: [], cookies: [] };
  if (rules.length > 1)
    ctx.notes.warnings.push(
      `zone ${ctx.zoneId}: ${rules.length} log_custom_field rules; the file describes the first ` +
        `(${rule.id}), plan leaves the others alone`,
    );
  if (rule.enabled === false)
    ctx.notes.warnings.push(
      `zone ${ctx.zoneId}: the custom log fields rule is disabled; the file cannot say so, and plan will enable it`,
    );
  const fields = fieldsOfRule(rule);
  const out: ExportedCustomFields = {};
  for (const list of LISTS) {
    if (fields[list].length === 0 && (list === "transformed_request_headers" || list === "raw_response_headers"))
      continue;
    const kept = (RESPONSE_LISTS as readonly string[]).includes(list)
      ? fields.preserve_duplicates?.[list as (typeof RESPONSE_LISTS)[number]]
      : undefined;
    out[list] = fields[list].map((name) => (kept?.[name] ? { name, preserve_duplicates: true as const } : name));
  }
  return out;
}
