// The zone itself: `GET zones/{id}` answers the zone's name, status and plan (what zoneform reads to
// know whether a zone is Enterprise before it asks for the WAF migration's validation mode).
import type { Route, ZoneState } from "../types.js";

const PLAN_NAMES: Record<ZoneState["plan"], string> = {
  free: "Free Website",
  pro: "Pro Website",
  business: "Business Website",
  enterprise: "Enterprise Website",
};

function zoneDetails(zone: ZoneState): Record<string, unknown> {
  return {
    id: zone.id,
    name: zone.name,
    status: "active",
    paused: false,
    type: "full",
    plan: { id: zone.plan, name: PLAN_NAMES[zone.plan], legacy_id: zone.plan, is_subscribed: true, can_subscribe: false },
  };
}

export const routes: Route[] = [
  { method: "GET", pattern: "zones/:zone_id", handler: (req) => ({ result: zoneDetails(req.zone!) }) },
];
