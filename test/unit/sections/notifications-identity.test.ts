// Which live notification policies an account's list may take or prune (issue 46, point 7): a name and an
// alert type are no identity. An unpinned entry takes its one candidate only when the candidate's zone
// filter names zones of this configuration alone (or it already is what the entry says); prune deletes only
// policies so scoped, and keeps with a warning one that alerts elsewhere or on every zone.
import { describe, expect, it } from "vitest";
import { foreignScope, normalizeLivePolicy } from "../../../src/sections/page_shield/alerting.js";
import { notificationPolicies } from "../../../src/sections/page_shield/notifications.js";
import type { DesiredNotification } from "../../../src/sections/page_shield/types.js";

const A = "0123456789abcdef0123456789abcdef";
/** Zones this configuration declares. */
const OURS = ["5ababd603b22780302dd8d83498e5172", "28bf0eba6631b5563247f1b42d9a7f17"] as const;
/** A zone of the account another team's configuration declares. */
const THEIRS = "a6090c8648694262ae990706d1a149ac";
const TYPE = "scriptmonitor_alert_new_malicious_scripts";
const ID1 = "11111111-1111-4111-8111-111111111111";
const ID2 = "22222222-2222-4222-8222-222222222222";

const entry = (over: Partial<DesiredNotification> = {}): DesiredNotification => ({
  name: "Malicious scripts",
  alert_type: TYPE,
  enabled: true,
  zones: [OURS[0]],
  email: ["secops@example.com"],
  webhooks: [],
  ...over,
});

/** A live policy; `zones` undefined: no zone filter (every zone of the account). */
const policy = (id: string, zones: string[] | undefined, over: Record<string, unknown> = {}) =>
  normalizeLivePolicy(
    {
      id,
      name: "Malicious scripts",
      alert_type: TYPE,
      enabled: true,
      mechanisms: { email: [{ id: "theirs@example.com" }] },
      filters: zones === undefined ? {} : { zones },
      ...over,
    },
    `accounts/${A}/alerting/v3/policies`,
  );

const plan = (entries: DesiredNotification[], policies: ReturnType<typeof policy>[], prune = true) =>
  notificationPolicies.diff(
    { zone_id: A, scope: "account", prune, notifications: entries },
    { policies, zones: [...OURS] },
  );

const summary = (r: ReturnType<typeof plan>) => r.changes.map((c) => [c.kind, c.live_id ?? c.identity]);

describe("foreignScope: whether a policy alerts only on zones of this configuration", () => {
  const ours = new Set<string>(OURS);
  it("a filter of our zones only is ours; none, an empty one, or another zone is not", () => {
    expect(foreignScope({ zones: [OURS[1], OURS[0]] }, ours)).toBeUndefined();
    expect(foreignScope({}, ours)).toContain("names no zone (it alerts on every zone of the account)");
    expect(foreignScope({ zones: [] }, ours)).toContain("names no zone");
    expect(foreignScope({ zones: [OURS[0], THEIRS, THEIRS] }, ours)).toBe(
      `its zone filter names zone ${THEIRS}, which this configuration does not declare`,
    );
  });
});

