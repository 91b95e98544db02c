// Custom hostnames as the API answers them: checked, with the writable part of `ssl` and the CA they are on.
// Spec: docs/configuration.md, `custom_hostnames`.
import { AnswerShapeError } from "../../errors.js";
import { caOfIssuer } from "./issuer.js";
import { clipJson } from "../../redact.js";

/** The CA whose cross-signed chain was retired. */
export const RETIRING_CA = "lets_encrypt";

/** The CA Cloudflare stopped issuing from. */
export const RETIRED_CA = "digicert";

/** The `ssl` fields and `ssl.settings` keys a PATCH carries back as the live hostname has them. */
export const SSL_WRITABLE = ["method", "type", "bundle_method", "wildcard", "cloudflare_branding", "settings"] as const;
export const SETTINGS_WRITABLE = ["ciphers", "early_hints", "http2", "min_tls_version", "tls_1_3"] as const;

/** The DCV methods a PATCH accepts (OpenAPI enum); a legacy hostname may still read `cname`. */
export const PATCH_METHODS = ["http", "txt", "email"] as const;

/** What a PATCH accepts for each writable field with a known type or enum (OpenAPI `customhostname`). */
export const ACCEPTED: Record<string, (v: unknown) => boolean> = {
  method: (v) => (PATCH_METHODS as readonly unknown[]).includes(v),
  type: (v) => v === "dv",
  bundle_method: (v) => v === "ubiquitous" || v === "optimal" || v === "force",
  wildcard: (v) => typeof v === "boolean",
  cloudflare_branding: (v) => typeof v === "boolean",
  "settings.ciphers": (v) => Array.isArray(v) && v.every((c) => typeof c === "string"),
  "settings.early_hints": (v) => v === "on" || v === "off",
  "settings.http2": (v) => v === "on" || v === "off",
  "settings.min_tls_version": (v) => v === "1.0" || v === "1.1" || v === "1.2" || v === "1.3",
  "settings.tls_1_3": (v) => v === "on" || v === "off",
};

export interface LiveCustomHostname {
  id: string;
  hostname: string;
  /** The CA as answered; null when the answer has no `certificate_authority` ("not stated", not `""`). */
  certificate_authority: string | null;
  /** Who issued the certificate, when the answer says (`ssl.certificates[].issuer`, or `ssl.issuer`). */
  issuer?: string;
  /** The live validation method as answered, even one a PATCH no longer accepts (`cname`). */
  method?: string;
  type?: string;
  ssl_status?: string;
  /** The certificate was uploaded (`ssl.custom_certificate` / `custom_csr_id`): no CA applies. */
  uploaded?: true;
  /** The writable part of the live `ssl` object the API accepts back, carried whole in a PATCH. */
  ssl_writable?: Record<string, unknown>;
  /** Live values a PATCH does not accept (`method "cname"`): kept by leaving them out. */
  legacy?: string[];
  /** The answer has no `ssl` object: the hostname has no certificate (none was ordered). */
  no_ssl?: true;
}

/** Listed hostname (lower case) → what the zone has, or null when it has no such hostname. */
export type LiveCustomHostnames = Record<string, LiveCustomHostname | null>;

export const key = (hostname: string) => hostname.toLowerCase();

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

function writableSsl(ssl: Record<string, unknown>): { writable: Record<string, unknown>; legacy: string[] } {
  const out: Record<string, unknown> = {};
  const legacy: string[] = [];
  const keep = (field: string, v: unknown): boolean => {
    if (ACCEPTED[field]!(v)) return true;
    legacy.push(`${field} ${JSON.stringify(v)}`);
    return false;
  };
  for (const k of SSL_WRITABLE) {
    const v = ssl[k];
    if (v === undefined || v === null) continue;
    if (k === "settings") {
      if (!isObject(v)) continue;
      const present = SETTINGS_WRITABLE.filter((s) => v[s] !== undefined && v[s] !== null);
      const settings = Object.fromEntries(present.filter((s) => keep(`settings.${s}`, v[s])).map((s) => [s, v[s]]));
      if (Object.keys(settings).length > 0) out.settings = settings;
      continue;
    }
    if (keep(k, v)) out[k] = v;
  }
  return { writable: out, legacy };
}

