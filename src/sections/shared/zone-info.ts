// The zone itself (`GET zones/{id}`): its name and plan.
// Spec: docs/architecture.md.
import type { CloudflareClient } from "../../cloudflare/index.js";
import { ApiError } from "../../errors.js";

export interface ZoneInfo {
  name?: string;
  /** free | pro | business | enterprise, when the answer says. */
  plan?: string;
}

/** The plan name of a zone answer: `plan.legacy_id`, else guessed from `plan.name` ("Pro Website"). */
export function zonePlanOf(zone: unknown): string | undefined {
  const plan = zone && typeof zone === "object" ? (zone as Record<string, unknown>).plan : undefined;
  if (typeof plan === "string") return plan.toLowerCase();
  if (!plan || typeof plan !== "object") return undefined;
  const p = plan as Record<string, unknown>;
  if (typeof p.legacy_id === "string" && p.legacy_id !== "") return p.legacy_id.toLowerCase();
  if (typeof p.name === "string") {
    const name = p.name.toLowerCase();
    for (const known of ["enterprise", "business", "pro", "free"]) if (name.includes(known)) return known;
  }
  return undefined;
}

export async function readZoneInfo(client: CloudflareClient, zoneId: string): Promise<ZoneInfo | undefined> {
  try {
    const zone = await client.request<Record<string, unknown>>("GET", `zones/${zoneId}`);
    const plan = zonePlanOf(zone);
    return { ...(typeof zone?.name === "string" ? { name: zone.name } : {}), ...(plan ? { plan } : {}) };
  } catch (err) {
    if (err instanceof ApiError && [403, 404].includes(err.status)) return undefined;
    throw err;
  }
}
