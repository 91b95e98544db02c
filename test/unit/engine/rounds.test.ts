// How apply orders a zone's changes: deletes last; kinds side by side; the changes of a kind whose
// changes each write an object of their own side by side, any other kind's in plan order.
import { describe, expect, it } from "vitest";
import { rounds } from "../../../src/engine/execute.js";
import type { Change } from "../../../src/model/plan.js";

const change = (resource: string, identity: string, kind: Change["kind"] = "create"): Change =>
  ({ kind, resource, zone_id: "z", identity, fields: [], operations: [] }) as unknown as Change;
const names = (r: Change[][][]) => r.map((round) => round.map((chain) => chain.map((c) => `${c.kind} ${c.identity}`)));

describe("apply rounds", () => {
  it("makes independent objects at once, keeps the rules of one entry point in plan order, deletes last", () => {
    const changes = [
      change("page_shield_settings", "settings", "update"),
      change("page_shield_policy", "p1"),
      change("page_shield_policy", "p2", "update"),
      change("waf_managed_rules", "owasp"),
      change("waf_managed_rules", "managed"),
      change("logpush_job", "j1"),
      change("page_shield_policy", "p3", "delete"),
      change("logpush_job", "j2", "delete"),
      change("waf_managed_rules", "old", "delete"),
      change("waf_managed_rules", "older", "delete"),
    ];
    expect(names(rounds(changes))).toEqual([
      [["update settings"], ["create p1"], ["update p2"], ["create owasp", "create managed"], ["create j1"]],
      [["delete p3"], ["delete j2"], ["delete old", "delete older"]],
    ]);
  });

  it("runs every change in plan order when no kind is independent", () => {
    const changes = [change("a", "1"), change("b", "2"), change("a", "3")];
    expect(names(rounds(changes, () => false))).toEqual([[["create 1", "create 3"], ["create 2"]]]);
  });

  it("has no empty round", () => {
    expect(rounds([])).toEqual([]);
    expect(names(rounds([change("logpush_job", "j", "delete")]))).toEqual([[["delete j"]]]);
  });
});
