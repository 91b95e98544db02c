// The `documentation_url` the emulator puts on the errors it raises where Cloudflare documents one.
// real-answers.md ("Changes since the seed documents", error answers): `errors[]` items may carry
// `documentation_url` (cloudflare-typescript src/resources/shared.ts). Which page each error names is
// not recorded there: answers seen in public code point an authentication error at the API reference
// (`https://developers.cloudflare.com/api`) or at the reference page of the operation called
// (`…/api/resources/<resource>/methods/<method>`), so the emulator does the same: the reference root for
// the errors raised before any route is known (credentials, body encoding), the operation's page for
// a route's own refusals. The exact pages are the emulator's choice.
import type { ApiErrorBody } from "./types.js";

/** Cloudflare's API reference. */
const API_REFERENCE = "https://developers.cloudflare.com/api";

/** The reference page of one operation, e.g. `custom_hostnames`, `edit`. */
export function operationPage(resource: string, method: string): string {
  return `${API_REFERENCE}/resources/${resource}/methods/${method}/`;
}

/** `errors` with `url` on each item that names no page yet. */
export function documented(errors: ApiErrorBody[], url: string = API_REFERENCE): ApiErrorBody[] {
  return errors.map((e) => (e.documentation_url === undefined ? { ...e, documentation_url: url } : e));
}
