// `custom_hostnames`: the certificate authority of existing custom hostnames.
// Spec: docs/configuration.md, `custom_hostnames`.
import type { Section } from "../types.js";
import { customHostnames as customHostnamesKind } from "./custom-hostnames.js";
import { exportCustomHostnames } from "./export.js";
import { CUSTOM_HOSTNAMES_RULES } from "./rules.js";
import type { CustomHostnamesFileZone, CustomHostnamesZone } from "./types.js";

export type * from "./types.js";
// What `certificates` shows: the report of the live hostnames' certificate authorities.
export { buildCertificateReport, renderCertificateReportText } from "./certificates.js";

export function customHostnamesApiPath(zoneId: string): string {
  return `zones/${zoneId}/custom_hostnames`;
}

export const customHostnames: Section<CustomHostnamesZone, CustomHostnamesFileZone> = {
  name: "custom_hostnames",
  path: "custom_hostnames",
  kinds: [customHostnamesKind],
  owns: (zone) => zone.custom_hostnames !== undefined,
  normalize(file, out) {
    const hostnames = file.custom_hostnames;
    if (!hostnames) return;
    out.custom_hostnames = hostnames.map((h) => ({
      hostname: h.hostname.toLowerCase(),
      certificate_authority: h.certificate_authority ?? "",
      ...(h.method !== undefined ? { method: h.method } : {}),
    }));
  },
  export: async (ctx) => ({ custom_hostnames: await exportCustomHostnames(ctx) }),
  summary: (zone) => (zone.custom_hostnames ? [`custom_hostnames (${zone.custom_hostnames.length})`] : []),
  permissions: [
    {
      name: "SSL and Certificates",
      scope: "zone",
      read: "Read",
      write: "Edit",
      paths: [/^zones\/[^/]+\/custom_hostnames/],
    },
  ],
  ids: [{ collection: "custom_hostnames", id: /^([0-9a-f]{32}|phases)$/ }],
  rules: CUSTOM_HOSTNAMES_RULES,
  zoneOnly: "a custom hostname exists in one zone only, so list it in the zone that has it",
};
