import { expect } from "vitest";
import { normalizeCustomHostname } from "../../../src/sections/custom_hostnames/live.js";
import { onlyChange, sdkBody, type WriteBodyCase, zoneOf } from "../write-body-helpers.js";

export const writeBody: WriteBodyCase = () => {
  // A PATCH edits only the parts of the hostname it carries (an HTTP PATCH; every body parameter of
  // CustomHostnameEditParams is optional): `ssl` alone, since zoneform manages nothing else of the
  // hostname. Inside it, every ssl field of the SDK's edit that the live hostname holds, carried
  // back as it is, with only the planned change (the uploaded-certificate fields aside: a hostname
  // serving one is never patched).
  const ssl = {
    id: "aa4bd600-4144-46a1-82b8-8ef525922877",
    status: "active",
    method: "txt",
    type: "dv",
    certificate_authority: "google",
    bundle_method: "ubiquitous",
    wildcard: false,
    cloudflare_branding: false,
    settings: { min_tls_version: "1.2", http2: "on", tls_1_3: "on", ciphers: ["ECDHE-RSA-AES128-GCM-SHA256"] },
    txt_name: "_acme-challenge.shop.example",
  };
  const live = normalizeCustomHostname({ id: "234e5416-89bd-44ae-adea-93082b3a88ed", hostname: "shop.example", ssl });
  const patch = onlyChange(
    "custom_hostnames",
    "custom_hostname",
    zoneOf("custom_hostnames:\n  - hostname: shop.example\n    certificate_authority: ssl_com\n"),
    { "shop.example": live },
  ).operations[0]!;
  expect(patch.method).toBe("PATCH");
  const uploaded = ["custom_cert_bundle", "custom_certificate", "custom_csr_id", "custom_key"];
  const expected = sdkBody("custom-hostnames/custom-hostnames.d.ts", "CustomHostnameEditParams.SSL").filter(
    (f) => !uploaded.includes(f) && f in ssl,
  );
  const sent = (patch.body as { ssl: Record<string, unknown> }).ssl;
  expect(Object.keys(sent).sort()).toEqual(expected.sort());
  expect(Object.keys(patch.body as object)).toEqual(["ssl"]);
  const { id: _i, status: _s, txt_name: _t, ...writable } = ssl;
  expect(sent).toEqual({ ...writable, certificate_authority: "ssl_com" });
};
