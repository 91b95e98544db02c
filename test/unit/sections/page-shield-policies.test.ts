import { describe, expect, it } from "vitest";
import type { CloudflareClient } from "../../../src/cloudflare/types.js";
import { createReadContext } from "../../../src/engine/read.js";
import { AnswerShapeError } from "../../../src/errors.js";
import type { DesiredPolicy } from "../../../src/sections/page_shield/index.js";
import type { DesiredZone } from "../../../src/sections/index.js";
import { normalizePolicy, pageShieldPolicies, type LivePolicy } from "../../../src/sections/page_shield/policies.js";
import { pageShieldSettings } from "../../../src/sections/page_shield/settings.js";
import { recorded, recordedResult } from "../recorded.js";
import { NO_SECRETS } from "../../../src/secrets/index.js";

const Z = "0123456789abcdef0123456789abcdef";
const policy = (description: string, value = "script-src 'self'"): DesiredPolicy => ({
  description,
  action: "log" as const,
  expression: 'http.host eq "example.com"',
  value,
  enabled: true,
});
const zone = (policies: ReturnType<typeof policy>[] | undefined, prune = true): DesiredZone => ({
  zone_id: Z,
  page_shield: { prune, ...(policies ? { policies } : {}) },
});
const live = (id: string, p: ReturnType<typeof policy>): LivePolicy => ({ id, ...p });

