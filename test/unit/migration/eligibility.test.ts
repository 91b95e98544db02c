import { describe, expect, it } from "vitest";
import { describeStart, explainCheck, explainStatus, startRefusal } from "../../../src/migration/eligibility.js";
import { zonePlanOf } from "../../../src/sections/shared/zone-info.js";
import { oldActionFor, oldSensitivitiesFor } from "../../../src/migration/sensitivity.js";

const eligible = { compatible: true, migration_state: "start" };

describe("explaining the check", () => {
  it("says an eligible zone can go on, and what comes next", () => {
    const e = explainCheck("z1", eligible);
    expect(e.eligible).toBe(true);
    expect(e.lines.join("\n")).toMatch(/eligible.*\n.*waf-migration config/);
  });

  it("gives the API's reason and the spec's advice for an ineligible zone", () => {
    const e = explainCheck("z1", {
      compatible: false,
      migration_state: "incompatible",
      reason: "URI-based WAF overrides exist",
    });
    expect(e.eligible).toBe(false);
    expect(e.lines[0]).toBe("Zone z1 is not eligible for the WAF migration: URI-based WAF overrides exist.");
    expect(e.lines.join("\n")).toMatch(/URI-based WAF overrides.*deleted/);
    expect(e.lines.join("\n")).toMatch(/200 firewall rules.*4 KB.*support/);
  });

  it("treats a migrated zone as not eligible and validation mode as ready to finish", () => {
    expect(explainCheck("z1", { compatible: true, migration_state: "done" }).eligible).toBe(false);
    expect(explainCheck("z1", { compatible: true, migration_state: "validation" }).lines.join("\n")).toMatch(
      /--mode pending/,
    );
  });
});

describe("refusing a start before anything is written", () => {
  it("refuses an ineligible zone whatever the mode", () => {
    expect(startRefusal("z1", { compatible: false, migration_state: "incompatible" }, "pending", undefined)).toMatch(
      /not eligible.*Nothing was changed/,
    );
  });

  it("refuses validation mode on a zone known not to be Enterprise", () => {
    expect(startRefusal("z1", eligible, "validation", "pro")).toMatch(
      /only available to Enterprise zones; zone z1 is on the pro plan/,
    );
    expect(startRefusal("z1", eligible, "validation", "enterprise")).toBeUndefined();
    expect(startRefusal("z1", eligible, "pending", "pro")).toBeUndefined();
  });

  it("leaves validation mode to the API when the plan is unknown", () => {
    expect(startRefusal("z1", eligible, "validation", undefined)).toBeUndefined();
  });

  it("refuses validation twice and a migrated zone", () => {
    expect(startRefusal("z1", { compatible: true, migration_state: "validation" }, "validation", "enterprise")).toMatch(
      /already in validation mode/,
    );
    expect(
      startRefusal("z1", { compatible: true, migration_state: "validation" }, "pending", "enterprise"),
    ).toBeUndefined();
    expect(startRefusal("z1", { compatible: true, migration_state: "done" }, "pending", undefined)).toMatch(
      /already uses the new WAF/,
    );
  });
});

describe("reading a zone's plan", () => {
  it("takes plan.legacy_id, else the plan's name", () => {
    expect(zonePlanOf({ plan: { legacy_id: "enterprise", name: "Enterprise Website" } })).toBe("enterprise");
    expect(zonePlanOf({ plan: { name: "Pro Plan" } })).toBe("pro");
    expect(zonePlanOf({ plan: "business" })).toBe("business");
    expect(zonePlanOf({})).toBeUndefined();
    expect(zonePlanOf(null)).toBeUndefined();
  });
});

describe("words", () => {
  it("says plainly that a start cannot be undone", () => {
    expect(describeStart("z1", "pending", false).join("\n")).toMatch(/cannot be undone.*no way back/);
    expect(describeStart("z1", "validation", false).join("\n")).toMatch(/Both WAFs then run.*\n.*\n.*cannot be undone/);
    expect(describeStart("z1", "pending", true)[0]).toMatch(/leaving validation mode/);
  });

  it("explains the status answer", () => {
    expect(
      explainStatus("z1", { migration_state: "validation", old_waf_status: "enabled", new_waf_status: "enabled" }).at(
        -1,
      ),
    ).toMatch(/Both WAFs run/);
    expect(
      explainStatus("z1", {
        migration_state: "done",
        old_waf_status: "disabled",
        new_waf_status: "enabled",
        created: "t",
        source: "api",
      }),
    ).toContain("  migration started:          t (via api)");
  });

  it("maps back to the spec's sensitivity table and actions", () => {
    expect(oldSensitivitiesFor(2, 40)).toEqual(["High", "Default"]);
    expect(oldSensitivitiesFor(1, 25)).toEqual(["Medium"]);
    expect(oldSensitivitiesFor(3, 40)).toEqual([]);
    expect(oldActionFor("log")).toBe("Simulate");
  });
});
