// Which certificate authority issued a certificate, told from its issuer as the API answers it.
// Spec: docs/configuration.md, `custom_hostnames`.

/** A CA id as the API spells it, and the words. */
export interface IssuerRow {
  ca: "lets_encrypt" | "google" | "ssl_com" | "digicert";
  /** An issuer holding one of these (after normalizing) is this CA's. */
  contains: readonly string[];
  startsWith?: readonly string[];
}

/** Each CA's issuer names, as the recorded answers spell them (DigiCert: cft_custom_hostnames_v4). */
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

export function caOfIssuer(issuer: string | undefined): IssuerRow["ca"] | undefined {
  if (issuer === undefined) return undefined;
  const text = normalizeIssuer(issuer);
  if (text === "") return undefined;
  const hits = ISSUER_TABLE.filter(
    (row) => row.contains.some((w) => text.includes(w)) || (row.startsWith ?? []).some((w) => text.startsWith(w)),
  );
  return hits.length === 1 ? hits[0]!.ca : undefined;
}
