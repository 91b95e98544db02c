import { describe, expect, it } from "vitest";
import {
  buildCertificateReport,
  renderCertificateReportText,
} from "../../../src/sections/custom_hostnames/certificates.js";

const h = (hostname: string, ca: string | undefined, method = "http") => ({
  id: `id-${hostname}`,
  hostname,
  ssl: { method, type: "dv", status: "active", ...(ca === undefined ? {} : { certificate_authority: ca }) },
});

describe("certificate report", () => {
  const report = buildCertificateReport([
    {
      zone_id: "z1",
      hostnames: [h("b.example", "google"), h("a.example", "lets_encrypt"), h("c.example", undefined, "txt")],
    },
    { zone_id: "z2", hostnames: [] },
  ]);

  it("flags the hostnames still on lets_encrypt, first, and counts hostnames per CA", () => {
    expect(report.flagged).toBe(1);
    expect(report.zones[0]!.hostnames.map((x) => [x.hostname, x.certificate_authority, x.flagged])).toEqual([
      ["a.example", "lets_encrypt", true],
      ["b.example", "google", false],
      ["c.example", null, false],
    ]);
    expect(report.zones[0]!.by_certificate_authority).toEqual({ lets_encrypt: 1, google: 1, not_stated: 1 });
  });

  it("renders a table with the default CA named, and the advice per certificate type", () => {
    const text = renderCertificateReportText(report);
    expect(text).toMatch(/! +a\.example +lets_encrypt +active +http/);
    expect(text).toMatch(/c\.example +not stated +active +txt/);
    expect(text).toContain("by CA: google 1, lets_encrypt 1, not stated 1");
    expect(text).toContain("# zone z2: 0 custom hostname(s)");
    expect(text).toMatch(/1 custom hostname\(s\) still use lets_encrypt.*2024-09-09.*2024-09-30/);
    expect(text).toMatch(
      /Custom hostname certificates are not changed automatically\. Set certificate_authority.*another CA \(google or ssl_com\)/,
    );
    for (const t of ["Universal", "Advanced", "Total TLS", "Custom \\(uploaded\\)"])
      expect(text).toMatch(new RegExp(`${t} certificates: `));
  });

  it("says so when nothing is flagged", () => {
    const clean = renderCertificateReportText(
      buildCertificateReport([{ zone_id: "z1", hostnames: [h("a.example", "google")] }]),
    );
    expect(clean).toMatch(/^No custom hostname uses lets_encrypt/m);
  });
});

describe("certificate report: default and not stated", () => {
  it('shows "" as default and a missing CA as not stated (issued by …), counted apart', () => {
    const r = buildCertificateReport([
      {
        zone_id: "z1",
        hostnames: [
          h("d.example", ""),
          {
            id: "n",
            hostname: "n.example",
            ssl: { method: "txt", type: "dv", status: "active", certificates: [{ issuer: "GoogleTrustServices" }] },
          },
        ],
      },
    ]);
    expect(r.zones[0]!.hostnames.map((x) => [x.hostname, x.certificate_authority, x.issuer])).toEqual([
      ["d.example", "", undefined],
      ["n.example", null, "GoogleTrustServices"],
    ]);
    expect(r.zones[0]!.by_certificate_authority).toEqual({ "": 1, not_stated: 1 });
    const text = renderCertificateReportText(r);
    expect(text).toMatch(/d\.example +default +active/);
    expect(text).toMatch(/n\.example +not stated \(issued by GoogleTrustServices, so google\) +active +txt/);
    expect(text).toContain("by CA: default 1, not stated 1");
  });
});
