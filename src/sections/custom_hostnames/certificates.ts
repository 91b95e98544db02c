// The certificate authority report of `zoneform certificates`.
// Spec: docs/commands/certificates.md.
import { countOwn } from "../../data-record.js";
import { printable } from "../../safe-text.js";
import { normalizeCustomHostname, notStated, RETIRED_CA, RETIRING_CA } from "./live.js";

interface HostnameCertificate {
  id: string;
  hostname: string;
  /** `""`: the service's default CA; null: the answer has no `certificate_authority` (not stated). */
  certificate_authority: string | null;
  issuer?: string;
  ssl_status?: string;
  method?: string;
  type?: string;
  /** The certificate was uploaded: no CA applies. */
  uploaded?: true;
  flagged: boolean;
}

interface ZoneCertificates {
  zone_id: string;
  hostnames: HostnameCertificate[];
  /**
   * CA (`""` the default, `not_stated` when the answer has no CA, `uploaded` for uploaded certificates) → number of
   * hostnames.
   */
  by_certificate_authority: Record<string, number>;
}

export interface CertificateReport {
  retiring_certificate_authority: string;
  zones: ZoneCertificates[];
  flagged: number;
  /** The spec's advice per certificate type; `custom_hostname` is what the flagged rows need. */
  advice: Record<CertificateType, string>;
}

type CertificateType = "custom_hostname" | "universal" | "advanced" | "total_tls" | "custom";

const CHAIN_RETIREMENT =
  "lets_encrypt's cross-signed chain is no longer used in issuance or bundling since 2024-09-09 and expired " +
  "on 2024-09-30";

const ADVICE: Readonly<Record<CertificateType, string>> = {
  custom_hostname:
    "not changed automatically. Set certificate_authority in the file's custom_hostnames to another CA " +
    '(google or ssl_com), then plan and apply; the certificate is re-validated and re-issued. ("" leaves ' +
    "the CA Cloudflare picked as it is, so it moves nothing.)",
  universal: "switched to a more compatible CA automatically; nothing to do.",
  advanced:
    "set to lets_encrypt are not changed automatically (Cloudflare reports them by e-mail and in the list " +
    "certificates operation); choose another CA for them.",
  total_tls: "not changed automatically; select a different CA in the Total TLS settings.",
  custom:
    "bundle method compatible or modern: uploaded before 2024-09-09 keep the cross-signed chain until they " +
    "expire, uploaded later use the self-signed root chain; user-defined: the uploaded chain is always " +
    "served, so do not upload the cross-signed chain after 2024-09-30.",
};

const TYPE_LABEL: Record<CertificateType, string> = {
  custom_hostname: "Custom hostname certificates",
  universal: "Universal certificates",
  advanced: "Advanced certificates",
  total_tls: "Total TLS certificates",
  custom: "Custom (uploaded) certificates",
};

export function buildCertificateReport(
  zones: Array<{ zone_id: string; hostnames: Array<Record<string, unknown>> }>,
): CertificateReport {
  const out: ZoneCertificates[] = zones.map((z) => {
    const hostnames = z.hostnames
      .map(normalizeCustomHostname)
      // An uploaded certificate was issued by no CA Cloudflare manages: nothing to flag or change.
      .map(({ ssl_writable: _w, legacy: _l, no_ssl: _n, ...h }) => ({
        ...h,
        flagged: !h.uploaded && h.certificate_authority === RETIRING_CA,
      }))
      .sort((a, b) => Number(b.flagged) - Number(a.flagged) || a.hostname.localeCompare(b.hostname));
    const by: Record<string, number> = {};
    for (const h of hostnames) {
      const key = h.uploaded ? "uploaded" : (h.certificate_authority ?? NOT_STATED);
      countOwn(by, key);
    }
    return { zone_id: z.zone_id, hostnames, by_certificate_authority: by };
  });
  return {
    retiring_certificate_authority: RETIRING_CA,
    zones: out,
    flagged: out.reduce((n, z) => n + z.hostnames.filter((h) => h.flagged).length, 0),
    advice: { ...ADVICE },
  };
}

/** The key of `by_certificate_authority` for hostnames whose answer states no CA. */
const NOT_STATED = "not_stated";
const caText = (ca: string) => (ca === "" ? "default" : ca === NOT_STATED ? "not stated" : printable(ca));
const hostCa = (h: { certificate_authority: string | null; issuer?: string; uploaded?: true }) =>
  h.uploaded
    ? "uploaded"
    : h.certificate_authority === null
      ? printable(notStated(h.issuer))
      : caText(h.certificate_authority);

function table(rows: string[][]): string[] {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) =>
    r
      .map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]!)))
      .join("  ")
      .trimEnd(),
  );
}

export function renderCertificateReportText(report: CertificateReport): string {
  const out: string[] = [];
  for (const z of report.zones) {
    out.push(`# zone ${printable(z.zone_id)}: ${z.hostnames.length} custom hostname(s)`);
    if (z.hostnames.length > 0) {
      const rows = [["", "HOSTNAME", "CA", "SSL STATUS", "METHOD"]];
      for (const h of z.hostnames) {
        rows.push([
          h.flagged ? "!" : " ",
          printable(h.hostname),
          hostCa(h),
          printable(h.ssl_status ?? "-"),
          printable(h.method ?? "-"),
        ]);
      }
      out.push(...table(rows).map((l) => `  ${l}`));
      const by = Object.entries(z.by_certificate_authority)
        .sort(([a], [b]) => caText(a).localeCompare(caText(b)))
        .map(([ca, n]) => `${caText(ca)} ${n}`);
      out.push(`  by CA: ${by.join(", ")}`);
    }
    out.push("");
  }
  if (report.flagged > 0) {
    out.push(
      `! ${report.flagged} custom hostname(s) still use ${report.retiring_certificate_authority}: ${CHAIN_RETIREMENT}.`,
    );
    out.push(`  ${TYPE_LABEL.custom_hostname} are ${ADVICE.custom_hostname}`);
  } else {
    out.push(`No custom hostname uses ${report.retiring_certificate_authority} (${CHAIN_RETIREMENT}).`);
  }
  const onRetired = report.zones.reduce(
    (n, z) => n + z.hostnames.filter((h) => !h.uploaded && h.certificate_authority === RETIRED_CA).length,
    0,
  );
  if (onRetired > 0) {
    out.push(
      `! ${onRetired} custom hostname(s) use ${RETIRED_CA}, which Cloudflare no longer issues from (no new ` +
        `orders or renewals since 2023-10-26): ` +
        'set certificate_authority to "" (or leave it out) in the file and apply, and Cloudflare picks another CA.',
    );
  }
  out.push("");
  out.push("Not covered by this report (other certificate types):");
  for (const t of ["universal", "advanced", "total_tls", "custom"] as const)
    out.push(`  ${TYPE_LABEL[t]}: ${ADVICE[t]}`);
  return `${out.join("\n")}\n`;
}
