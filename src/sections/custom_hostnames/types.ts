// The custom_hostnames section's part of a zone.
// Spec: docs/configuration.md, `custom_hostnames`.
import type { ZoneBase } from "../../model/index.js";

export type CertificateAuthority = "digicert" | "google" | "lets_encrypt" | "ssl_com" | "";

/** The domain control validation methods a PATCH accepts (OpenAPI enum; a legacy hostname may read `cname`). */
export type DcvMethod = "http" | "txt" | "email";

export interface DesiredCustomHostname {
  hostname: string;
  certificate_authority: CertificateAuthority;
  method?: DcvMethod;
}

export interface CustomHostnamesZone {
  custom_hostnames?: DesiredCustomHostname[];
}

export type ZoneWithCustomHostnames = ZoneBase & CustomHostnamesZone;

export interface CustomHostnamesFileZone {
  custom_hostnames?: Array<{ hostname: string; certificate_authority?: CertificateAuthority; method?: DcvMethod }>;
}
