// What a saved plan shows against what its operations do (src/plan/consistency.ts), without the API:
// every plan the planner makes from the recorded snapshots agrees with itself, and each way a display
// can be forged while the operations stay (the counts, a delete shown as an update, a field shown with
// another value than its body sends, a change hidden from the fields, another live id, a zone's name)
// is named.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseConfigText } from "../../../src/config/index.js";
import { StalePlanError } from "../../../src/errors.js";
import type { Plan } from "../../../src/model/plan.js";
import { assertConsistent, planInconsistencies } from "../../../src/plan/consistency.js";
import { plan as planPure, type LiveState } from "../../../src/plan/planner.js";
import { planForFile } from "../../../src/plan/secrets.js";

const DIR = join(import.meta.dirname, "../../fixtures/planner");

interface Snapshot {
  section: string;
  env: Record<string, string>;
  desired: string;
  live: LiveState;
}

const snapshots = readdirSync(DIR)
  .filter((f) => f.endsWith(".json"))
  .map((f) => JSON.parse(readFileSync(join(DIR, f), "utf8")) as Snapshot);

/** The snapshot's plan in file form, as `plan --out` saves it. */
function saved(section: string): Plan {
  const snap = snapshots.find((s) => s.section === section)!;
  const { desired } = parseConfigText(snap.desired, `${snap.section}.yaml`, snap.env);
  return planForFile(planPure(desired, snap.live), desired);
}

const change = (p: Plan, resource: string, kind: string) =>
  p.zones[0]!.changes.find((c) => c.resource === resource && c.kind === kind)!;

