// Page Shield on/off and its two reporting settings: one GET to read, one partial PUT to change.
import type { DesiredZone } from "../model/desired.js";
import type { Change } from "../model/plan.js";
import { diffFields, pick, toBool, zonePath } from "./fields.js";
import type { ResourceKind } from "./types.js";

const SETTINGS = ["enabled", "use_cloudflare_reporting_endpoint", "use_connection_url_path"] as const;
type Settings = { [K in (typeof SETTINGS)[number]]?: boolean };

function desiredSettings(zone: DesiredZone): Settings {
  return zone.page_shield ? pick(zone.page_shield, SETTINGS) : {};
}

export const pageShieldSettings: ResourceKind<Settings> = {
  name: "page_shield_settings",
  order: 10,
  owns: (zone) => Object.keys(desiredSettings(zone)).length > 0,

  async read(ctx, zone) {
    const raw = await ctx.client.request<Record<string, unknown>>("GET", zonePath(zone.zone_id, "page_shield"));
    const live: Settings = {
      enabled: toBool(raw?.enabled) ?? false,
      // The spec document calls the field use_service_reporting_endpoint; the API's name is below.
      use_cloudflare_reporting_endpoint:
        toBool(raw?.use_cloudflare_reporting_endpoint) ?? toBool(raw?.use_service_reporting_endpoint),
      use_connection_url_path: toBool(raw?.use_connection_url_path),
    };
    return { live, resources: { settings: live } };
  },

  diff(zone, live) {
    const fields = diffFields(desiredSettings(zone), live);
    if (fields.length === 0) return { changes: [] };
    const body = Object.fromEntries(fields.map((f) => [f.field, f.after]));
    const change: Change = {
      kind: "update",
      resource: "page_shield_settings",
      zone_id: zone.zone_id,
      identity: "settings",
      before: live,
      after: { ...live, ...body },
      fields,
      operations: [{ method: "PUT", path: zonePath(zone.zone_id, "page_shield"), body }],
    };
    return { changes: [change] };
  },
};
