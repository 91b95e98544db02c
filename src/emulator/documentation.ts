// The `documentation_url` on errors where Cloudflare documents one (cloudflare-typescript shared.ts).
import type { ApiErrorBody } from "./types.js";

/** Cloudflare's API reference. */
const API_REFERENCE = "https://developers.cloudflare.com/api";

export function operationPage(resource: string, method: string): string {
  return `${API_REFERENCE}/resources/${resource}/methods/${method}/`;
}

export function documented(errors: ApiErrorBody[], url: string = API_REFERENCE): ApiErrorBody[] {
  return errors.map((e) => (e.documentation_url === undefined ? { ...e, documentation_url: url } : e));
}
