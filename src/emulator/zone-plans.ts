// Zone plans as the zones API answers them (recorded/cft_zones_list.json).
import { md5Hex } from "./ids.js";
import type { ZonePlanName } from "./types.js";

export const PLAN_NAMES: readonly ZonePlanName[] = ["free", "pro", "business", "enterprise"];

/** The Enterprise plan id as recorded. */
const RECORDED_ENTERPRISE_PLAN_ID = "94f3b7b768b0458b56d2cac4fe5ec0f9";

const LABELS: Record<ZonePlanName, string> = {
  free: "Free Website",
  pro: "Pro Website",
  business: "Business Website",
  enterprise: "Enterprise Website",
};

function planId(plan: ZonePlanName): string {
  return plan === "enterprise" ? RECORDED_ENTERPRISE_PLAN_ID : md5Hex(`plan:${plan}`);
}

export function planObject(plan: ZonePlanName): Record<string, unknown> {
  const paid = plan === "pro" || plan === "business";
  return {
    can_subscribe: true,
    currency: "USD",
    externally_managed: plan === "enterprise",
    frequency: paid ? "monthly" : "",
    id: planId(plan),
    is_subscribed: true,
    legacy_discount: false,
    legacy_id: plan,
    name: LABELS[plan],
    price: plan === "pro" ? 25 : plan === "business" ? 250 : 0,
  };
}

/**
 * The legacy name of a plan given as a name or a plan object (`legacy_id`, else the plan id, else the label);
 * undefined when it names none of the four.
 */
export function planNameOf(plan: unknown): ZonePlanName | undefined {
  if (typeof plan === "string") return PLAN_NAMES.find((p) => p === plan.toLowerCase() || planId(p) === plan);
  if (plan === null || typeof plan !== "object") return undefined;
  const p = plan as Record<string, unknown>;
  return planNameOf(p.legacy_id) ?? planNameOf(p.id) ?? PLAN_NAMES.find((n) => p.name === LABELS[n]);
}
