// The notifications kind's pure parts: the bodies it sends, which live policies prune owns, the zone
// references of the file, and audit's reading of the policies covering a zone.
import { describe, expect, it } from "vitest";
import { checkAlerting } from "../../../src/audit/alerting.js";
import { normalizeLivePolicy } from "../../../src/sections/page_shield/alerting.js";
import { resolveZoneRef } from "../../../src/sections/page_shield/notification-rules.js";
import {
  createBody,
  notificationPolicies,
  ownedAlertTypes,
  updateBody,
} from "../../../src/sections/page_shield/notifications.js";
import type { DesiredNotification } from "../../../src/sections/page_shield/types.js";

const A = "0123456789abcdef0123456789abcdef";
const Z1 = "5ababd603b22780302dd8d83498e5172";
const Z2 = "28bf0eba6631b5563247f1b42d9a7f17";

const want: DesiredNotification = {
  name: "Malicious scripts",
  alert_type: "scriptmonitor_alert_new_malicious_scripts",
  enabled: true,
  zones: [Z1],
  email: ["secops@example.com"],
  webhooks: [],
};

const live = (over: Record<string, unknown> = {}) =>
  normalizeLivePolicy(
    {
      id: "0da2b59e-f118-439d-8097-bdfb215203c9",
      name: "Malicious scripts",
      alert_type: "scriptmonitor_alert_new_malicious_scripts",
      enabled: true,
      description: "d",
      alert_interval: "30m",
      created: "2025-01-01T00:00:00Z",
      mechanisms: { email: [{ id: "old@example.com" }], pagerduty: [{ id: "pd" }] },
      filters: { zones: [Z2], where: ["x"] },
      ...over,
    },
    "accounts/x/alerting/v3/policies",
  );

const unit = (notifications: DesiredNotification[], prune = true) => ({
  zone_id: A,
  scope: "account" as const,
  prune,
  notifications,
});

describe("notification policy bodies", () => {
  it("a create sends only what the file says; mechanisms always (none: {})", () => {
    expect(createBody(want)).toEqual({
      name: "Malicious scripts",
      alert_type: "scriptmonitor_alert_new_malicious_scripts",
      enabled: true,
      mechanisms: { email: [{ id: "secops@example.com" }] },
      filters: { zones: [Z1] },
    });
    expect(createBody({ ...want, zones: undefined, email: [] }).mechanisms).toEqual({});
    expect(createBody({ ...want, zones: undefined })).not.toHaveProperty("filters");
  });

  it("a PUT is the whole policy: managed fields as the file says, the rest as live, no read-only field", () => {
    expect(updateBody({ ...want, zones: undefined }, live())).toEqual({
      name: "Malicious scripts",
      alert_type: "scriptmonitor_alert_new_malicious_scripts",
      enabled: true,
      description: "d",
      alert_interval: "30m",
      mechanisms: { pagerduty: [{ id: "pd" }], email: [{ id: "secops@example.com" }] },
      filters: { where: ["x"] },
    });
  });
});

describe("which policies the account's list owns", () => {
  it("every Page Shield alert and the types the list declares, never others", () => {
    const owned = ownedAlertTypes([{ ...want, alert_type: "dos_attack_l7" }]);
    expect(owned("scriptmonitor_alert_new_hosts")).toBe(true);
    expect(owned("dos_attack_l7")).toBe(true);
    expect(owned("billing_usage_alert")).toBe(false);
  });

  it("prune deletes an unlisted Page Shield alert only; prune: false nothing; order and email order aside", () => {
    const policies = [
      live({ id: "11111111-1111-4111-8111-111111111111", name: "Stale", alert_type: "scriptmonitor_alert_new_hosts" }),
      live({ id: "22222222-2222-4222-8222-222222222222", name: "Billing", alert_type: "billing_usage_alert" }),
      live({
        id: "33333333-3333-4333-8333-333333333333",
        mechanisms: { email: [{ id: "b@example.com" }, { id: "a@example.com" }] },
        filters: { zones: [Z2, Z1] },
        description: undefined,
        alert_interval: undefined,
      }),
    ];
    const same = { ...want, zones: [Z1, Z2], email: ["a@example.com", "b@example.com"] };
    const pruned = notificationPolicies.diff(unit([same]), { policies, zones: [Z1, Z2] });
    expect(pruned.errors).toEqual([]);
    expect(pruned.changes.map((c) => [c.kind, c.live_id])).toEqual([
      ["delete", "11111111-1111-4111-8111-111111111111"],
    ]);
    expect(notificationPolicies.diff(unit([same], false), { policies, zones: [Z1, Z2] }).changes).toEqual([]);
  });
});

describe("zones: of a policy", () => {
  const zones = [
    { zone_id: Z1, name: "Example.com" },
    { zone_id: Z2, name: "example.net" },
    { zone_id: "a6090c8648694262ae990706d1a149ac", name: "dup.example" },
    { zone_id: "1bdf72e04d6b50c82a48c7e4dd38cc69", name: "dup.example" },
  ];
  it("an id as it is, a name of the file's zones as its id (case and a trailing dot aside)", () => {
    expect(resolveZoneRef(Z2, zones)).toBe(Z2);
    expect(resolveZoneRef("example.com.", zones)).toBe(Z1);
    expect(resolveZoneRef("shop.example", zones)).toBeUndefined();
    expect(resolveZoneRef("dup.example", zones)).toBeUndefined();
  });
});

describe("audit: the alerting covering a zone", () => {
  it("unscoped and scoped policies of Page Shield types; no-alerting when none is enabled with someone", () => {
    const policies = [
      live({ id: "a", filters: {} }),
      live({ id: "b", filters: { zones: [Z2] } }),
      live({ id: "c", alert_type: "billing_usage_alert", filters: {} }),
    ];
    const z1 = checkAlerting(Z1, A, policies);
    expect(z1.policies.map((p) => [p.id, p.scope])).toEqual([["a", "account"]]);
    expect(z1.findings).toEqual([]);
    expect(z1.policies[0]!.other).toEqual(["pagerduty (1)"]);
    const off = checkAlerting(Z1, A, [live({ id: "a", filters: {}, enabled: false })]);
    expect(off.findings.map((f) => f.type)).toEqual(["no-alerting"]);
    const nobody = checkAlerting(Z1, A, [live({ id: "a", filters: {}, mechanisms: {} })]);
    expect(nobody.findings.map((f) => f.type)).toEqual(["no-alerting"]);
    expect(checkAlerting(Z1, A, new Error("403")).findings.map((f) => f.type)).toEqual(["alerting-unread"]);
  });
});
