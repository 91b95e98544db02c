// A custom hostname's `ssl` object as the real API reads it back (recorded/cft_custom_hostnames_v4, _v5).
import { md5Hex, uuidFrom } from "../../ids.js";

type Ssl = Record<string, unknown>;

/** The CA the service picks for a hostname created (or PATCHed) with the default CA (`""` or none). */
export const DEFAULT_CERTIFICATE_AUTHORITY = "google";

const PLACEHOLDER_CERTIFICATE =
  "-----BEGIN CERTIFICATE-----\nPLACEHOLDER+UPLOADED+CERTIFICATE+OF+THE+ZONEFORM+EMULATOR\n-----END CERTIFICATE-----\n";

/** An uploaded (custom) certificate: Cloudflare issues nothing for it, so it has no CA to change. */
export function isUploadedCertificate(ssl: Ssl): boolean {
  return typeof ssl.custom_certificate === "string" && ssl.custom_certificate !== "";
}

/**
 * A stored `certificate_authority: null` stands for an answer without the field: the field is left out of every
 * answer.
 */
export function caNotStated(ssl: Ssl): boolean {
  return ssl.certificate_authority === null;
}

/**
 * The CA a hostname's certificate has: the stored one, the service's default for "" or none; undefined when not
 * stated.
 */
export function effectiveCertificateAuthority(ssl: Ssl): string | undefined {
  if (caNotStated(ssl)) return undefined;
  const ca = ssl.certificate_authority;
  if (typeof ca === "string" && ca !== "") return ca;
  return isUploadedCertificate(ssl) ? undefined : DEFAULT_CERTIFICATE_AUTHORITY;
}

/** The DCV fields for `method`: txt_name/txt_value always, http_url/http_body for http (as in _v4). */
export function dcvFields(hostname: string, method: unknown): Ssl {
  const token = md5Hex(`dcv:${hostname}`);
  const fields: Ssl = {
    txt_name: `_acme-challenge.${hostname}`,
    txt_value: token,
    dcv_delegation_records: [
      { cname: `_acme-challenge.${hostname}`, cname_target: `${hostname}.${token.slice(0, 16)}.dcv.cloudflare.com` },
    ],
  };
  if (method === "http") {
    fields.http_url = `http://${hostname}/.well-known/pki-validation/ca3-${token.slice(16)}.txt`;
    fields.http_body = `ca3-${md5Hex(`http-body:${hostname}`)}`;
  }
  return fields;
}

/** The pending record of a certificate being (re)validated, from the ssl object's own DCV fields. */
export function pendingValidationRecord(ssl: Ssl): Record<string, unknown> {
  if (ssl.method === "http" && typeof ssl.http_url === "string") {
    return { status: "pending", http_url: ssl.http_url, http_body: ssl.http_body };
  }
  return { status: "pending", txt_name: ssl.txt_name, txt_value: ssl.txt_value };
}

/** A seed hostname's ssl: an active DV certificate from `ca` ("" = the default), or an uploaded one. */
export function seedSsl(
  hostname: string,
  method: "http" | "txt",
  ca: string,
  uploaded: boolean,
  createdAt: string,
): Ssl {
  const ssl: Ssl = {
    id: uuidFrom(`ssl:${hostname}`),
    type: "dv",
    method,
    status: "active",
    certificate_authority: ca === "" ? DEFAULT_CERTIFICATE_AUTHORITY : ca,
    bundle_method: "ubiquitous",
    wildcard: false,
    settings: { min_tls_version: "1.2", http2: "on", tls_1_3: "on" },
    ...dcvFields(hostname, method),
    validation_records: [],
    validation_errors: [],
  };
  if (!uploaded) return ssl;
  const expires = new Date(Date.parse(createdAt) + 365 * 86_400_000).toISOString();
  return {
    ...ssl,
    custom_certificate: PLACEHOLDER_CERTIFICATE,
    custom_csr_id: uuidFrom(`csr:${hostname}`),
    issuer: "DigiCertInc",
    serial_number: BigInt(`0x${md5Hex(`serial:${hostname}`)}`).toString(),
    signature: "SHA256WithRSA",
    hosts: [hostname],
    uploaded_on: createdAt,
    expires_on: expires,
  };
}
