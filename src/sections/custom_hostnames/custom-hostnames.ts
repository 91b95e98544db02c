// The custom hostnames kind (SSL for SaaS): reads the hostnames the file lists and plans their CA.
// Spec: docs/configuration.md, `custom_hostnames`.
import { AnswerShapeError } from "../../errors.js";
import type { DesiredCustomHostname } from "./types.js";
import type { ZoneWithCustomHostnames } from "./types.js";
import type { Change } from "../../model/index.js";
import { zonePath } from "../shared/fields.js";
import type { ReadContext, ResourceKind } from "../types.js";
import { key, normalizeCustomHostname, type LiveCustomHostname, type LiveCustomHostnames } from "./live.js";
import { RESOURCE, planHostname } from "./hostname-changes.js";

/** The page size of the zone's list: the API's maximum for this endpoint. */
export const LIST_PAGE_SIZE = 50;

const MAX_LIST_PAGES = 10_000;

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
