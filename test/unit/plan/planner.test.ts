// The pure planner, tested from recorded live snapshots of each section (test/fixtures/planner/*.json:
// the desired file, the live state zoneform read from the emulator, the expected changes and calls).
// No HTTP, no clock: each snapshot plans in milliseconds.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseConfigText } from "../../../src/config/index.js";
import { plan, type LiveState } from "../../../src/plan/planner.js";

const DIR = join(import.meta.dirname, "../../fixtures/planner");

interface Snapshot {
  section: string;
  env: Record<string, string>;
  desired: string;
  live: LiveState;
  expected: {
    errors: string[];
    warnings: string[];
    changes: Array<{ kind: string; resource: string; identity: string; summary?: string; operations: unknown[] }>;
  };
}

const snapshots = readdirSync(DIR)
  .filter((f) => f.endsWith(".json"))
  .map((f) => JSON.parse(readFileSync(join(DIR, f), "utf8")) as Snapshot);

describe("plan(desired, live)", () => {
  it("has a snapshot for every section", () => {
    expect(snapshots.map((s) => s.section).sort()).toEqual([
      "custom-fields",
      "custom-hostnames",
      "logpush",
      "page-shield",
      "waf",
    ]);
  });

  for (const snap of snapshots) {
    it(`plans the ${snap.section} snapshot: the changes and calls that make it match`, () => {
      const { desired } = parseConfigText(snap.desired, `${snap.section}.yaml`, snap.env);
      const p = plan(desired, snap.live);
      const zone = p.zones[0]!;
      expect(zone.errors).toEqual(snap.expected.errors);
      expect(zone.warnings).toEqual(snap.expected.warnings);
      expect(
        zone.changes.map((c) => ({
          kind: c.kind,
          resource: c.resource,
          identity: c.identity,
          ...(c.summary ? { summary: c.summary } : {}),
          operations: c.operations,
        })),
      ).toEqual(snap.expected.changes);
      expect(p.created_at).toBe(snap.live.read_at);
      // Pure: the same inputs give the same plan, and the inputs are left as they were.
      const again = JSON.stringify(snap.live);
      expect(plan(desired, snap.live)).toEqual(p);
      expect(JSON.stringify(snap.live)).toBe(again);
    });
  }

  it("plans nothing for a live state that already matches (the desired state applied)", () => {
    const snap = snapshots.find((s) => s.section === "custom-fields")!;
    const { desired } = parseConfigText(snap.desired, "f.yaml", snap.env);
    const live = structuredClone(snap.live);
    const rule = (live.zones[0]!.kinds.custom_fields_rule as { entrypoint: { rules: Array<Record<string, any>> } })
      .entrypoint.rules[0]!;
    rule.action_parameters = {
      request_fields: [{ name: "cf-ray" }, { name: "referer" }],
      response_fields: [{ name: "cache-control" }],
    };
    expect(plan(desired, live).zones[0]!.changes).toEqual([]);
  });

  it("fails a zone it has no reading of, and a zone whose read failed, with no change", () => {
    const snap = snapshots.find((s) => s.section === "page-shield")!;
    const { desired } = parseConfigText(snap.desired, "p.yaml", snap.env);
    expect(plan(desired, { read_at: snap.live.read_at, zones: [] }).zones[0]).toMatchObject({
      changes: [],
      errors: ["the zone was not read"],
    });
    const failed = { ...snap.live.zones[0]!, kinds: {}, errors: ["reading page_shield_policy: HTTP 500"] };
    expect(plan(desired, { read_at: snap.live.read_at, zones: [failed] }).zones[0]).toMatchObject({
      changes: [],
      errors: ["reading page_shield_policy: HTTP 500"],
    });
  });
});
