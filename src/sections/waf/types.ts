// The waf section's part of a zone.
// Spec: docs/configuration.md, `waf`.
import type { ZoneBase } from "../../model/index.js";
import type { SCORE_THRESHOLDS } from "./normalize.js";

export type OwaspAction = "block" | "managed_challenge" | "js_challenge" | "log" | "challenge";

export interface DesiredOwasp {
  enabled: boolean;
  /** 1..4; rules tagged paranoia-level-(N+1..4) are disabled. */
  paranoia_level: number;
  /** Anomaly score threshold as an integer (low=60, medium=40, high=25). */
  score_threshold: number;
  /** Action of the last rule (949110). */
  action: OwaspAction;
  expression: string;
}

export interface DesiredCloudflareManaged {
  enabled: boolean;
  /** Ruleset-wide action override; absent keeps each rule's own action. */
  action?: string;
  expression: string;
}

export interface DesiredWaf {
  owasp?: DesiredOwasp;
  cloudflare_managed?: DesiredCloudflareManaged;
}

export interface WafZone {
  waf?: DesiredWaf;
}

export type ZoneWithWaf = ZoneBase & WafZone;

export interface WafFileZone {
  waf?: {
    owasp?: {
      enabled: boolean;
      paranoia_level?: number;
      score_threshold?: number | keyof typeof SCORE_THRESHOLDS;
      action?: OwaspAction;
      expression?: string;
    };
    cloudflare_managed?: { enabled: boolean; action?: OwaspAction; expression?: string };
  };
}
