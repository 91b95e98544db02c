// Semantic rules of the custom_fields section.
// Spec: docs/configuration.md, `logs.custom_fields`.
import { jobsOf } from "../logpush_jobs/index.js";
import { asArray, asRecord, childPointer, zonesOf, type Finding, type Rec, type Rule } from "../rules.js";

/** Custom log fields per zone, all types together. */
const MAX_CUSTOM_FIELDS = 40;

const FIELD_LISTS = [
  "request_headers",
  "transformed_request_headers",
  "response_headers",
  "raw_response_headers",
  "cookies",
] as const;
const HEADER_LISTS = [
  "request_headers",
  "transformed_request_headers",
  "response_headers",
  "raw_response_headers",
] as const;

/** A list item's name: the item itself, or (response lists) its `name`. */
function itemName(item: unknown): unknown {
  return item !== null && typeof item === "object" && !Array.isArray(item) ? (item as Rec).name : item;
}

function* customFieldsOf(doc: unknown): Generator<{ fields: Rec; pointer: string }> {
  for (const { zone, pointer } of zonesOf(doc)) {
    const fields = asRecord(asRecord(zone.logs)?.custom_fields);
    if (fields) yield { fields, pointer: `${pointer}/logs/custom_fields` };
  }
}

/** The API wants header names in lower case (cookie names keep their case). */
export const lowerCaseHeaders: Rule = (doc) => {
  const findings: Finding[] = [];
  for (const { fields, pointer } of customFieldsOf(doc)) {
    for (const list of HEADER_LISTS) {
      asArray(fields[list]).forEach((item, i) => {
        const name = itemName(item);
        if (typeof name === "string" && name !== name.toLowerCase()) {
          findings.push({
            pointer:
              typeof item === "string"
                ? childPointer(`${pointer}/${list}`, i)
                : `${childPointer(`${pointer}/${list}`, i)}/name`,
            message: `header names must be lower case: write '${name.toLowerCase()}' instead of '${name}'`,
          });
        }
      });
    }
  }
  return findings;
};

export const uniqueCustomFields: Rule = (doc) => {
  const findings: Finding[] = [];
  for (const { fields, pointer } of customFieldsOf(doc)) {
    for (const list of FIELD_LISTS) {
      const seen = new Map<string, number>();
      asArray(fields[list]).forEach((item, i) => {
        const name = itemName(item);
        if (typeof name !== "string") return;
        const id = list === "cookies" ? name : name.toLowerCase();
        const earlier = seen.get(id);
        if (earlier === undefined) seen.set(id, i);
        else
          findings.push({
            pointer: childPointer(`${pointer}/${list}`, i),
            message: `'${name}' is listed twice in ${list} (also item ${earlier})`,
          });
      });
    }
  }
  return findings;
};

export const customFieldLimit: Rule = (doc) => {
  const findings: Finding[] = [];
  for (const { fields, pointer } of customFieldsOf(doc)) {
    const total = FIELD_LISTS.reduce((sum, list) => sum + asArray(fields[list]).length, 0);
    if (total > MAX_CUSTOM_FIELDS) {
      findings.push({
        pointer,
        message:
          `${total} custom log fields: a zone may have at most ${MAX_CUSTOM_FIELDS} (headers of ` +
          `every list and cookies together)`,
      });
    }
  }
  return findings;
};

const CUSTOM_FIELD_COLUMNS: Record<string, (typeof FIELD_LISTS)[number]> = {
  RequestHeaders: "request_headers",
  ResponseHeaders: "response_headers",
  Cookies: "cookies",
};

/** A job that pushes RequestHeaders. */
export const customFieldsPushed: Rule = (doc) => {
  const findings: Finding[] = [];
  for (const { job, pointer, zone } of jobsOf(doc)) {
    const fields = asRecord(asRecord(zone.logs)?.custom_fields);
    if (!fields) continue;
    asArray(asRecord(job.output_options)?.field_names).forEach((name, i) => {
      const list = typeof name === "string" ? CUSTOM_FIELD_COLUMNS[name] : undefined;
      if (list && asArray(fields[list]).length === 0) {
        findings.push({
          pointer: childPointer(`${pointer}/output_options/field_names`, i),
          severity: "warning",
          message: `${String(name)} will be empty: logs.custom_fields.${list} lists nothing`,
        });
      }
    });
  }
  return findings;
};

export const CUSTOM_FIELDS_RULES: readonly Rule[] = [
  lowerCaseHeaders,
  uniqueCustomFields,
  customFieldLimit,
  customFieldsPushed,
];
