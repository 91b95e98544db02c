// Custom hostnames routes: list, get, and PATCH of the SSL settings.
// Spec: docs/emulator.md, What it emulates.
import {
  caNotStated,
  dcvFields,
  DEFAULT_CERTIFICATE_AUTHORITY,
  effectiveCertificateAuthority,
  isUploadedCertificate,
  pendingValidationRecord,
} from "./ssl.js";
import { operationPage } from "../../documentation.js";
import { uuidFrom } from "../../ids.js";
import { notFoundFault } from "../../envelope.js";
import { paginate, readPageRequest, type PageBounds } from "../../paging.js";
import { ApiFault, type Route, type RouteRequest, type RouteResponse } from "../../types.js";
import { requireFields, type FieldSpec } from "../../validate.js";
import { badQuery, readEnum } from "../../query.js";

type Hostname = Record<string, unknown> & { id: string };
type Ssl = Record<string, unknown>;

const CUSTOM_HOSTNAME_EDIT = operationPage("custom_hostnames", "edit");

const CUSTOM_HOSTNAME_PAGING: PageBounds = { min: 5, max: 50, default: 20 };

/** `""` means the service's default CA (accepted on input, never read back). */
const CERTIFICATE_AUTHORITIES = ["digicert", "google", "lets_encrypt", "ssl_com", ""] as const;

/**
 * Code of the refusal to change the CA of a hostname with an uploaded certificate: 1400 is the emulator's
 * choice (the real code is not recorded); clients should key on the 400.
 */
const UPLOADED_CA_CODE = 1400;

/** Choosing a CA on a zone whose plan is not Enterprise. */
const CA_NEEDS_ENTERPRISE_CODE = 1459;
const CA_NEEDS_ENTERPRISE_MESSAGE =
  "Certificate Authority selection is only available on an Enterprise plan.  If you're interested in the " +
  "Enterprise plan,  " +
  "please fill out this form and someone from our sales team will contact you: " +
  "https://www.cloudflare.com/plans/enterprise/contact/";

const PATCH_FIELDS: Record<string, FieldSpec> = {
  ssl: { type: "object" },
  custom_metadata: { type: "object" },
  custom_origin_server: { type: "string" },
  custom_origin_sni: { type: "string" },
};

const SSL_FIELDS: Record<string, FieldSpec> = {
  method: { type: "string", enum: ["http", "txt", "email"] },
  type: { type: "string", enum: ["dv"] },
  certificate_authority: { type: "string", enum: CERTIFICATE_AUTHORITIES },
  bundle_method: { type: "string", enum: ["ubiquitous", "optimal", "force"] },
  wildcard: { type: "boolean" },
  settings: { type: "object" },
  custom_certificate: { type: "string" },
  custom_key: { type: "string" },
};

function hostnames(req: RouteRequest): Hostname[] {
  return req.zone!.custom_hostnames;
}

function findHostname(req: RouteRequest): Hostname {
  const found = hostnames(req).find((h) => h.id === req.params.custom_hostname_id);
  // Code 1436 is the emulator's choice (unconfirmed); clients should key on the 404.
  if (!found) throw notFoundFault("The custom hostname", 1436);
  return found;
}

/**
 * What the API shows of a stored hostname: the stored object as it is, except that a CA of "" (or none, on a
 * certificate Cloudflare issues) reads back as the CA the service picked, never "" or absent.
 */
function hostnameView(h: Hostname, sslOverride?: Ssl): Hostname {
  if (!hasSsl(h)) {
    // A hostname no certificate was ordered for answers without `ssl` (the SDK's CustomHostname.ssl is
    // optional).
    const { ssl: _none, ...rest } = h;
    return rest as Hostname;
  }
  const ssl: Ssl = { ...(h.ssl as Ssl), ...sslOverride };
  const ca = effectiveCertificateAuthority(ssl);
  if (ca !== undefined) ssl.certificate_authority = ca;
  else if (caNotStated(ssl)) delete ssl.certificate_authority;
  return { ...h, ssl };
}

