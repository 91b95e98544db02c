import { describe, expect, it } from "vitest";
import type { DesiredZone } from "../../../src/model/desired.js";
import { pageShieldPolicies, type LivePolicy } from "../../../src/resources/page-shield-policies.js";
import { pageShieldSettings } from "../../../src/resources/page-shield-settings.js";

const Z = "0123456789abcdef0123456789abcdef";
const policy = (description: string, value = "script-src 'self'") => ({
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
    expect(changes[0]!.operations).toEqual([{ method: "POST", path: `zones/${Z}/page_shield/policies`, body: policy("A") }]);
  });

  it("updates only when a field differs, and marks CSP values as text for a word diff", () => {
    const { changes } = pageShieldPolicies.diff(zone([policy("A", "script-src 'self' https://js.stripe.com")]), [live("p1", policy("A"))]);
    expect(changes[0]).toMatchObject({ kind: "update", live_id: "p1" });
    expect(changes[0]!.fields).toEqual([
      { field: "value", before: "script-src 'self'", after: "script-src 'self' https://js.stripe.com", text: true },
    ]);
    expect(changes[0]!.operations[0]).toMatchObject({ method: "PUT", path: `zones/${Z}/page_shield/policies/p1` });
    expect(pageShieldPolicies.diff(zone([policy("A")]), [live("p1", policy("A"))]).changes).toEqual([]);
  });

  it("deletes live duplicates of one description, keeping the one that already matches", () => {
    const { changes, warnings } = pageShieldPolicies.diff(zone([policy("A")]), [
      live("p1", policy("A", "other")),
      live("p2", policy("A")),
    ]);
    expect(changes.map((c) => [c.kind, c.live_id])).toEqual([["delete", "p1"]]);
    expect(warnings?.[0]).toMatch(/duplicate/);
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

describe("page_shield_settings diff", () => {
  it("sends only the settings that differ, and none when the file says nothing", () => {
    const z: DesiredZone = { zone_id: Z, page_shield: { enabled: true, use_connection_url_path: false, prune: true } };
    const { changes } = pageShieldSettings.diff(z, { enabled: false, use_cloudflare_reporting_endpoint: true, use_connection_url_path: false });
    expect(changes[0]!.operations).toEqual([{ method: "PUT", path: `zones/${Z}/page_shield`, body: { enabled: true } }]);
    expect(pageShieldSettings.owns({ zone_id: Z, page_shield: { prune: true, policies: [] } })).toBe(false);
  });
});
