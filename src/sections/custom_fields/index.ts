// `logs.custom_fields`: the custom log fields rule of the zone's http_log_custom_fields entry point.
// Spec: docs/configuration.md, `logs.custom_fields`.
import type { Section } from "../types.js";
import { LISTS, logCustomFields, RESPONSE_LISTS } from "./custom-fields.js";
import { exportCustomFields } from "./export.js";
import { CUSTOM_FIELDS_RULES } from "./rules.js";
import type {
  CustomFieldsFileZone,
  CustomFieldsZone,
  DesiredCustomFields,
  FileFieldItem as FileItem,
} from "./types.js";

export type * from "./types.js";

export const customFields: Section<CustomFieldsZone, CustomFieldsFileZone> = {
  name: "custom_fields",
  path: "logs.custom_fields",
  kinds: [logCustomFields],
  owns: (zone) => zone.logs?.custom_fields !== undefined,
  normalize(file, out) {
    const cf = file.logs?.custom_fields;
    if (!cf || !out.logs) return;
    const names = (list: (typeof LISTS)[number]) =>
      (cf[list] ?? []).map((item) => (typeof item === "string" ? item : item.name));
    const fields: DesiredCustomFields = { request_headers: [], response_headers: [], cookies: [] };
    for (const list of LISTS) if (cf[list] !== undefined) fields[list] = names(list);
    for (const list of RESPONSE_LISTS) {
      const stated = (cf[list] ?? []).filter(
        (i): i is Exclude<FileItem, string> => typeof i !== "string" && i.preserve_duplicates !== undefined,
      );
      if (stated.length > 0)
        (fields.preserve_duplicates ??= {})[list] = Object.fromEntries(
          stated.map((i) => [i.name.toLowerCase(), i.preserve_duplicates!]),
        );
    }
    out.logs.custom_fields = fields;
  },
  export: async (ctx) => ({ logs: { custom_fields: await exportCustomFields(ctx) } }),
  summary(zone) {
    const cf = zone.logs?.custom_fields;
    return cf ? [`custom_fields (${LISTS.reduce((n, l) => n + (cf[l]?.length ?? 0), 0)})`] : [];
  },
  permissions: [
    {
      name: "Logs",
      scope: "zone",
      read: "Read",
      write: "Edit",
      paths: [/^zones\/[^/]+\/rulesets\/phases\/http_log_custom_fields/],
    },
  ],
  rules: CUSTOM_FIELDS_RULES,
};
