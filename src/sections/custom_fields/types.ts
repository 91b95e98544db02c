// The custom_fields section's part of a zone.
// Spec: docs/configuration.md, `logs.custom_fields`.
import type { ZoneBase } from "../../model/index.js";

/** The response lists whose items may carry `preserve_duplicates`. */
export type ResponseFieldList = "response_headers" | "raw_response_headers";

export interface DesiredCustomFields {
  /** request_fields: request headers as they reached Cloudflare (raw). */
  request_headers: string[];
  /** transformed_request_fields: request headers after Transform Rules. */
  transformed_request_headers?: string[];
  /** response_fields: response headers after Transform Rules (transformed). */
  response_headers: string[];
  /** raw_response_fields: response headers as the origin sent them. */
  raw_response_headers?: string[];
  cookies: string[];
  /** `preserve_duplicates` the file states, by list and header name. */
  preserve_duplicates?: Partial<Record<ResponseFieldList, Record<string, boolean>>>;
}

/** A list item as the file writes it: a name, or (response lists) `{name, preserve_duplicates}`. */
export type FileFieldItem = string | { name: string; preserve_duplicates?: boolean };

export interface CustomFieldsZone {
  logs?: { custom_fields?: DesiredCustomFields };
}

export type ZoneWithCustomFields = ZoneBase & CustomFieldsZone;

export interface CustomFieldsFileZone {
  logs?: { custom_fields?: Partial<Record<keyof DesiredCustomFields, FileFieldItem[]>> };
}
