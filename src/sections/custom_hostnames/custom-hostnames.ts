// Custom hostnames (SSL for SaaS).
// Spec: docs/configuration.md, `custom_hostnames`.
import { AnswerShapeError } from "../../errors.js";
import type { CertificateAuthority, DcvMethod, DesiredCustomHostname } from "./types.js";
import { caOfIssuer } from "./issuer.js";
import type { ZoneWithCustomHostnames } from "./types.js";
import type { Change } from "../../model/index.js";
import { zonePath } from "../shared/fields.js";
import type { ReadContext, ResourceKind } from "../types.js";
import { clipJson } from "../../redact.js";

const RESOURCE = "custom_hostname";

/** The page size of the zone's list: the API's maximum for this endpoint. */
export const LIST_PAGE_SIZE = 50;

/** The most pages of the zone's list read. */
const MAX_LIST_PAGES = 10_000;

/** The CA whose cross-signed chain was retired. */
export const RETIRING_CA = "lets_encrypt";

/** The CA Cloudflare stopped issuing from. */
export const RETIRED_CA = "digicert";

/** The `ssl` fields a PATCH carries back as the live hostname has them. */
export const SSL_WRITABLE = ["method", "type", "bundle_method", "wildcard", "cloudflare_branding", "settings"] as const;
/** The writable keys of `ssl.settings`, carried back the same way. */
export const SETTINGS_WRITABLE = ["ciphers", "early_hints", "http2", "min_tls_version", "tls_1_3"] as const;

/** The DCV methods a PATCH accepts (OpenAPI enum); a legacy hostname may still read `cname`. */
const PATCH_METHODS = ["http", "txt", "email"] as const;

