// Custom hostnames (SSL for SaaS): zoneform owns only the certificate authority of each hostname the
// file lists. Hostnames are never created or deleted; a listed one that does not exist is a plan
// error. `""` (or no CA in the file) means "whatever CA Cloudflare chose": a hostname created that way
// reads back the concrete CA the service picked (e.g. `google`), so it matches any live CA except
// digicert, which Cloudflare no longer issues from. A CA change is a PATCH carrying the live `ssl`
// object's writable fields with only the CA changed, as the Terraform provider sends the whole object
// (whether a partial one resets the rest is unconfirmed). A PATCH carries only values the API accepts
// (OpenAPI enums): a legacy live value, such as the validation method `cname`, is kept by leaving it
// out, never echoed; a CA change needs a method and a type, so one whose live method the API no
// longer accepts stops with what the user must choose. An answer without `certificate_authority` is
// "not stated", distinct from `""`, and never causes a write by itself. A hostname with an uploaded
// certificate has no CA to change: it is reported, never patched.
import { AnswerShapeError } from "../../errors.js";
import type { CertificateAuthority, DesiredCustomHostname } from "./types.js";
import type { ZoneWithCustomHostnames } from "./types.js";
import type { Change } from "../../model/plan.js";
import { zonePath } from "../shared/fields.js";
import type { ReadContext, ResourceKind } from "../types.js";
import { clipJson } from "../../redact.js";

const RESOURCE = "custom_hostname";

/**
 * The page size of the zone's list: the API's maximum for this endpoint. A zone's hostnames are read
 * with one call of the list's first page, matched against the file; only a zone with more than one
 * page needs more: a `?hostname=` lookup per listed hostname not on that page, or the list's other
 * pages when they are fewer calls than those lookups.
 */
export const LIST_PAGE_SIZE = 50;

/** The most pages of the zone's list read (500 000 hostnames); past it a listed hostname is looked up alone. */
const MAX_LIST_PAGES = 10_000;

/** The CA whose cross-signed chain was retired. */
export const RETIRING_CA = "lets_encrypt";

/**
 * The CA Cloudflare stopped issuing from (no new orders or renewals since 2023-10-26): a hostname on
 * it is moved even when the file leaves the choice to Cloudflare, since its certificate will not renew.
 */
export const RETIRED_CA = "digicert";

/** The `ssl` fields a PATCH may carry (OpenAPI `customhostname` ssl, request side), in the API's spelling. */
const SSL_WRITABLE = ["method", "type", "bundle_method", "wildcard", "cloudflare_branding", "settings"] as const;
/** The writable keys of `ssl.settings`. */
const SETTINGS_WRITABLE = ["ciphers", "early_hints", "http2", "min_tls_version", "tls_1_3"] as const;

/** The DCV methods a PATCH accepts (OpenAPI enum); a legacy hostname may still read `cname`. */
export const PATCH_METHODS = ["http", "txt", "email"] as const;

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
}

/** Listed hostname (lower case) → what the zone has, or null when it has no such hostname. */
export type LiveCustomHostnames = Record<string, LiveCustomHostname | null>;

const key = (hostname: string) => hostname.toLowerCase();

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/**
 * The writable part of the live `ssl` object, only with values the API accepts in a PATCH; every
 * other live value is listed in `legacy` (as `field value`) and left out, so that it is not echoed.
 */
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

/**
 * A hostname as the API answered it, checked: an id and a hostname are required (the zone fails to
 * plan otherwise, never a PATCH of `…/undefined`); ssl fields of the wrong type are left out.
 */
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
  };
}

/** How a CA is named in messages; `issuer` only matters when the answer states no CA. */
export function caLabel(ca: string | null, issuer?: string): string {
  if (ca === null) return notStated(issuer);
  return ca === "" ? '"" (the default CA)' : ca;
}

/** A CA the answer does not state, in words: `not stated (issued by …)`. */
export function notStated(issuer: string | undefined): string {
  return issuer ? `not stated (issued by ${issuer})` : "not stated";
}

/**
 * Whether the live CA satisfies the file's: an explicit CA must match; `""` accepts whatever CA
 * Cloudflare chose, except the retired one.
 */
export function caSatisfied(want: string, live: string): boolean {
  if (want === "") return live !== RETIRED_CA;
  return want === live;
}