function listHostnames(req: RouteRequest): RouteResponse {
  const q = req.query;
  const hostname = q.get("hostname");
  const id = q.get("id");
  if (hostname && id) throw badQuery("The 'hostname' and 'id' parameters cannot be used together");
  readEnum(q, "ssl", ["0", "1"]);
  const order = readEnum(q, "order", ["ssl", "ssl_status"]);
  const direction = readEnum(q, "direction", ["asc", "desc"]);
  let items = hostnames(req);
  if (hostname) items = items.filter((h) => String(h.hostname).toLowerCase() === hostname.toLowerCase());
  if (id) items = items.filter((h) => h.id === id);
  // ssl=1 keeps the hostnames that have a certificate; ssl=0 (the default) filters nothing.
  if (q.get("ssl") === "1") items = items.filter(hasSsl);
  if (order || direction) {
    // Both orders sort by the certificate status, ties by hostname; without them, creation order.
    const sign = direction === "desc" ? -1 : 1;
    const key = (h: Hostname) => `${String(hasSsl(h) ? (h.ssl as Ssl).status : "")}\u0000${String(h.hostname)}`;
    items = [...items].sort((a, b) => sign * (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
  }
  const { result, result_info } = paginate(items, readPageRequest(q, CUSTOM_HOSTNAME_PAGING));
  return { result: result.map((h) => hostnameView(h)), result_info };
}

/**
 * PATCH: the `ssl` object replaces the writable ssl fields it carries (`settings` whole) and keeps the others.
 */
function patchHostname(req: RouteRequest): RouteResponse {
  const h = findHostname(req);
  const body = requireFields(req.body, PATCH_FIELDS);
  let answerSsl: Ssl | undefined;
  if (body.ssl !== undefined) {
    const ssl = requireFields(body.ssl, SSL_FIELDS);
    if (
      typeof ssl.certificate_authority === "string" &&
      ssl.certificate_authority !== "" &&
      req.zone!.plan !== "enterprise"
    ) {
      throw new ApiFault(400, [
        {
          code: CA_NEEDS_ENTERPRISE_CODE,
          message: CA_NEEDS_ENTERPRISE_MESSAGE,
          documentation_url: CUSTOM_HOSTNAME_EDIT,
          source: { pointer: "/ssl/certificate_authority" },
        },
      ]);
    }
    const ordered = !hasSsl(h);
    if (ordered) checkOrder(ssl);
    const current = ordered ? newCertificate(String(h.hostname)) : (h.ssl as Ssl);
    const requested =
      ssl.certificate_authority === ""
        ? DEFAULT_CERTIFICATE_AUTHORITY
        : (ssl.certificate_authority as string | undefined);
    const caChanges = !ordered && requested !== undefined && requested !== effectiveCertificateAuthority(current);
    if (caChanges) checkCaChange(current, ssl);
    const next: Ssl = { ...current, ...ssl };
    if (requested !== undefined) next.certificate_authority = requested;
    if (ssl.method !== undefined && ssl.method !== current.method) {
      delete next.http_url;
      delete next.http_body;
      Object.assign(next, dcvFields(String(h.hostname), ssl.method));
    }
    h.ssl = next;
    // Any SSL change (even re-sending the same) re-triggers validation of a certificate Cloudflare issues.
    if (!isUploadedCertificate(next))
      answerSsl = { status: "pending_validation", validation_records: [pendingValidationRecord(next)] };
  }
  for (const k of ["custom_metadata", "custom_origin_server", "custom_origin_sni"] as const) {
    if (body[k] !== undefined) h[k] = body[k];
  }
  return { result: hostnameView(h, answerSsl) };
}

function hasSsl(h: Hostname): boolean {
  return h.ssl !== undefined && h.ssl !== null;
}

/**
 * The certificate a PATCH orders for a hostname that has none, before the PATCH's own fields: the service's
 * default CA, the defaults a created hostname reads back, no DCV fields yet (the PATCH's method adds them).
 */
function newCertificate(hostname: string): Ssl {
  return {
    id: uuidFrom(`ssl:${hostname}`),
    status: "active",
    certificate_authority: DEFAULT_CERTIFICATE_AUTHORITY,
    bundle_method: "ubiquitous",
    wildcard: false,
    settings: {},
    validation_records: [],
    validation_errors: [],
  };
}

/**
 * Ordering a certificate for a hostname without one needs `method` and `type`, as creating a hostname with SSL
 * does; 1434 (the CA change's code) and the message are the emulator's choice.
 */
function checkOrder(ssl: Ssl): void {
  const missing = ["method", "type"].filter((k) => ssl[k] === undefined);
  if (missing.length === 0) return;
  throw new ApiFault(400, [
    {
      code: 1434,
      message:
        "This custom hostname has no certificate: ordering one requires 'method' and 'type' in the ssl object " +
        `(missing: ${missing.join(", ")}).`,
      source: { pointer: "/ssl" },
    },
  ]);
}

function checkCaChange(current: Ssl, ssl: Ssl): void {
  if (isUploadedCertificate(current)) {
    throw new ApiFault(400, [
      {
        code: UPLOADED_CA_CODE,
        message:
          "This custom hostname uses an uploaded certificate (ssl.custom_certificate); its certificate " +
          "authority cannot be changed. " +
          "A certificate authority applies only to certificates Cloudflare issues.",
        source: { pointer: "/ssl/certificate_authority" },
      },
    ]);
  }
  if (ssl.method === undefined || ssl.type === undefined) {
    throw new ApiFault(400, [
      {
        code: 1434,
        message:
          "Changing the certificate authority requires 'method' and 'type' in the same ssl object " +
          `(missing: ${["method", "type"].filter((k) => ssl[k] === undefined).join(", ")}).`,
        source: { pointer: "/ssl" },
      },
    ]);
  }
}

const base = "zones/:zone_id/custom_hostnames";

export const routes: Route[] = [
  { method: "GET", pattern: base, handler: listHostnames },
  {
    method: "GET",
    pattern: `${base}/:custom_hostname_id`,
    handler: (req) => ({ result: hostnameView(findHostname(req)) }),
  },
  { method: "PATCH", pattern: `${base}/:custom_hostname_id`, handler: patchHostname },
];
