// `custom_hostnames`: the certificate authority of existing custom hostnames.
import type { CertificateAuthority } from "../../model/desired.js";
import type { Section } from "../types.js";
import { customHostnames as customHostnamesKind } from "./custom-hostnames.js";
import { exportCustomHostnames } from "./export.js";

export const customHostnames: Section = {
  name: "custom_hostnames",
  folder: "custom-hostnames",
  path: "custom_hostnames",
  kinds: [customHostnamesKind],
  owns: (zone) => zone.custom_hostnames !== undefined,
  normalise(file, out) {
    const hostnames = file.custom_hostnames as Array<{ hostname: string; certificate_authority?: CertificateAuthority }> | undefined;
    if (!hostnames) return;
    out.custom_hostnames = hostnames.map((h) => ({ hostname: h.hostname.toLowerCase(), certificate_authority: h.certificate_authority ?? "" }));
  },
  export: async (ctx) => ({ custom_hostnames: await exportCustomHostnames(ctx) }),
  summary: (zone) => (zone.custom_hostnames ? [`custom_hostnames (${zone.custom_hostnames.length})`] : []),
  permissions: [{ name: "SSL and Certificates", scope: "zone", read: "Read", write: "Edit", paths: [/^zones\/[^/]+\/custom_hostnames/] }],
};
