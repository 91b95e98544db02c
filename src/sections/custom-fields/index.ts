// `logs.custom_fields`: the custom log fields rule of the zone's http_log_custom_fields entry point.
import type { Section } from "../types.js";
import { logCustomFields } from "./custom-fields.js";
import { exportCustomFields } from "./export.js";

export const customFields: Section = {
  name: "custom_fields",
  folder: "custom-fields",
  path: "logs.custom_fields",
  kinds: [logCustomFields],
  owns: (zone) => zone.logs?.custom_fields !== undefined,
  normalise(file, out) {
    const cf = file.logs?.custom_fields;
    if (!cf || !out.logs) return;
    out.logs.custom_fields = { request_headers: [...(cf.request_headers ?? [])], response_headers: [...(cf.response_headers ?? [])], cookies: [...(cf.cookies ?? [])] };
  },
  export: async (ctx) => ({ logs: { custom_fields: await exportCustomFields(ctx) } }),
  summary(zone) {
    const cf = zone.logs?.custom_fields;
    return cf ? [`custom_fields (${cf.request_headers.length + cf.response_headers.length + cf.cookies.length})`] : [];
  },
  permissions: [{ name: "Logs", scope: "zone", read: "Read", write: "Edit", paths: [/^zones\/[^/]+\/rulesets\/phases\/http_log_custom_fields/] }],
};