/** The certificate's issuer as the answer states it: `ssl.certificates[].issuer` (the first), else `ssl.issuer`. */
function issuerOf(ssl: Record<string, unknown>): string | undefined {
  const certs = Array.isArray(ssl.certificates) ? ssl.certificates : [];
  for (const c of certs) if (isObject(c) && typeof c.issuer === "string" && c.issuer !== "") return c.issuer;
  return typeof ssl.issuer === "string" && ssl.issuer !== "" ? ssl.issuer : undefined;
}

export function normalizeCustomHostname(raw: unknown): LiveCustomHostname {
  if (!isObject(raw))
    throw new AnswerShapeError(
      `the API answered a custom hostname that is not an object (${clipJson(raw, 60)}), expected {id, hostname, ssl}`,
    );
  if (typeof raw.id !== "string" || raw.id === "") {
    throw new AnswerShapeError(
      `the API answered a custom hostname without an id (${JSON.stringify(raw.hostname)}), expected a string id`,
    );
  }
  if (typeof raw.hostname !== "string" || raw.hostname === "") {
    throw new AnswerShapeError(`the API answered custom hostname ${raw.id} without a hostname, expected a string`);
  }
  if (raw.ssl !== undefined && raw.ssl !== null && !isObject(raw.ssl)) {
    throw new AnswerShapeError(
      `the API answered custom hostname ${raw.hostname} with ssl ${clipJson(raw.ssl, 60)}, expected an object`,
    );
  }
  const ssl = isObject(raw.ssl) ? raw.ssl : {};
  const uploaded = typeof ssl.custom_certificate === "string" || typeof ssl.custom_csr_id === "string";
  const ca = ssl.certificate_authority;
  if (ca !== undefined && ca !== null && typeof ca !== "string") {
    throw new AnswerShapeError(
      `the API answered custom hostname ${raw.hostname} with ssl.certificate_authority ` +
        `${JSON.stringify(ca)}, expected a string`,
    );
  }
  const { writable, legacy } = writableSsl(ssl);
  const issuer = issuerOf(ssl);
  return {
    id: raw.id,
    hostname: raw.hostname,
    certificate_authority: typeof ca === "string" ? ca : null,
    ...(issuer !== undefined ? { issuer } : {}),
    ...(typeof ssl.method === "string" ? { method: ssl.method } : {}),
    ...(typeof ssl.type === "string" ? { type: ssl.type } : {}),
    ...(typeof ssl.status === "string" ? { ssl_status: ssl.status } : {}),
    ...(uploaded ? { uploaded: true as const } : {}),
    ...(Object.keys(writable).length > 0 ? { ssl_writable: writable } : {}),
    ...(legacy.length > 0 ? { legacy } : {}),
    ...(isObject(raw.ssl) ? {} : { no_ssl: true as const }),
  };
}

/** How a CA is named in messages; `issuer` only matters when the answer states no CA. */
export function caLabel(ca: string | null, issuer?: string): string {
  if (ca === null) return notStated(issuer);
  return ca === "" ? '"" (the default CA)' : ca;
}

/** A CA the answer does not state, in words: `not stated (issued by …, so google)`. */
export function notStated(issuer: string | undefined): string {
  if (!issuer) return "not stated";
  const ca = caOfIssuer(issuer);
  return `not stated (issued by ${issuer}${ca ? `, so ${ca}` : ""})`;
}

export function effectiveCa(h: LiveCustomHostname): string | undefined {
  return h.certificate_authority ?? caOfIssuer(h.issuer);
}

export function caSatisfied(want: string, live: string): boolean {
  if (want === "") return live !== RETIRED_CA;
  return want === live;
}
