// Markdown plans that fit a pull-request comment: a marker for the one comment a CI job updates, the
// summary table first (every zone), each zone collapsible, and a cap that leaves zones out with a note
// saying how many, which, and where the full plan is.
import { describe, expect, it } from "vitest";
import type { Change, Plan } from "../../../src/model/plan.js";
import { COMMENT_MARKER, GITHUB_COMMENT_LIMIT, renderPlanMarkdown } from "../../../src/plan/render/markdown.js";
import { summariseZones } from "../../../src/plan/summary.js";

function bigPlan(zones: number): Plan {
  const zs = Array.from({ length: zones }, (_, i) => {
    const id = i.toString(16).padStart(32, "0");
    const change = (n: number): Change => ({
      kind: "update",
      resource: "page_shield_policy",
      zone_id: id,
      identity: `Policy ${n}`,
      fields: [
        {
          field: "value",
          before: "script-src 'self' https://a.example".repeat(3),
          after: "script-src 'self' https://b.example".repeat(3),
          text: true,
        },
      ],
      operations: [{ method: "PUT", path: `zones/${id}/page_shield/policies/${n}` }],
    });
    return {
      zone_id: id,
      name: `zone-${i}.example`,
      changes: [change(1), change(2), change(3)],
      fingerprints: {},
      errors: [],
      warnings: [],
    };
  });
  return { format_version: 5, created_at: "2026-11-22T00:00:00.000Z", zones: zs, summary: summariseZones(zs) };
}

describe("Markdown plans that fit", () => {
  it(
    "stay under GitHub's comment limit for 236 changed zones, listing every zone in the table and saying " +
      "what was left out",
    () => {
      const md = renderPlanMarkdown(bigPlan(236), { fullPlan: "the plan.json artifact, `zoneform show plan.json`" });
      expect(md.length).toBeLessThanOrEqual(GITHUB_COMMENT_LIMIT);
      expect(md.startsWith(`${COMMENT_MARKER}\n### zoneform plan`)).toBe(true);
      for (const i of [0, 117, 235]) expect(md).toContain(`| zone-${i}.example | 0 | 3 | 0 | 0 | 0 |`);
      expect(md).toMatch(
        /> \*\*\d+ of 236 zones left out\*\* \(`zone-\d+\.example`, .*, …\) to stay under 65536 characters; every zone is in the table above\. The full plan: the plan\.json artifact, `zoneform show plan\.json`\./,
      );
      expect(md).toContain("<details><summary><code>zone-0.example</code>");
    },
  );

  it("keeps every zone, open, when it fits; and --max-bytes 0 never cuts", () => {
    const small = renderPlanMarkdown(bigPlan(3));
    expect(small).not.toContain("left out");
    expect(small).toContain("<details open><summary><code>zone-2.example</code>");
    const all = renderPlanMarkdown(bigPlan(236), { maxBytes: 0 });
    expect(all.length).toBeGreaterThan(GITHUB_COMMENT_LIMIT);
    expect(all).toContain("<code>zone-235.example</code>");
  });

  it("honours a smaller cap", () => {
    const md = renderPlanMarkdown(bigPlan(20), { maxBytes: 4000 });
    expect(md.length).toBeLessThanOrEqual(4000);
    expect(md).toContain("left out");
  });
});