describe("prune: only policies scoped to this configuration's zones", () => {
  it("deletes a stale alert on our zones; keeps, with how to take it over, one naming another zone or none", () => {
    const r = plan(
      [],
      [
        policy(ID1, [OURS[0], OURS[1]]),
        policy(ID2, [THEIRS]),
        policy("33333333-3333-4333-8333-333333333333", undefined),
        policy("44444444-4444-4444-8444-444444444444", [OURS[0], THEIRS]),
        policy("55555555-5555-4555-8555-555555555555", undefined, { alert_type: "billing_usage_alert" }),
      ],
    );
    expect(r.errors).toEqual([]);
    expect(summary(r)).toEqual([["delete", ID1]]);
    expect(r.warnings).toHaveLength(3);
    expect(r.warnings?.[0]).toBe(
      `notification policy id ${ID2} (name "Malicious scripts", alert_type ${TYPE}) is kept, not pruned: its ` +
        `zone filter names zone ${THEIRS}, which this configuration does not declare, so it may be another ` +
        `team's. To manage it here, pin it: write \`id: ${ID2}\` under an entry of notifications:.`,
    );
    expect(r.warnings?.[1]).toContain("names no zone (it alerts on every zone of the account)");
    // Other alerting is not zoneform's: neither deleted nor mentioned.
    expect(r.warnings?.join("\n")).not.toContain("billing_usage_alert");
  });

  it("prune: false deletes nothing and has nothing to warn of", () => {
    const r = plan([], [policy(ID1, [OURS[0]]), policy(ID2, [THEIRS])], false);
    expect(r.changes).toEqual([]);
    expect(r.warnings).toEqual([]);
  });

  it("a pinned policy is the entry's whatever its filter; the rest is pruned or kept as above", () => {
    const r = plan([entry({ id: ID2 })], [policy(ID1, [OURS[0]]), policy(ID2, [THEIRS])]);
    expect(r.errors).toEqual([]);
    expect(summary(r)).toEqual([
      ["update", ID2],
      ["delete", ID1],
    ]);
    const put = r.changes[0]!.operations[0]!;
    expect([put.method, put.path]).toEqual(["PUT", `accounts/${A}/alerting/v3/policies/${ID2}`]);
    expect(put.body).toMatchObject({
      filters: { zones: [OURS[0]] },
      mechanisms: { email: [{ id: "secops@example.com" }] },
    });
  });
});

describe("an unpinned entry: a name and an alert type are no identity", () => {
  it("takes its one candidate when its filter names only zones of this configuration", () => {
    const r = plan([entry()], [policy(ID1, [OURS[1]])]);
    expect(r.errors).toEqual([]);
    expect(summary(r)).toEqual([["update", ID1]]);
  });

  it("stops on a candidate naming another team's zone: the pin to take it over, or a rename; nothing else", () => {
    const r = plan([entry(), entry({ name: "Stale", zones: [OURS[1]] })], [policy(ID1, [THEIRS])]);
    expect(r.errors).toEqual([
      `notification policy "Malicious scripts" (${TYPE}) matches id ${ID1} (name "Malicious scripts", ` +
        `alert_type ${TYPE}) by its hints only, and its zone filter names zone ${THEIRS}, which this ` +
        "configuration does not declare: zoneform does not take it over on its hints. To take it over, pin it: " +
        `write \`id: ${ID1}\` under the entry; to create a new one instead, rename the entry. Nothing in this ` +
        "account is changed.",
    ]);
    // The candidate is held: neither taken nor pruned (the error stops the account anyway).
    expect(summary(r)).toEqual([["create", `Stale (${TYPE})`]]);
    expect(r.warnings).toEqual([]);
  });

  it("stops on a candidate with no zone filter (every zone of the account) that differs from the entry", () => {
    const r = plan([entry({ zones: undefined })], [policy(ID1, undefined)]);
    expect(r.errors).toHaveLength(1);
    expect(r.errors?.[0]).toContain("its zone filter names no zone (it alerts on every zone of the account)");
    expect(r.errors?.[0]).toContain(`\`id: ${ID1}\``);
    expect(r.changes).toEqual([]);
  });

  it("finds again a policy that already is what the entry says, whatever its filter: nothing is written", () => {
    const same = { mechanisms: { email: [{ id: "secops@example.com" }] } };
    expect(plan([entry({ zones: undefined })], [policy(ID1, undefined, same)])).toEqual({
      changes: [],
      errors: [],
      warnings: [],
    });
    expect(plan([entry({ zones: [THEIRS] })], [policy(ID1, [THEIRS], same)]).changes).toEqual([]);
    // Once the entry differs, it is no longer provably the file's.
    expect(plan([entry({ zones: undefined, enabled: false })], [policy(ID1, undefined, same)]).errors).toHaveLength(1);
  });

  it("stops on two candidates, even when both name only our zones, with both ids", () => {
    const r = plan([entry()], [policy(ID1, [OURS[0]]), policy(ID2, [OURS[0]])]);
    expect(r.changes).toEqual([]);
    expect(r.errors).toHaveLength(1);
    expect(r.errors?.[0]).toContain(`matches 2 live notification policies: id ${ID1}`);
    expect(r.errors?.[0]).toContain(`id ${ID2}`);
    expect(r.errors?.[0]).toContain(
      "to take it over, or rename the entry to create a new one; nothing in this account is changed.",
    );
  });
});
