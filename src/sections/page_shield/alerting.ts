// Cloudflare Notifications policies.
// Spec: docs/configuration.md, `notifications`.
import { AnswerShapeError } from "../../errors.js";
import type { CloudflareClient } from "../../cloudflare/index.js";
import { CLOUDFLARE_ALERT_TYPES } from "../../cloudflare-alert-types.js";
import { clipJson } from "../../redact.js";

/** Every Page Shield alert type starts with it: the family `prune` owns by default. */
const PAGE_SHIELD_ALERT_PREFIX = "scriptmonitor_";

/** The Page Shield alert types and what each watches, as Cloudflare's Page Shield documentation describes them. */
export const PAGE_SHIELD_ALERTS: Readonly<Record<string, string>> = {
  scriptmonitor_alert_new_resources: "new resources (scripts, connections) detected on the zone's pages (daily)",
  scriptmonitor_alert_new_hosts: "resources loaded from host domains not seen before (hourly)",
  scriptmonitor_alert_new_max_length_resource_url: "a resource URL that exceeds the maximum URL length",
  scriptmonitor_alert_new_code_change_detections: "changed JavaScript of known scripts (daily)",
  scriptmonitor_alert_new_malicious_scripts: "JavaScript that Cloudflare's classifiers consider malicious",
  scriptmonitor_alert_new_malicious_url: "resources loaded from URLs that threat intelligence reports malicious",
  scriptmonitor_alert_new_malicious_hosts: "resources loaded from domains that threat intelligence reports malicious",
};

export const KNOWN_ALERT_TYPES: ReadonlySet<string> = CLOUDFLARE_ALERT_TYPES;

export function isPageShieldAlert(alertType: string): boolean {
  return alertType.startsWith(PAGE_SHIELD_ALERT_PREFIX);
}

/** Why a live policy is not scoped to zones of this configuration. */
export function foreignScope(p: Pick<LiveNotification, "zones">, ours: ReadonlySet<string>): string | undefined {
  if (p.zones === undefined || p.zones.length === 0)
    return "its zone filter names no zone (it alerts on every zone of the account)";
  const others = [...new Set(p.zones.filter((z) => !ours.has(z)))];
  if (others.length === 0) return undefined;
  const zones = `${others.length === 1 ? "zone" : "zones"} ${others.join(", ")}`;
  return `its zone filter names ${zones}, which this configuration does not declare`;
}

const WRITABLE_FIELDS = [
  "name",
  "alert_type",
  "enabled",
  "description",
  "alert_interval",
  "mechanisms",
  "filters",
] as const;

export interface LiveNotification {
  id: string;
  name: string;
  alert_type: string;
  enabled: boolean;
  /** `filters.zones`; absent: no zone filter (every zone of the account). */
  zones?: string[];
  email: string[];
  webhooks: string[];
  /** Every writable field as read (WRITABLE_FIELDS), what a PUT carries of what zoneform does not manage. */
  writable: Record<string, unknown>;
}

export function policiesPath(accountId: string, id?: string): string {
  const base = `accounts/${accountId}/alerting/v3/policies`;
  return id === undefined ? base : `${base}/${id}`;
}

function record(v: unknown): Record<string, unknown> | undefined {
  return v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

function mechanismIds(mechanisms: Record<string, unknown> | undefined, kind: string): string[] {
  const list = mechanisms?.[kind];
  if (!Array.isArray(list)) return [];
  return list.flatMap((m) => {
    const id = record(m)?.id;
    return typeof id === "string" ? [id] : [];
  });
}

export function normalizeLivePolicy(raw: unknown, path: string): LiveNotification {
  const p = record(raw);
  if (!p || typeof p.id !== "string" || p.id === "" || typeof p.alert_type !== "string") {
    throw new AnswerShapeError(
      `the API answered GET ${path} with an item ${clipJson(raw, 60) ?? "nothing"}, expected a notification ` +
        "policy with an id and an alert_type",
    );
  }
  const mechanisms = record(p.mechanisms);
  const filters = record(p.filters);
  const zones = Array.isArray(filters?.zones) ? filters.zones.filter((z) => typeof z === "string") : undefined;
  const writable: Record<string, unknown> = {};
  for (const k of WRITABLE_FIELDS) if (p[k] !== undefined && p[k] !== null) writable[k] = structuredClone(p[k]);
  return {
    id: p.id,
    name: typeof p.name === "string" ? p.name : "",
    alert_type: p.alert_type,
    // The SDK marks `enabled` optional.
    enabled: p.enabled === true,
    ...(zones !== undefined ? { zones } : {}),
    email: mechanismIds(mechanisms, "email"),
    webhooks: mechanismIds(mechanisms, "webhooks"),
    writable,
  };
}

/** Every notification policy of the account (one page; the client's strict list reader). */
export async function readNotificationPolicies(
  client: CloudflareClient,
  accountId: string,
): Promise<LiveNotification[]> {
  const path = policiesPath(accountId);
  const raw: unknown = await client.listAll<unknown>(path);
  if (!Array.isArray(raw))
    throw new AnswerShapeError(`the API answered GET ${path} with ${clipJson(raw, 60)}, expected a list of policies`);
  return raw.map((p) => normalizeLivePolicy(p, path)).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
