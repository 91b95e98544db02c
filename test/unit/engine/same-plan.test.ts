// A saved plan against the plan made again now (src/engine/verify.ts assertSamePlan): not only the
// operations and fingerprints, but everything the plan shows is compared, and what differs is named
// (never a value), so a plan whose display was edited and digested again is refused by apply.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseConfigText } from "../../../src/config/index.js";
import { assertSamePlan } from "../../../src/engine/verify.js";
import { StalePlanError } from "../../../src/errors.js";
import type { Plan } from "../../../src/model/plan.js";
import { plan as planPure, type LiveState } from "../../../src/plan/planner.js";
import { fileForm } from "../../../src/plan/secrets.js";

const snap = JSON.parse(readFileSync(join(import.meta.dirname, "../../fixtures/planner/page-shield.json"), "utf8")) as {
  env: Record<string, string>;
  desired: string;
  live: LiveState;
};
const { desired } = parseConfigText(snap.desired, "page-shield.yaml", snap.env);
const fresh = fileForm(planPure(desired, snap.live), desired);

function refusal(saved: Plan): string {
  try {
    assertSamePlan(saved, fresh);
  } catch (err) {
    expect(err).toBeInstanceOf(StalePlanError);
    return (err as Error).message;
  }
  return "accepted";
}

const update = (p: Plan) => p.zones[0]!.changes.find((c) => c.kind === "update" && c.live_id)!;

describe("the saved plan against the plan made now", () => {
  it("accepts the same plan", () => {
    expect(refusal(structuredClone(fresh))).toBe("accepted");
  });

  it.each<[string, (p: Plan) => void, string]>([
    ["a field's value", (p) => (update(p).fields[0]!.after = "log"), 'its field "action"'],
    ["a field left out", (p) => update(p).fields.pop(), 'its field "value"'],
    ["a field's sensitivity", (p) => (update(p).fields[1]!.sensitive = true), 'its field "value"'],
    ["the fields' order", (p) => update(p).fields.reverse(), "its fields in another order"],
    ["a summary", (p) => (update(p).summary = "harmless"), "its summary"],
    ["a note", (p) => (update(p).notes = ["reviewed by security"]), "its notes"],
    ["the value before", (p) => (update(p).before = {}), "its value before"],
    ["the value after", (p) => (update(p).after = {}), "its value after"],
  ])("refuses %s shown otherwise, naming it", (_what, edit, named) => {
    const saved = structuredClone(fresh);
    edit(saved);
    const message = refusal(saved);
    expect(message).toContain(
      "the saved plan is not what zoneform plans for the desired state it carries; nothing was written:\n",
    );
    expect(message).toContain(
      `example.com: page_shield_policy "Checkout": the file shows ${named} otherwise than zoneform plans now`,
    );
  });

  it("refuses a zone's name, warnings and errors shown otherwise", () => {
    const saved = structuredClone(fresh);
    saved.zones[0]!.name = "example.org";
    saved.zones[0]!.warnings = ["all is well"];
    const message = refusal(saved);
    expect(message).toContain('example.com: the file names the zone "example.org", zoneform "example.com"');
    expect(message).toContain("example.com: the file shows other warnings than zoneform finds now");
    const errors = structuredClone(fresh);
    errors.zones[0]!.errors = ["made up"];
    expect(refusal(errors)).toContain("example.com: the file shows other errors than zoneform finds now");
  });

  it("refuses a change's kind, identity or live id, and a finder, naming the change", () => {
    const kind = structuredClone(fresh);
    update(kind).live_id = "58ec042631093a1cb3e0efe382de9924";
    expect(refusal(kind)).toContain(
      'change 2 is update page_shield_policy "Checkout" (id "58ec042631093a1cb3e0efe382de9924") in the file, ' +
        'update page_shield_policy "Checkout" (id "195cc7b95424a50fefef8e406f1c65b3") now',
    );
    const finder = structuredClone(fresh);
    const create = finder.zones[0]!.changes.find((c) => c.kind === "create")!;
    create.operations[0]!.finds!.known = [];
    expect(refusal(finder)).toContain(
      `page_shield_policy "New": POST zones/${fresh.zones[0]!.zone_id}/page_shield/policies differs from what ` +
        "zoneform plans (how it finds what it creates)",
    );
  });

  it("refuses a zone the saved plan has and zoneform does not plan now", () => {
    const saved = structuredClone(fresh);
    saved.zones.push({ ...structuredClone(fresh.zones[0]!), zone_id: "fedcba9876543210fedcba9876543210", name: "x" });
    expect(refusal(saved)).toContain("x: not planned now");
  });
});
