// The alerting half of PCI DSS 11.6.1 for one zone: the account's Page Shield notification policies
// that cover it, and `no-alerting` when no enabled one notifies anybody.
// Spec: docs/commands/audit.md, "Page Shield alerting". All of it is API text the renderers escape.
import { isPageShieldAlert, PAGE_SHIELD_ALERTS, type LiveNotification } from "../sections/index.js";

export interface AlertPolicyEvidence {
  id: string;
  name: string;
  alert_type: string;
  watches?: string;
  enabled: boolean;
  /** `account`: no zone filter, every zone of the account; `zone`: a zone filter naming this zone (scoped). */
  scope: "account" | "zone";
  email: string[];
  webhooks: string[];
  other: string[];
}

export interface AlertingFinding {
  type: "no-alerting" | "alerting-unread";
  requirement: "11.6.1";
  severity: "medium" | "low";
  account_id: string;
  message: string;
}

export interface AlertingCheck {
  account_id: string;
  policies: AlertPolicyEvidence[];
  findings: AlertingFinding[];
  error?: string;
}

function record(v: unknown): Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

function evidenceOf(p: LiveNotification, zoneId: string): AlertPolicyEvidence | undefined {
  if (!isPageShieldAlert(p.alert_type)) return undefined;
  if (p.zones !== undefined && !p.zones.includes(zoneId)) return undefined;
  const other = Object.entries(record(p.writable.mechanisms)).flatMap(([kind, list]) =>
    kind === "email" || kind === "webhooks" ? [] : [`${kind} (${Array.isArray(list) ? list.length : 0})`],
  );
  const watches = Object.hasOwn(PAGE_SHIELD_ALERTS, p.alert_type) ? PAGE_SHIELD_ALERTS[p.alert_type] : undefined;
  return {
    id: p.id,
    name: p.name,
    alert_type: p.alert_type,
    ...(watches ? { watches } : {}),
    enabled: p.enabled,
    scope: p.zones === undefined ? "account" : "zone",
    email: [...p.email],
    webhooks: [...p.webhooks],
    other,
  };
}

const notifiesSomeone = (p: AlertPolicyEvidence) => p.email.length + p.webhooks.length + p.other.length > 0;

export function checkAlerting(
  zoneId: string,
  accountId: string,
  live: readonly LiveNotification[] | Error,
): AlertingCheck {
  if (live instanceof Error) {
    return {
      account_id: accountId,
      policies: [],
      error: live.message,
      findings: [
        {
          type: "alerting-unread",
          requirement: "11.6.1",
          severity: "low",
          account_id: accountId,
          message:
            `the notification policies of account ${accountId} could not be read (${live.message}); the token ` +
            "needs Notifications Read on the account",
        },
      ],
    };
  }
  const policies = live.flatMap((p) => evidenceOf(p, zoneId) ?? []);
  const alerting = policies.filter((p) => p.enabled && notifiesSomeone(p));
  const findings: AlertingFinding[] =
    alerting.length > 0
      ? []
      : [
          {
            type: "no-alerting",
            requirement: "11.6.1",
            severity: "medium",
            account_id: accountId,
            message:
              policies.length === 0
                ? `no Page Shield alert policy of account ${accountId} covers the zone: a change Page Shield ` +
                  "detects alerts no one"
                : `none of the ${policies.length} Page Shield alert policies covering the zone is enabled with ` +
                  "someone to notify: a change Page Shield detects alerts no one",
          },
        ];
  return { account_id: accountId, policies, findings };
}