/** What a PATCH accepts for each writable field with a known type or enum (OpenAPI `customhostname`). */
const ACCEPTED: Record<string, (v: unknown) => boolean> = {
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

const key = (hostname: string) => hostname.toLowerCase();

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/** The writable part of the live `ssl` object, only with values the API accepts in a PATCH. */
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

/** A hostname as the API answered it, checked. */
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
function caLabel(ca: string | null, issuer?: string): string {
  if (ca === null) return notStated(issuer);
  return ca === "" ? '"" (the default CA)' : ca;
}

/** A CA the answer does not state, in words: `not stated (issued by …, so google)`. */
export function notStated(issuer: string | undefined): string {
  if (!issuer) return "not stated";
  const ca = caOfIssuer(issuer);
  return `not stated (issued by ${issuer}${ca ? `, so ${ca}` : ""})`;
}

/** The CA a hostname is on. */
export function effectiveCa(h: LiveCustomHostname): string | undefined {
  return h.certificate_authority ?? caOfIssuer(h.issuer);
}

/** Whether the live CA satisfies the file's. */
export function caSatisfied(want: string, live: string): boolean {
  if (want === "") return live !== RETIRED_CA;
  return want === live;
}

async function lookupOne(ctx: ReadContext, zoneId: string, hostname: string): Promise<LiveCustomHostname | null> {
  // The filter is exact on Cloudflare's side.
  const all = await ctx.client.listAll<unknown>(zonePath(zoneId, "custom_hostnames"), { query: { hostname } });
  const found = listed(all, zoneId).find((h) => key(h.hostname) === key(hostname));
  return found ?? null;
}

function listed(result: unknown, zoneId: string): LiveCustomHostname[] {
  if (!Array.isArray(result)) {
    throw new AnswerShapeError(
      `the API answered the custom hostnames of zone ${zoneId} with ` +
        `${result === null ? "null" : typeof result}, expected a list`,
    );
  }
  return result.map(normalizeCustomHostname);
}

function count(info: Record<string, unknown> | undefined, field: string): number | undefined {
  const v = info?.[field];
  return typeof v === "number" && Number.isFinite(v) && v >= 0 ? v : undefined;
}

/** One read of the zone's list. */
async function readListed(
  ctx: ReadContext,
  zoneId: string,
  wanted: DesiredCustomHostname[],
): Promise<LiveCustomHostnames> {
  if (wanted.length === 0) return {};
  const path = zonePath(zoneId, "custom_hostnames");
  const first = await ctx.client.requestEnvelope<unknown>("GET", path, { query: { per_page: LIST_PAGE_SIZE } });
  const byName = new Map(listed(first.result, zoneId).map((h) => [key(h.hostname), h]));
  const total = count(first.result_info, "total_count");
  const pageSize = count(first.result_info, "per_page") || LIST_PAGE_SIZE;
  const missing = wanted.filter((w) => !byName.has(key(w.hostname)));
  if (missing.length > 0 && total !== undefined && total > byName.size) {
    const pages = Math.min(count(first.result_info, "total_pages") ?? Math.ceil(total / pageSize), MAX_LIST_PAGES);
    if (pages - 1 < missing.length) {
      // The whole list, read strictly by the client (every page to the end, duplicates folded, caps).
      byName.clear();
      for (const h of listed(await ctx.client.listAll<unknown>(path, { perPage: pageSize }), zoneId))
        if (!byName.has(key(h.hostname))) byName.set(key(h.hostname), h);
    } else {
      const found = await Promise.all(missing.map((w) => lookupOne(ctx, zoneId, w.hostname)));
      for (const h of found) if (h) byName.set(key(h.hostname), h);
    }
  }
  return Object.fromEntries(wanted.map((w) => [key(w.hostname), byName.get(key(w.hostname)) ?? null]));
}

/** What a reviewer should know about moving a hostname from one CA to another. */
function chainNotes(from: string, to: CertificateAuthority, method: string | undefined): string[] {
  const notes: string[] = [];
  if (from === RETIRED_CA) {
    notes.push(
      "moves off digicert, which Cloudflare no longer issues from (no new orders or renewals since " +
        "2023-10-26): the certificate would not renew",
    );
  }
  if (from === RETIRING_CA) {
    notes.push(
      "moves off lets_encrypt, whose cross-signed chain was retired (not used in issuance or bundling from " +
        "2024-09-09, expired 2024-09-30); Cloudflare does not move custom hostname certificates off it for you",
    );
  }
  if (to === RETIRING_CA) {
    notes.push(
      "lets_encrypt certificates are bundled with the self-signed root chain only since 2024-09-09 (the " +
        "cross-signed chain expired 2024-09-30): clients that trusted only the cross-signed root will fail",
    );
  }
  if (to === "") {
    notes.push(
      '"" lets Cloudflare pick the CA: a more compatible one, falling back to lets_encrypt only when a CAA ' +
        "record on the hostname blocks the alternative",
    );
  }
  notes.push(
    `a CA change re-triggers domain control validation${method ? ` (method ${method})` : ""}: the ` +
      `certificate is re-issued once the new validation succeeds`,
  );
  return notes;
}

/** The PATCH `ssl` object. */
export function patchSsl(
  live: LiveCustomHostname,
  ca: CertificateAuthority | undefined,
  method?: DcvMethod,
): Record<string, unknown> {
  const { method: _m, type: _t, ...rest } = live.ssl_writable ?? {};
  const sent = method ?? (ACCEPTED.method!(live.method) ? live.method : undefined);
  const type = live.type === undefined ? { type: "dv" } : ACCEPTED.type!(live.type) ? { type: live.type } : {};
  return {
    ...rest,
    ...(sent !== undefined ? { method: sent } : {}),
    ...type,
    ...(ca !== undefined ? { certificate_authority: ca } : {}),
  };
}

/** Why a method a change must carry is missing or refused, or undefined when there is one. */
function methodProblem(zoneId: string, want: DesiredCustomHostname, live: LiveCustomHostname): string | undefined {
  if (want.method !== undefined) return undefined;
  if (!live.method) {
    return (
      `custom hostname ${want.hostname}: the API did not report its validation method, which this change ` +
      `must carry; add method: http, txt or email under it in custom_hostnames (zoneform will not choose ` +
      `one for you), then plan again. Nothing in this zone is changed`
    );
  }
  if (ACCEPTED.method!(live.method)) return undefined;
  // The API requires a method beside a CA change.
  return (
    `custom hostname ${want.hostname}: its validation method is the legacy ` +
    `${JSON.stringify(live.method)}, which the API no longer accepts in a PATCH ` +
    `(only ${PATCH_METHODS.join(", ")}); a CA change must carry a method (error 1434) and zoneform will ` +
    `not choose one for you. ` +
    `Add method: http, txt or email under the hostname in custom_hostnames (or set it on the hostname in ` +
    `the dashboard, or PATCH zones/${zoneId}/custom_hostnames/${live.id} with ` +
    `{"ssl":{"method":"txt","type":"dv"}}), then plan again. Nothing in this zone is changed`
  );
}

/** The change (one PATCH) that gives a hostname the file's CA. */
function updateChange(
  zoneId: string,
  want: DesiredCustomHostname,
  live: LiveCustomHostname,
  caTo: CertificateAuthority | undefined,
): Change | string {
  const problem = methodProblem(zoneId, want, live);
  if (problem) return problem;
  if (live.type !== undefined && !ACCEPTED.type!(live.type)) {
    return (
      `custom hostname ${want.hostname}: its certificate type is ${JSON.stringify(live.type)}, which ` +
      `the API does not accept in a PATCH (only dv); a change must carry a type, so zoneform writes ` +
      `nothing for it. Nothing in this zone is changed`
    );
  }
  const method = want.method ?? live.method;
  const liveCa = effectiveCa(live);
  const shown = { certificate_authority: live.certificate_authority, method: live.method, type: live.type ?? "dv" };
  const fields: Change["fields"] = [];
  const summary: string[] = [];
  const notes: string[] = [];
  if (caTo !== undefined) {
    fields.push({ field: "certificate_authority", before: live.certificate_authority, after: caTo });
    summary.push(`certificate authority ${caLabel(live.certificate_authority, live.issuer)} → ${caLabel(caTo)}`);
    notes.push(...chainNotes(liveCa ?? "", caTo, method));
  }
  if (want.method !== undefined && want.method !== live.method) {
    fields.push({ field: "method", before: live.method, after: want.method });
    summary.push(`validation method ${live.method ?? "not reported"} → ${want.method}`);
    if (caTo === undefined) {
      notes.push(
        `a new validation method re-triggers domain control validation (method ${want.method}): the ` +
          `certificate is re-issued once it succeeds`,
      );
    }
  }
  if (live.legacy) {
    notes.push(
      `live ${live.legacy.join(", ")}: not accepted in a PATCH, so left out of it (not echoed); whether the ` +
        `API keeps a field a PATCH leaves out is unconfirmed`,
    );
  }
  // A CA the file names is sent even when only the method changes.
  const ca = caTo ?? (want.certificate_authority !== "" ? want.certificate_authority : undefined);
  return {
    kind: "update",
    resource: RESOURCE,
    zone_id: zoneId,
    identity: want.hostname,
    live_id: live.id,
    summary: summary.join("; "),
    before: shown,
    after: {
      ...shown,
      ...(caTo !== undefined ? { certificate_authority: caTo } : {}),
      ...(method !== undefined ? { method } : {}),
    },
    fields,
    // A PATCH edits only the parts of the hostname it carries.
    operations: [
      {
        method: "PATCH",
        path: zonePath(zoneId, "custom_hostnames", live.id),
        body: { ssl: patchSsl(live, ca, want.method) },
      },
    ],
    notes,
  };
}

/** A hostname whose answer has no `ssl`: no certificate was ordered. */
function orderChange(
  zoneId: string,
  want: DesiredCustomHostname,
  live: LiveCustomHostname,
): { change?: Change; error?: string; warning?: string } {
  if (want.method === undefined) {
    const what =
      `custom hostname ${want.hostname} has no certificate (the API's answer has no ssl object, so no ` +
      `certificate was ordered for it)`;
    if (want.certificate_authority === "") {
      return {
        warning:
          `${what}; the file asks for none. To order one, add method: http, txt or email under it in ` +
          `custom_hostnames`,
      };
    }
    return {
      error:
        `${what}, so certificate_authority ${want.certificate_authority} cannot apply. To order one, add ` +
        `method: http, txt or email under it in custom_hostnames (the domain control validation ` +
        `Cloudflare will use), then plan again. Nothing in this zone is changed`,
    };
  }
  const ssl = {
    method: want.method,
    type: "dv",
    ...(want.certificate_authority !== "" ? { certificate_authority: want.certificate_authority } : {}),
  };
  return {
    change: {
      kind: "update",
      resource: RESOURCE,
      zone_id: zoneId,
      identity: want.hostname,
      live_id: live.id,
      summary:
        `order a certificate (validation method ${want.method}, certificate authority ` +
        `${caLabel(want.certificate_authority)})`,
      before: { ssl: null },
      after: { ssl },
      fields: [{ field: "ssl", before: null, after: ssl }],
      operations: [{ method: "PATCH", path: zonePath(zoneId, "custom_hostnames", live.id), body: { ssl } }],
      notes: [
        `Cloudflare validates the hostname (method ${want.method}) before it issues the certificate: the ` +
          `answer's ssl.validation_records say what to publish`,
      ],
    },
  };
}

/** What stops the zone when the file names a CA or a method for a hostname serving an uploaded certificate. */
function uploadedError(want: DesiredCustomHostname, live: LiveCustomHostname): string | undefined {
  // "" leaves the CA alone; a CA or method the live certificate already shows is met.
  const caUnmet = want.certificate_authority !== "" && want.certificate_authority !== effectiveCa(live);
  const methodUnmet = want.method !== undefined && want.method !== live.method;
  const named = [
    ...(caUnmet ? [`certificate_authority ${want.certificate_authority}`] : []),
    ...(methodUnmet ? [`method ${want.method}`] : []),
  ];
  if (named.length === 0) return undefined;
  return (
    `custom hostname ${want.hostname} serves an uploaded certificate, which no CA issues and no domain ` +
    `control validation renews (live ${caLabel(live.certificate_authority, live.issuer)}): ` +
    `${named.join(" and ")} cannot apply. Remove ${named.length > 1 ? "them" : "it"} from the hostname in ` +
    `custom_hostnames (zoneform leaves the certificate as it is). Nothing in this zone is changed`
  );
}

/** What stops the zone when the file names a CA and the answer tells none. */
function cannotTellError(zoneId: string, want: DesiredCustomHostname, live: LiveCustomHostname): string {
  const issuer = live.issuer
    ? `its certificate's issuer (${JSON.stringify(live.issuer)}) is none zoneform knows`
    : "no issuer either";
  return (
    `custom hostname ${want.hostname}: the API's answer states no certificate_authority and ${issuer}, so ` +
    `zoneform cannot tell whether it is already ${want.certificate_authority}. Set the CA once (in the ` +
    `dashboard, or PATCH zones/${zoneId}/custom_hostnames/${live.id} with ` +
    `{"ssl":{"method":"${live.method ?? "txt"}","type":"dv","certificate_authority":` +
    `"${want.certificate_authority}"}}) so that the answer states it, or remove certificate_authority from ` +
    `the hostname in custom_hostnames. Nothing in this zone is changed`
  );
}

/** What the plan says of a hostname whose answer states no CA nor an issuer it knows, when the file asks "". */
function notStatedWarning(want: DesiredCustomHostname, live: LiveCustomHostname): string {
  return (
    `custom hostname ${want.hostname}: certificate authority ${notStated(live.issuer)} in the API answer; ` +
    `the file leaves the choice to Cloudflare, so nothing is written for it`
  );
}

/** The change a listed, existing hostname needs, an error that stops its zone, or a warning. */
function planHostname(
  zoneId: string,
  want: DesiredCustomHostname,
  live: LiveCustomHostname,
): { change?: Change; error?: string; warning?: string } {
  if (live.uploaded) {
    const error = uploadedError(want, live);
    return error ? { error } : {};
  }
  if (live.no_ssl) return orderChange(zoneId, want, live);
  const liveCa = effectiveCa(live);
  let warning: string | undefined;
  let caTo: CertificateAuthority | undefined;
  if (liveCa === undefined) {
    if (want.certificate_authority !== "") return { error: cannotTellError(zoneId, want, live) };
    warning = notStatedWarning(want, live);
  } else if (!caSatisfied(want.certificate_authority, liveCa)) {
    caTo = want.certificate_authority;
  }
  const methodChanges = want.method !== undefined && want.method !== live.method;
  if (caTo === undefined && !methodChanges) return warning ? { warning } : {};
  const change = updateChange(zoneId, want, live, caTo);
  if (typeof change === "string") return { error: change };
  return { change, ...(warning ? { warning } : {}) };
}

/** The fingerprint material of a listed hostname: what a CA change depends on. */
function fingerprintOf(h: LiveCustomHostname | null): unknown {
  if (!h) return { missing: true };
  return {
    id: h.id,
    certificate_authority: h.certificate_authority,
    method: h.method,
    type: h.type,
    uploaded: h.uploaded ?? false,
    ssl: h.ssl_writable ?? null,
    legacy: h.legacy ?? null,
    issuer: h.issuer ?? null,
    no_ssl: h.no_ssl ?? false,
  };
}

/** The API's refusal to let a zone not on the Enterprise plan choose a CA. */
export const CA_NEEDS_ENTERPRISE = 1459;

/** What to change in the file when the API refuses a hostname's CA with 1459. */
export function caNeedsEnterpriseHint(change: Change): string {
  const ca = change.fields?.find((f) => f.field === "certificate_authority")?.after;
  const named = typeof ca === "string" && ca !== "" ? `certificate_authority: ${ca}` : "certificate_authority";
  return (
    `choosing a certificate authority needs an Enterprise plan (Cloudflare error ${CA_NEEDS_ENTERPRISE}), ` +
    `and this zone is not on it: ` +
    `in the file, under custom_hostnames, remove ${named} from hostname ${change.identity} (or set it to ` +
    `"") to leave the CA to Cloudflare, then plan again`
  );
}

export const customHostnames: ResourceKind<LiveCustomHostnames, ZoneWithCustomHostnames> = {
  name: RESOURCE,
  order: 50,
  independentChanges: true,
  errorHints: { [CA_NEEDS_ENTERPRISE]: caNeedsEnterpriseHint },
  owns: (zone) => zone.custom_hostnames !== undefined,

  async read(ctx, zone) {
    const wanted = zone.custom_hostnames ?? [];
    const live = await readListed(ctx, zone.zone_id, wanted);
    const resources = Object.fromEntries(wanted.map((w) => [w.hostname, fingerprintOf(live[key(w.hostname)] ?? null)]));
    return { live, resources };
  },

  diff(zone: ZoneWithCustomHostnames, live) {
    const changes: Change[] = [];
    const errors: string[] = [];
    const warnings: string[] = [];
    for (const want of zone.custom_hostnames ?? []) {
      const have = live[key(want.hostname)];
      if (!have) {
        errors.push(
          `custom hostname ${want.hostname} does not exist in zone ${zone.zone_id}; zoneform never creates ` +
            `hostnames — create it first or remove it from the file`,
        );
        continue;
      }
      const { change, error, warning } = planHostname(zone.zone_id, want, have);
      if (change) changes.push(change);
      if (error) errors.push(error);
      if (warning) warnings.push(warning);
    }
    return { changes, errors, warnings };
  },
};