describe("page_shield_policy diff", () => {
  it("creates a policy that is not live, with a POST of the whole policy", () => {
    const { changes } = pageShieldPolicies.diff(zone([policy("A")]), []);
    expect(changes).toHaveLength(1);
    expect(changes[0]).toMatchObject({ kind: "create", identity: "A" });
    expect(changes[0]!.operations).toEqual([
      {
        method: "POST",
        path: `zones/${Z}/page_shield/policies`,
        body: policy("A"),
        // Found again only as a policy new since the plan holding exactly what was sent.
        finds: {
          path: `zones/${Z}/page_shield/policies`,
          match: { description: "A" },
          known: [],
          equals: policy("A"),
          compare: { enabled: "bool" },
        },
      },
    ]);
    // The ids the plan saw are known: an older policy of the same description is never adopted.
    const withOld = pageShieldPolicies.diff(zone([{ ...policy("A"), id: "p1" }, policy("A")]), [
      live("p1", policy("A")),
    ]);
    expect(withOld.errors).toEqual([]);
    expect(withOld.changes.map((c) => c.operations[0]!.finds?.known)).toEqual([["p1"]]);
  });

  it("updates only when a field differs, with a PUT of the whole policy, and marks CSP values as text", () => {
    const { changes } = pageShieldPolicies.diff(zone([policy("A", "script-src 'self' https://js.stripe.com")]), [
      live("p1", policy("A")),
    ]);
    expect(changes[0]).toMatchObject({ kind: "update", live_id: "p1" });
    expect(changes[0]!.fields).toEqual([
      { field: "value", before: "script-src 'self'", after: "script-src 'self' https://js.stripe.com", text: true },
    ]);
    // The whole policy, the five fields, whether the API merges or replaces (real-answers.md, "Page
    // Shield policy PUT": no recorded answer shows which; Terraform and cloudflare-go send all five).
    expect(changes[0]!.operations).toEqual([
      {
        method: "PUT",
        path: `zones/${Z}/page_shield/policies/p1`,
        body: policy("A", "script-src 'self' https://js.stripe.com"),
      },
    ]);
    expect(pageShieldPolicies.diff(zone([policy("A")]), [live("p1", policy("A"))]).changes).toEqual([]);
  });

  it(
    "stops on a description two live policies share, listing both and how to pin; never keeps one and " +
      "deletes the other",
    () => {
      const lives = [live("p1", policy("A", "other")), live("p2", policy("A"))];
      for (const prune of [true, false]) {
        const { changes, errors } = pageShieldPolicies.diff(zone([policy("A")], prune), lives);
        expect(changes).toEqual([]);
        expect(errors).toHaveLength(1);
        expect(errors![0]).toContain('Page Shield policy "A" matches 2 live Page Shield policies');
        expect(errors![0]).toContain('id p1 (description "A", action log)');
        expect(errors![0]).toContain('id p2 (description "A", action log)');
        expect(errors![0]).toContain("`id: p1`");
      }
    },
  );

  it("updates only the pinned policy of a shared description; the other is deleted only when prune is on", () => {
    const lives = [live("p1", policy("A", "other")), live("p2", policy("A"))];
    const pinned = pageShieldPolicies.diff(zone([{ ...policy("A", "new"), id: "p2" }], false), lives);
    expect(pinned.errors).toEqual([]);
    expect(
      pinned.changes.map((c) => `${c.kind} ${c.live_id} ${c.operations[0]!.method} ${c.operations[0]!.path}`),
    ).toEqual([`update p2 PUT zones/${Z}/page_shield/policies/p2`]);
    const pruned = pageShieldPolicies.diff(zone([{ ...policy("A"), id: "p2" }], true), lives);
    expect(pruned.changes.map((c) => [c.kind, c.live_id])).toEqual([["delete", "p1"]]);
    // Both pinned: both kept, no write.
    expect(
      pageShieldPolicies.diff(
        zone([
          { ...policy("A", "other"), id: "p1" },
          { ...policy("A"), id: "p2" },
        ]),
        lives,
      ).changes,
    ).toEqual([]);
  });

  it("stops on a pinned id that is not live, and names the live policies of that description", () => {
    const { changes, errors } = pageShieldPolicies.diff(zone([{ ...policy("A"), id: "gone" }]), [
      live("p1", policy("A")),
    ]);
    expect(changes).toEqual([]);
    expect(errors![0]).toMatch(
      /^Page Shield policy "A" pins id gone, which is not live \(live Page Shield policies with the same hints: id p1/,
    );
  });

  it("reads a live list that names one id twice once: never a keep and a delete of the same policy", () => {
    const p1 = live("p1", policy("A"));
    for (const prune of [true, false]) {
      const { changes, errors, warnings } = pageShieldPolicies.diff(zone([policy("A")], prune), [p1, { ...p1 }]);
      expect(changes).toEqual([]);
      expect(errors).toEqual([]);
      expect(warnings).toEqual(["the list of Page Shield policies named id p1 twice; it was read once"]);
    }
    // The same id with two contents: the zone stops.
    expect(pageShieldPolicies.diff(zone([policy("A")]), [p1, live("p1", policy("A", "x"))]).errors![0]).toContain(
      "named id p1 twice with different contents",
    );
  });

  it("deletes unlisted live policies, unless prune is false", () => {
    const lives = [live("p9", policy("Old"))];
    expect(pageShieldPolicies.diff(zone([]), lives).changes.map((c) => c.kind)).toEqual(["delete"]);
    expect(pageShieldPolicies.diff(zone([], false), lives).changes).toEqual([]);
  });

  it("does not own policies when the file does not list them", () => {
    expect(pageShieldPolicies.owns(zone(undefined))).toBe(false);
    expect(pageShieldPolicies.owns(zone([]))).toBe(true);
  });
});

describe("page_shield_policy read", () => {
  /**
   * A client whose `listAll` answers `result` as the whole list (its paging is the client's, tested in
   * test/integration/client.test.ts); a paginate or request call would fail the test.
   */
  const fakeClient = (result: unknown) => {
    const calls: Array<{ method: string; path: string; opts: unknown }> = [];
    const client = {
      async listAll(path: string, opts?: unknown) {
        calls.push({ method: "GET", path, opts });
        return structuredClone(result);
      },
    } as unknown as CloudflareClient;
    return { client, calls };
  };
  const desired = { version: 1 as const, safety: { max_deletes: 5 }, zones: [], secrets: NO_SECRETS, files: [] };
  const RECORDED = "378f7456a221413a9e756afa6f4dbc5c";
  const recordedPolicy = {
    description: "test-policy",
    action: "log" as const,
    expression: '(ip.src.country eq "CL")',
    value: "default-src 'none'",
    enabled: true,
  };

  it("reads the recorded list (no result_info) with one plain GET and no page parameters", async () => {
    expect(recorded("cft_page_shield_policies").body).not.toHaveProperty("result_info");
    const { client, calls } = fakeClient(recordedResult("cft_page_shield_policies"));
    const { live: got, resources } = await pageShieldPolicies.read(createReadContext(client, desired), zone([]));
    expect(calls).toEqual([{ method: "GET", path: `zones/${Z}/page_shield/policies`, opts: undefined }]);
    expect(got).toEqual([{ id: RECORDED, ...recordedPolicy }]);
    expect(resources).toEqual({ [RECORDED]: recordedPolicy });
  });

  it("plans nothing for a file that states the recorded policy", async () => {
    const { client } = fakeClient(recordedResult("cft_page_shield_policies"));
    const z = zone([recordedPolicy]);
    const { live: got } = await pageShieldPolicies.read(createReadContext(client, desired), z);
    expect(pageShieldPolicies.diff(z, got)).toEqual({ changes: [], errors: [], warnings: [] });
  });

  it("fails the read of an answer that is not a list", async () => {
    const { client } = fakeClient({ policies: [] });
    await expect(pageShieldPolicies.read(createReadContext(client, desired), zone([]))).rejects.toThrow(
      AnswerShapeError,
    );
  });
});

describe("normalizePolicy", () => {
  const raw = {
    id: "p1",
    description: "A",
    action: "allow",
    expression: "true",
    value: "script-src 'self'",
    enabled: false,
  };

  it("reads enabled given as the string the docs' own example sends, and an absent one as true", () => {
    expect(normalizePolicy(raw)).toEqual(raw);
    expect(normalizePolicy({ ...raw, enabled: "true" }).enabled).toBe(true);
    expect(normalizePolicy({ ...raw, enabled: "false" }).enabled).toBe(false);
    expect(normalizePolicy({ ...raw, enabled: undefined }).enabled).toBe(true);
    // Fields zoneform does not know are left out.
    expect(normalizePolicy({ ...raw, created_at: "2025-01-01T00:00:00Z" })).toEqual(raw);
  });

  it("throws AnswerShapeError rather than coercing a policy that plan would delete and re-create", () => {
    const bad: Array<[string, unknown]> = [
      ["not an object", null],
      ["a list", [raw]],
      ["no id", { ...raw, id: undefined }],
      ["an empty id", { ...raw, id: "" }],
      ["a numeric id", { ...raw, id: 5 }],
      ["a null description", { ...raw, description: null }],
      ["a numeric description", { ...raw, description: 7 }],
      ["no description", { ...raw, description: undefined }],
      ["an unknown action", { ...raw, action: "block" }],
      ["no action", { ...raw, action: undefined }],
      ["a null expression", { ...raw, expression: null }],
      ["a numeric value", { ...raw, value: 1 }],
      ["enabled 1", { ...raw, enabled: 1 }],
      ["enabled null", { ...raw, enabled: null }],
      ["enabled yes", { ...raw, enabled: "yes" }],
    ];
    for (const [why, policy] of bad) expect(() => normalizePolicy(policy), why).toThrow(AnswerShapeError);
    expect(() => normalizePolicy({ ...raw, id: undefined })).toThrow(
      "the API answered a Page Shield policy with id missing, expected a policy id",
    );
    expect(() => normalizePolicy({ ...raw, description: null })).toThrow(
      "the API answered a Page Shield policy with description null, expected a string",
    );
    expect(() => normalizePolicy({ ...raw, action: "block" })).toThrow(
      'the API answered a Page Shield policy with action "block", expected log, allow, add_reporting_directives',
    );
    // The action of 2026 (the shared spec real-answers.md "policy action") is read as it is.
    expect(normalizePolicy({ ...raw, action: "add_reporting_directives" }).action).toBe("add_reporting_directives");
  });
});

describe("page_shield_settings diff", () => {
  it("PUTs every setting the live answer states, with the change, and nothing when nothing differs", () => {
    const z: DesiredZone = { zone_id: Z, page_shield: { enabled: true, use_connection_url_path: false, prune: true } };
    const { changes } = pageShieldSettings.diff(z, {
      enabled: false,
      use_cloudflare_reporting_endpoint: true,
      use_connection_url_path: false,
    });
    expect(changes[0]!.fields).toEqual([{ field: "enabled", before: false, after: true }]);
    // The whole settings object: whether a PUT resets a setting it leaves out is not documented.
    expect(changes[0]!.operations).toEqual([
      {
        method: "PUT",
        path: `zones/${Z}/page_shield`,
        body: { enabled: true, use_cloudflare_reporting_endpoint: true, use_connection_url_path: false },
      },
    ]);
    // A setting the answer does not state is not invented.
    const partial = pageShieldSettings.diff(z, { enabled: false, use_connection_url_path: false });
    expect(partial.changes[0]!.operations[0]!.body).toEqual({ enabled: true, use_connection_url_path: false });
    expect(
      pageShieldSettings.diff(z, {
        enabled: true,
        use_cloudflare_reporting_endpoint: true,
        use_connection_url_path: false,
      }).changes,
    ).toEqual([]);
    expect(pageShieldSettings.owns({ zone_id: Z, page_shield: { prune: true, policies: [] } })).toBe(false);
  });
});
