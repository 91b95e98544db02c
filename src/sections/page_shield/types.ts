// The page_shield section's part of a zone.
// Spec: docs/configuration.md, `page_shield`.
import type { ZoneBase } from "../../model/index.js";

/** Content security rule (Page Shield policy) actions; `add_reporting_directives` is the API of 2026. */
export type PolicyAction = "log" | "allow" | "add_reporting_directives";

export interface DesiredPolicy {
  /** The live policy this entry is (`id:` in the file); without it the description matches. */
  id?: string;
  description: string;
  action: PolicyAction;
  expression: string;
  value: string;
  enabled: boolean;
}

export interface DesiredPageShield {
  /** Only the settings present in the file are managed. */
  enabled?: boolean;
  use_cloudflare_reporting_endpoint?: boolean;
  use_connection_url_path?: boolean;
  /** Absent: policies are not managed. */
  policies?: DesiredPolicy[];
  /** false keeps live policies that the file does not list. */
  prune: boolean;
  script_inventory?: DesiredScriptInventory;
}

export interface DesiredAuthorizedScript {
  /** An exact script URL, or a prefix ending in `*`. */
  url: string;
  justification: string;
  owner?: string;
  /** The reviewed version's hash (Page Shield's `hash`): another hash seen is a changed script. */
  hash?: string;
}

export interface DesiredScriptInventory {
  /** Page patterns in scope, `host/path` with `*` at the start or end (Page Shield's page_url filter). */
  pages: string[];
  authorized: DesiredAuthorizedScript[];
  /** The payment pages' security headers `audit` fetches and compares (PCI DSS 11.6.1). */
  headers?: DesiredPageHeaders;
}

export interface DesiredPageHeaders {
  /** Absolute page URLs (https://…; plain http:// only to a loopback host). */
  urls: string[];
  /** Lower-case header name → the exact value the pages must send (an own-property record). */
  pinned: Record<string, string>;
}

export interface PageShieldZone {
  page_shield?: DesiredPageShield;
}

export type ZoneWithPageShield = ZoneBase & PageShieldZone;

export interface PageShieldFileZone {
  page_shield?: Omit<DesiredPageShield, "prune" | "policies"> & {
    prune?: boolean;
    policies?: Array<{
      id?: string;
      description: string;
      action: PolicyAction;
      expression: string;
      value: string;
      enabled?: boolean;
    }>;
  };
}

export interface DesiredNotification {
  /** The live policy this entry is (`id:` in the file); without it, name and alert_type match. */
  id?: string;
  name: string;
  alert_type: string;
  enabled: boolean;
  zones?: string[];
  email: string[];
  webhooks: string[];
}

export interface NotificationsAccount {
  /** Absent: the account's policies are not managed. */
  notifications?: DesiredNotification[];
}

export type AccountWithNotifications = ZoneBase & NotificationsAccount & { prune: boolean };

export interface NotificationsFileAccount {
  notifications?: Array<{
    id?: string;
    name: string;
    alert_type: string;
    enabled?: boolean;
    zones?: string[];
    email?: string[];
    webhooks?: string[];
  }>;
}