async function lookupOne(ctx: ReadContext, zoneId: string, hostname: string): Promise<LiveCustomHostname | null> {
  // The filter is exact on Cloudflare's side; matching again here keeps us right if it ever is not.
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

/**
 * One read of the zone's list (its first page, 50 hostnames) matched against the file; past that page,
 * the fewest further calls: a lookup per listed hostname the page did not hold, or the remaining
 * pages (read side by side) when there are fewer of them.
 */
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
export function chainNotes(from: string, to: CertificateAuthority, method: string | undefined): string[] {
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

/**
 * The PATCH `ssl` object: the live object's writable fields (method, type, bundle method, wildcard,
 * settings) as they are, those the API accepts only, with only the CA changed. The API requires method and type beside
 * a CA
 * (error 1434); the rest is carried so that nothing can be reset whatever the API does with a
 * partial object.
 */
export function patchSsl(live: LiveCustomHostname, ca: CertificateAuthority): Record<string, unknown> {
  const { method: _m, type: _t, ...rest } = live.ssl_writable ?? {};
  const method = ACCEPTED.method!(live.method) ? { method: live.method } : {};
  const type = live.type === undefined ? { type: "dv" } : ACCEPTED.type!(live.type) ? { type: live.type } : {};
  return { ...rest, ...method, ...type, certificate_authority: ca };
}

function updateChange(zoneId: string, want: DesiredCustomHostname, live: LiveCustomHostname): Change | string {
  if (!live.method) {
    return (
      `custom hostname ${want.hostname}: the API did not report its validation method, which a CA ` +
      `change must carry; set it once in the dashboard or API, then plan again`
    );
  }
  if (!ACCEPTED.method!(live.method)) {
    // The API requires a method beside a CA change (error 1434) and refuses the legacy one: the choice is the user's.
    return (
      `custom hostname ${want.hostname}: its validation method is the legacy ` +
      `${JSON.stringify(live.method)}, which the API no longer accepts in a PATCH ` +
      `(only ${PATCH_METHODS.join(", ")}); a CA change must carry a method (error 1434) and zoneform will ` +
      `not choose one for you. ` +
      `Choose http, txt or email and set it on the hostname (in the dashboard, or PATCH ` +
      `zones/${zoneId}/custom_hostnames/${live.id} with {"ssl":{"method":"txt","type":"dv"}}), then plan ` +
      `again. Nothing was changed`
    );
  }
  if (live.type !== undefined && !ACCEPTED.type!(live.type)) {
    return (
      `custom hostname ${want.hostname}: its certificate type is ${JSON.stringify(live.type)}, which ` +
      `the API does not accept in a PATCH (only dv); a CA change must carry a type, so zoneform writes ` +
      `nothing for it. Nothing was changed`
    );
  }
  const shown = { certificate_authority: live.certificate_authority, method: live.method, type: live.type ?? "dv" };
  const notes = chainNotes(live.certificate_authority ?? "", want.certificate_authority, live.method);
  if (live.legacy) {
    notes.push(
      `live ${live.legacy.join(", ")}: not accepted in a PATCH, so left out of it (not echoed); whether the ` +
        `API keeps a field a PATCH leaves out is unconfirmed`,
    );
  }
  return {
    kind: "update",
    resource: RESOURCE,
    zone_id: zoneId,
    identity: want.hostname,
    live_id: live.id,
    summary:
      `certificate authority ${caLabel(live.certificate_authority, live.issuer)} → ` +
      `${caLabel(want.certificate_authority)}`,
    before: shown,
    after: { ...shown, certificate_authority: want.certificate_authority },
    fields: [{ field: "certificate_authority", before: live.certificate_authority, after: want.certificate_authority }],
    operations: [
      {
        method: "PATCH",
        path: zonePath(zoneId, "custom_hostnames", live.id),
        body: { ssl: patchSsl(live, want.certificate_authority) },
      },
    ],
    notes,
  };
}

/** What the plan says of a hostname whose certificate was uploaded, when the file asks for a CA change. */
function uploadedWarning(want: DesiredCustomHostname, live: LiveCustomHostname): string {
  return (
    `custom hostname ${want.hostname} serves an uploaded certificate, which no CA issues: ` +
    `certificate_authority ${caLabel(want.certificate_authority)} ` +
    `cannot apply and zoneform leaves it as it is (live ` +
    `${caLabel(live.certificate_authority, live.issuer)}); remove certificate_authority from the file to ` +
    `silence this`
  );
}

/** What the plan says of a hostname whose answer states no CA. */
function notStatedWarning(want: DesiredCustomHostname, live: LiveCustomHostname): string {
  const label = `certificate authority ${notStated(live.issuer)}`;
  if (want.certificate_authority === "") {
    return (
      `custom hostname ${want.hostname}: ${label} in the API answer; the file leaves the choice to ` +
      `Cloudflare, so nothing is written for it`
    );
  }
  return (
    `custom hostname ${want.hostname}: ${label} in the API answer, so zoneform cannot tell whether it is ` +
    `already ${want.certificate_authority} and writes nothing for it ` +
    "(the issuer is not a CA setting); to be sure, set the CA once in the dashboard or API: the answer then " +
    "states it and plan compares it"
  );
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
  };
}

/** The API's refusal to let a zone not on the Enterprise plan choose a CA (real-answers.md, "custom hostname CA"). */
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
      if (have.certificate_authority === null) {
        // Not stated is not "": comparing it with the file would be a guess, so it never causes a write.
        if (!have.uploaded) warnings.push(notStatedWarning(want, have));
        continue;
      }
      if (caSatisfied(want.certificate_authority, have.certificate_authority)) continue;
      if (have.uploaded) {
        // Only a CA the file names can be "not applied"; "" already leaves the choice alone.
        if (want.certificate_authority !== "") warnings.push(uploadedWarning(want, have));
        continue;
      }
      const change = updateChange(zone.zone_id, want, have);
      if (typeof change === "string") errors.push(change);
      else changes.push(change);
    }
    return { changes, errors, warnings };
  },
};
