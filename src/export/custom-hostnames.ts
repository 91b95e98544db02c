// Custom hostnames and their certificate authority. zoneform never lists hostnames when it plans (it
// looks up the ones a file names), so export pages through the zone's whole list itself.
import { normaliseCustomHostname } from "../resources/custom-hostnames.js";
import type { SectionContext } from "./types.js";

const PER_PAGE = 50;
const KNOWN_CAS = new Set(["digicert", "google", "lets_encrypt", "ssl_com", ""]);

export interface ExportedCustomHostname {
  hostname: string;
  certificate_authority: string;
}

export async function exportCustomHostnames(ctx: SectionContext): Promise<ExportedCustomHostname[]> {
  const out: ExportedCustomHostname[] = [];
  const seen = new Set<string>();
  for await (const raw of ctx.read.client.paginate<Record<string, unknown>>(`zones/${ctx.zoneId}/custom_hostnames`, { perPage: PER_PAGE })) {
    const h = normaliseCustomHostname(raw);
    if (!h.hostname || seen.has(h.hostname.toLowerCase())) continue;
    if (!KNOWN_CAS.has(h.certificate_authority)) {
      ctx.notes.warnings.push(`zone ${ctx.zoneId}: custom hostname ${h.hostname} left out: its CA ${JSON.stringify(h.certificate_authority)} is not one the file format knows`);
      continue;
    }
    seen.add(h.hostname.toLowerCase());
    out.push({ hostname: h.hostname, certificate_authority: h.certificate_authority });
  }
  return out.sort((a, b) => (a.hostname < b.hostname ? -1 : a.hostname > b.hostname ? 1 : 0));
}
