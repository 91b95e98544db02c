// Which certificate authority issued a certificate, told from its issuer as the API answers it (`ssl.issuer`,
// `ssl.certificates[].issuer`), for a hostname whose answer states no `certificate_authority` (an older certificate,
// real-answers.md).
// Spec: docs/configuration.md, `custom_hostnames`.

/** A CA id as the API spells it, and the words (lower case, letters and digits only) its issuers carry. */
export interface IssuerRow {
  ca: "lets_encrypt" | "google" | "ssl_com" | "digicert";
  /** An issuer holding one of these (after normalizing) is this CA's. */
  contains: readonly string[];
  /** An issuer starting with one of these is this CA's (short intermediate names such as `GTS CA 1P5`). */
  startsWith?: readonly string[];
}

/**
 * - Let's Encrypt: the organisation (`Let's Encrypt`, `LetsEncrypt` as the API writes it) and its root's, the Internet
 * Security Research Group (`ISRG Root X1`). - Google Trust Services: `Google Trust Services LLC`,
 * `GoogleTrustServices`, intermediates `GTS CA 1P5`. - SSL.com: `SSL.com`, `SSL Corporation`. - DigiCert: `DigiCert
 * Inc`, `DigiCertInc` (the recorded answer, cft_custom_hostnames_v4).
 */
export const ISSUER_TABLE: readonly IssuerRow[] = [
  { ca: "lets_encrypt", contains: ["letsencrypt", "isrg", "internetsecurityresearchgroup"] },
  { ca: "google", contains: ["googletrustservices"], startsWith: ["gts"] },
  { ca: "ssl_com", contains: ["sslcom", "sslcorporation"] },
  { ca: "digicert", contains: ["digicert"] },
];

/** `CN=R3, O=Let's Encrypt, C=US` → `cnr3oletsencryptcus`: the issuer with case and punctuation dropped. */
function normalizeIssuer(issuer: string): string {
  return issuer.toLowerCase().replace(/[^a-z0-9]/g, "");
}

/** The CA id an issuer names, or undefined when no row (or more than one) matches it. */
export function caOfIssuer(issuer: string | undefined): IssuerRow["ca"] | undefined {
  if (issuer === undefined) return undefined;
  const text = normalizeIssuer(issuer);
  if (text === "") return undefined;
  const hits = ISSUER_TABLE.filter(
    (row) => row.contains.some((w) => text.includes(w)) || (row.startsWith ?? []).some((w) => text.startsWith(w)),
  );
  return hits.length === 1 ? hits[0]!.ca : undefined;
}
