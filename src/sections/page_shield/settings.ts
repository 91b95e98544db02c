// Page Shield on/off and its two reporting settings.
// Spec: docs/configuration.md, `page_shield`.
import { ApiError } from "../../errors.js";
import type { ZoneWithPageShield } from "./types.js";
import type { Change } from "../../model/index.js";
import { diffFields, pick, toBool, zonePath } from "../shared/fields.js";
import type { ResourceKind } from "../types.js";

const SETTINGS = ["enabled", "use_cloudflare_reporting_endpoint", "use_connection_url_path"] as const;
type Settings = { [K in (typeof SETTINGS)[number]]?: boolean };

function desiredSettings(zone: ZoneWithPageShield): Settings {
  return zone.page_shield ? pick(zone.page_shield, SETTINGS) : {};
}

/** An answer that is not a settings object, or a setting that is not a boolean, is refused. */
function assertSettingsShape(
  raw: unknown,
  path: string,
  managed: readonly string[],
): asserts raw is Record<string, unknown> {
  const r = raw as Record<string, unknown>;
  const has = (k: string) =>
    r[k] !== undefined || (k === "use_cloudflare_reporting_endpoint" && r.use_service_reporting_endpoint !== undefined);
  const bad =
    typeof raw !== "object" || raw === null || Array.isArray(raw)
      ? "not an object"
      : [
          ...[...SETTINGS, "use_service_reporting_endpoint"]
            .filter((k) => r[k] !== undefined && toBool(r[k]) === undefined)
            .map((k) => `${k} is ${JSON.stringify(r[k])}, not a boolean`),
          // A setting the file manages must be in the answer.
          ...managed.filter((k) => !has(k)).map((k) => `${k} is missing`),
        ].join(", ");
  if (!bad) return;
  throw new ApiError(`GET ${path}: the API's answer is not Page Shield settings (${bad}); nothing was changed`, {
    status: 200,
    method: "GET",
    path,
    errors: [],
    retryable: false,
  });
}

/** The PUT body: every setting the live answer states, with the planned changes. */
function settingsBody(live: Settings, fields: ReadonlyArray<{ field: string; after?: unknown }>): Settings {
  const changed = Object.fromEntries(fields.map((f) => [f.field, f.after]));
  return pick({ ...live, ...changed } as Settings, SETTINGS);
}

export const pageShieldSettings: ResourceKind<Settings, ZoneWithPageShield> = {
  name: "page_shield_settings",
  order: 10,
  bodyFields: SETTINGS,
  owns: (zone) => Object.keys(desiredSettings(zone)).length > 0,

  async read(ctx, zone) {
    const path = zonePath(zone.zone_id, "page_shield");
    const raw = await ctx.client.request<Record<string, unknown>>("GET", path);
    assertSettingsShape(raw, path, Object.keys(desiredSettings(zone)));
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
    const body = settingsBody(live, fields);
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