describe("a saved plan's display against its operations", () => {
  for (const snap of snapshots) {
    it(`finds nothing to say of the ${snap.section} snapshot's plan, in memory and in file form`, () => {
      const { desired } = parseConfigText(snap.desired, `${snap.section}.yaml`, snap.env);
      const made = planPure(desired, snap.live);
      expect(made.zones[0]!.changes.length).toBeGreaterThan(0);
      expect(planInconsistencies(made)).toEqual([]);
      expect(planInconsistencies(planForFile(made, desired))).toEqual([]);
    });
  }

  it("finds nothing to say of a replacement (a Logpush job whose kind changes), nor of its unchanged fields", () => {
    const snap = snapshots.find((s) => s.section === "logpush")!;
    // The API cannot change a job's kind in place: the job is created anew before the old one is deleted.
    const text = snap.desired.replace(
      "{ name: http, dataset: http_requests,",
      "{ name: http, dataset: http_requests, kind: edge,",
    );
    const { desired } = parseConfigText(text, "logpush.yaml", snap.env);
    const made = planPure(desired, snap.live);
    const replace = made.zones[0]!.changes.find((c) => c.kind === "replace")!;
    expect(replace.operations.map((op) => op.method)).toEqual(["POST", "DELETE"]);
    expect(planInconsistencies(planForFile(made, desired))).toEqual([]);
    // Shown with another enabled than the new job gets: named.
    replace.fields.find((f) => f.field === "enabled")!.after = true;
    expect(planInconsistencies(made)).toEqual([
      'example.com: replace logpush_job "http" shows enabled as another value than its call sends',
    ]);
  });

  it("names counts that are not the changes' own", () => {
    const p = saved("page-shield");
    p.summary = { ...p.summary, delete: 0, update: p.summary.update + 1 };
    expect(planInconsistencies(p)).toEqual([
      'its summary says "1 to create, 3 to update, 0 to replace, 0 to delete.", its changes make ' +
        '"1 to create, 2 to update, 0 to replace, 1 to delete."',
    ]);
  });

  it("names a change shown as another kind than its calls make", () => {
    const p = saved("page-shield");
    change(p, "page_shield_policy", "delete").kind = "update";
    p.summary = { create: 1, update: 3, replace: 0, delete: 0 };
    expect(planInconsistencies(p)).toEqual([
      'example.com: update page_shield_policy "Old" is shown as an update, but it sends a DELETE',
    ]);
    const q = saved("page-shield");
    const created = change(q, "page_shield_policy", "create");
    created.kind = "delete";
    q.summary = { create: 0, update: 2, replace: 0, delete: 2 };
    expect(planInconsistencies(q)).toEqual([
      'example.com: delete page_shield_policy "New" is shown as a delete, but its calls are POST',
    ]);
  });

  it("names a field shown with another value than its body sends, and a value sent but not shown", () => {
    const p = saved("page-shield");
    const update = change(p, "page_shield_policy", "update");
    update.fields.find((f) => f.field === "value")!.after = "script-src 'self'";
    expect(planInconsistencies(p)).toEqual([
      'example.com: update page_shield_policy "Checkout" shows value as another value than its call sends',
    ]);
    // The change hidden: the field left out while the body still sends it.
    update.fields = update.fields.filter((f) => f.field !== "value");
    expect(planInconsistencies(p)).toEqual([
      'example.com: update page_shield_policy "Checkout" sends value, which it does not show',
    ]);
    const q = saved("logpush");
    const job = change(q, "logpush_job", "update");
    job.fields.find((f) => f.field === "enabled")!.after = true;
    expect(planInconsistencies(q)).toEqual([
      'example.com: update logpush_job "http" shows enabled as another value than its call sends',
    ]);
  });

  it("accepts a value sent unchanged when it is the value before (settings are sent whole)", () => {
    const p = saved("page-shield");
    const settings = change(p, "page_shield_settings", "update");
    expect(settings.fields.map((f) => f.field)).toEqual(["enabled", "use_connection_url_path"]);
    // use_cloudflare_reporting_endpoint is sent as it is, unshown: it is the value before.
    expect(settings.operations[0]!.body).toHaveProperty("use_cloudflare_reporting_endpoint");
    settings.fields = settings.fields.filter((f) => f.field !== "enabled");
    expect(planInconsistencies(p)).toEqual([
      'example.com: update page_shield_settings "settings" sends enabled, which it does not show',
    ]);
    // A value before forged too cannot be told offline: apply plans again and compares it (verify.ts).
    (settings.before as Record<string, unknown>).enabled = true;
    expect(planInconsistencies(p)).toEqual([]);
  });

  it("names a live id its calls do not address, and a zone shown under another name", () => {
    const p = saved("page-shield");
    change(p, "page_shield_policy", "delete").live_id = "0123456789abcdef0123456789abcdef";
    change(p, "page_shield_policy", "update").live_id = "fedcba9876543210fedcba9876543210";
    p.zones[0]!.name = "example.org";
    expect(planInconsistencies(p)).toEqual([
      `zone ${p.zones[0]!.zone_id} is shown as "example.org", its desired state names it "example.com"`,
      'example.org: update page_shield_policy "Checkout" is shown with id "fedcba9876543210fedcba9876543210", but ' +
        "no call addresses it",
      'example.org: delete page_shield_policy "Old" is shown with id "0123456789abcdef0123456789abcdef", but it ' +
        "deletes another",
    ]);
  });

  it("refuses with exit 1, naming the plan and escaping what the file says", () => {
    const p = saved("page-shield");
    change(p, "page_shield_policy", "delete").kind = "update";
    change(p, "page_shield_policy", "update").identity = "Checkout\u001b[2J\u202e";
    let error: unknown;
    try {
      assertConsistent(p, "the plan file plan.json");
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(StalePlanError);
    expect((error as StalePlanError).exitCode).toBe(1);
    const message = (error as Error).message;
    expect(message).toMatch(
      /^the plan file plan\.json shows what its operations do not do; nothing was read or written:\n/,
    );
    expect(message).toContain("its summary says");
    expect(message).toContain('"Old" is shown as an update, but it sends a DELETE');
    expect(message).not.toMatch(/[\u001b\u202e]/);
    expect(() => assertConsistent(saved("waf"), "the plan file plan.json")).not.toThrow();
  });
});
