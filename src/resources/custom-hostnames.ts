// Custom hostnames (SSL for SaaS): zoneform owns only the certificate authority of each hostname the
// file lists. Hostnames are never created or deleted; a listed one that does not exist is a plan
// error. A CA change is a PATCH carrying the hostname's live `method` and `type`, which the API
// requires beside `certificate_authority` (error 1434 otherwise).
import type { CertificateAuthority, DesiredCustomHostname, DesiredZone } from "../model/desired.js";
import type { Change } from "../model/plan.js";
import { zonePath } from "./fields.js";
import type { ReadContext, ResourceKind } from "./types.js";

const RESOURCE = "custom_hostname";

/**
 * Up to this many listed hostnames, each is read with its own `?hostname=` lookup (one call each);
 * above it, the zone's whole list is paged through once (50 a page) and matched. With a zone of a few
 * hundred hostnames the crossover is about here: 20 lookups cost what a 1000-hostname list costs.
 */
export const PER_HOSTNAME_LOOKUP_LIMIT = 20;

/** The page size of the whole-list read: the API's maximum for this endpoint. */
const LIST_PAGE_SIZE = 50;

/** The CA whose cross-signed chain was retired. */
export const RETIRING_CA = "lets_encrypt";

export interface LiveCustomHostname {
  id: string;
  hostname: string;
  /** `""` when the API shows no CA: the service's default. */
  certificate_authority: string;
  method?: string;
  type?: string;
  ssl_status?: string;
}

/** Listed hostname (lower case) → what the zone has, or null when it has no such hostname. */
export type LiveCustomHostnames = Record<string, LiveCustomHostname | null>;

const key = (hostname: string) => hostname.toLowerCase();

export function normaliseCustomHostname(raw: Record<string, unknown>): LiveCustomHostname {
  const ssl = (raw.ssl ?? {}) as Record<string, unknown>;
  return {
    id: String(raw.id),
    hostname: String(raw.hostname ?? ""),
    certificate_authority: typeof ssl.certificate_authority === "string" ? ssl.certificate_authority : "",
    ...(typeof ssl.method === "string" ? { method: ssl.method } : {}),
    ...(typeof ssl.type === "string" ? { type: ssl.type } : {}),
    ...(typeof ssl.status === "string" ? { ssl_status: ssl.status } : {}),
  };
}

/** How a CA is named in messages. */
export function caLabel(ca: string): string {
  return ca === "" ? '"" (the default CA)' : ca;
}

async function lookupOne(ctx: ReadContext, zoneId: string, hostname: string): Promise<LiveCustomHostname | null> {
  // The filter is exact on Cloudflare's side; matching again here keeps us right if it ever is not.
  const raw = await ctx.client.listAll<Record<string, unknown>>(zonePath(zoneId, "custom_hostnames"), {
    query: { hostname },
    perPage: LIST_PAGE_SIZE,
  });
  const found = raw.map(normaliseCustomHostname).find((h) => key(h.hostname) === key(hostname));
  return found ?? null;
}

async function readAll(ctx: ReadContext, zoneId: string, wanted: DesiredCustomHostname[]): Promise<LiveCustomHostnames> {
  const raw = await ctx.client.listAll<Record<string, unknown>>(zonePath(zoneId, "custom_hostnames"), { perPage: LIST_PAGE_SIZE });
  const byName = new Map(raw.map(normaliseCustomHostname).map((h) => [key(h.hostname), h]));
  return Object.fromEntries(wanted.map((w) => [key(w.hostname), byName.get(key(w.hostname)) ?? null]));
}

/** What a reviewer should know about moving a hostname from one CA to another. */
export function chainNotes(from: string, to: CertificateAuthority, method: string | undefined): string[] {
  const notes: string[] = [];
  if (from === RETIRING_CA) {
    notes.push(
      "moves off lets_encrypt, whose cross-signed chain was retired (not used in issuance or bundling from 2024-09-09, expired 2024-09-30); Cloudflare does not move custom hostname certificates off it for you",
    );
  }
  if (to === RETIRING_CA) {
    notes.push(
      "lets_encrypt certificates are bundled with the self-signed root chain only since 2024-09-09 (the cross-signed chain expired 2024-09-30): clients that trusted only the cross-signed root will fail",
    );
  }
  if (to === "") {
    notes.push(
      '"" lets Cloudflare pick the CA: a more compatible one, falling back to lets_encrypt only when a CAA record on the hostname blocks the alternative',
    );
  }
  notes.push(
    `a CA change re-triggers domain control validation${method ? ` (method ${method})` : ""}: the certificate is re-issued once the new validation succeeds`,
  );
  return notes;
}

function updateChange(zoneId: string, want: DesiredCustomHostname, live: LiveCustomHostname): Change | string {
  if (!live.method) {
    return `custom hostname ${want.hostname}: the API did not report its validation method, which a CA change must carry; set it once in the dashboard or API, then plan again`;
  }
  const ssl = { method: live.method, type: live.type ?? "dv", certificate_authority: want.certificate_authority };
  const shown = { certificate_authority: live.certificate_authority, method: live.method, type: live.type ?? "dv" };
  return {
    kind: "update",
    resource: RESOURCE,
    zone_id: zoneId,
    identity: want.hostname,
    live_id: live.id,
    summary: `certificate authority ${caLabel(live.certificate_authority)} → ${caLabel(want.certificate_authority)}`,
    before: shown,
    after: { ...shown, certificate_authority: want.certificate_authority },
    fields: [{ field: "certificate_authority", before: live.certificate_authority, after: want.certificate_authority }],
    operations: [{ method: "PATCH", path: zonePath(zoneId, "custom_hostnames", live.id), body: { ssl } }],
    notes: chainNotes(live.certificate_authority, want.certificate_authority, live.method),
  };
}

export const customHostnames: ResourceKind<LiveCustomHostnames> = {
  name: RESOURCE,
  order: 50,
  owns: (zone) => zone.custom_hostnames !== undefined,

  async read(ctx, zone) {
    const wanted = zone.custom_hostnames ?? [];
    let live: LiveCustomHostnames;
    if (wanted.length > PER_HOSTNAME_LOOKUP_LIMIT) {
      live = await readAll(ctx, zone.zone_id, wanted);
    } else {
      const found = await Promise.all(wanted.map((w) => lookupOne(ctx, zone.zone_id, w.hostname)));
      live = Object.fromEntries(wanted.map((w, i) => [key(w.hostname), found[i] ?? null]));
    }
    const resources = Object.fromEntries(
      wanted.map((w) => {
        const h = live[key(w.hostname)];
        return [w.hostname, h ? { id: h.id, certificate_authority: h.certificate_authority, method: h.method, type: h.type } : { missing: true }];
      }),
    );
    return { live, resources };
  },

  diff(zone: DesiredZone, live) {
    const changes: Change[] = [];
    const errors: string[] = [];
    for (const want of zone.custom_hostnames ?? []) {
      const have = live[key(want.hostname)];
      if (!have) {
        errors.push(
          `custom hostname ${want.hostname} does not exist in zone ${zone.zone_id}; zoneform never creates hostnames — create it first or remove it from the file`,
        );
        continue;
      }
      if (have.certificate_authority === want.certificate_authority) continue;
      const change = updateChange(zone.zone_id, want, have);
      if (typeof change === "string") errors.push(change);
      else changes.push(change);
    }
    return { changes, errors };
  },
};
