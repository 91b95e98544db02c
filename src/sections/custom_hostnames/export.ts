// Custom hostnames and their certificate authority. zoneform never lists hostnames when it plans.
// Spec: docs/configuration.md, `custom_hostnames`.
import { effectiveCa, normalizeCustomHostname, notStated, RETIRED_CA } from "./live.js";
import type { SectionContext } from "../export-context.js";

const PER_PAGE = 50;

export interface ExportedCustomHostname {
  hostname: string;
  certificate_authority?: string;
}

export async function exportCustomHostnames(ctx: SectionContext): Promise<ExportedCustomHostname[]> {
  const out: ExportedCustomHostname[] = [];
  const seen = new Set<string>();
  for await (const raw of ctx.read.client.paginate<unknown>(`zones/${ctx.zoneId}/custom_hostnames`, {
    perPage: PER_PAGE,
  })) {
    const h = normalizeCustomHostname(raw);
    if (seen.has(h.hostname.toLowerCase())) continue;
    seen.add(h.hostname.toLowerCase());
    // On digicert as the answer states it, or as its certificate's issuer says when it states no CA.
    if (effectiveCa(h) === RETIRED_CA && !h.uploaded) {
      ctx.notes.warnings.push(
        `zone ${ctx.zoneId}: custom hostname ${h.hostname} is on digicert, which Cloudflare no longer ` +
          `offers (its certificate will not renew); ` +
          `a file cannot state digicert, so it is left out of the file (zoneform leaves unlisted hostnames alone). ` +
          `To move it off digicert, add "- hostname: ${h.hostname}" under custom_hostnames (no ` +
          `certificate_authority: Cloudflare's choice) and plan`,
      );
      continue;
    }
    if (h.no_ssl) {
      ctx.notes.warnings.push(
        `zone ${ctx.zoneId}: custom hostname ${h.hostname} has no certificate (no ssl in the API answer); ` +
          `the file asks for none (to order one, add method: http, txt or email under it)`,
      );
    } else if (h.certificate_authority === null && !h.uploaded) {
      ctx.notes.warnings.push(
        `zone ${ctx.zoneId}: custom hostname ${h.hostname}: certificate authority ${notStated(h.issuer)} in ` +
          `the API answer; the file leaves the choice to Cloudflare (no certificate_authority), which plans no ` +
          `change for it`,
      );
    }
    out.push({ hostname: h.hostname });
  }
  return out.sort((a, b) => (a.hostname < b.hostname ? -1 : a.hostname > b.hostname ? 1 : 0));
}
