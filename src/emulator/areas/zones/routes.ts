// `GET zones` and `GET zones/{id}`.
// Spec: docs/emulator.md, What it emulates.
import { paginate, readPageRequest, type PageBounds } from "../../paging.js";
import type { Route, RouteRequest, RouteResponse, ZoneState } from "../../types.js";
import { planObject } from "../../zone-plans.js";

/** per_page bounds of the zones list: 5–50, default 20 (the List Zones reference's bounds). */
const ZONE_PAGING: PageBounds = { min: 5, max: 50, default: 20 };

function zoneDetails(zone: ZoneState): Record<string, unknown> {
  return {
    id: zone.id,
    name: zone.name,
    status: "active",
    paused: false,
    type: "full",
    plan: planObject(zone.plan),
    ...zone.details,
  };
}

function listZones(req: RouteRequest): RouteResponse {
  const name = req.query.get("name");
  const zones = name ? req.state.zones.filter((z) => z.name === name.toLowerCase()) : req.state.zones;
  const { result, result_info } = paginate(zones, readPageRequest(req.query, ZONE_PAGING));
  return { result: result.map(zoneDetails), result_info };
}

export const routes: Route[] = [
  { method: "GET", pattern: "zones", handler: listZones },
  { method: "GET", pattern: "zones/:zone_id", handler: (req) => ({ result: zoneDetails(req.zone!) }) },
];
