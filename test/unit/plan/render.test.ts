import { describe, expect, it } from "vitest";
import type { Plan } from "../../../src/model/plan.js";
import { renderDriftReport } from "../../../src/plan/render/compact.js";
import { renderPlanMarkdown } from "../../../src/plan/render/markdown.js";
import { renderPlanText } from "../../../src/plan/render/text.js";

const Z = "0123456789abcdef0123456789abcdef";
const plan: Plan = {
  format_version: 5,
  created_at: "2026-11-21T00:00:00.000Z",
  summary: { create: 1, update: 2, replace: 0, delete: 1 },
  zones: [
    {
      zone_id: Z,
      name: "example.com",
      fingerprints: {},
      errors: [],
      warnings: [],
      changes: [
        {
          kind: "update",
          resource: "page_shield_settings",
          zone_id: Z,
          identity: "settings",
          summary: "enabled false → true",
          fields: [{ field: "enabled", before: false, after: true }],
          operations: [{ method: "PUT", path: `zones/${Z}/page_shield`, body: { enabled: true } }],
        },
        {
          kind: "create",
          resource: "page_shield_policy",
          zone_id: Z,
          identity: "Checkout",
          fields: [
            { field: "action", after: "allow" },
            { field: "value", after: "script-src 'self'" },
          ],
          operations: [{ method: "POST", path: `zones/${Z}/page_shield/policies`, body: {} }],
        },
        {
          kind: "update",
          resource: "page_shield_policy",
          zone_id: Z,
          identity: "Strict",
          live_id: "abc",
          fields: [
            {
              field: "value",
              before: "script-src 'self' https://old.example",
              after: "script-src 'self' https://js.stripe.com",
              text: true,
            },
          ],
          operations: [{ method: "PUT", path: `zones/${Z}/page_shield/policies/abc`, body: {} }],
        },
        {
          kind: "delete",
          resource: "page_shield_policy",
          zone_id: Z,
          identity: "Old",
          live_id: "def",
          fields: [],
          operations: [{ method: "DELETE", path: `zones/${Z}/page_shield/policies/def` }],
        },
      ],
    },
    { zone_id: "f".repeat(32), name: "example.net", fingerprints: {}, errors: [], warnings: [], changes: [] },
  ],
};

describe("plan renderers", () => {
  it("text: signs, before → after, word diffs, the calls and the Plan: line", () => {
    expect(renderPlanText(plan, { color: false })).toMatchInlineSnapshot(`
      "# example.com (0123456789abcdef0123456789abcdef)
        ~ page_shield_settings "settings"
            # enabled false → true
            ~ enabled: false → true
              PUT zones/0123456789abcdef0123456789abcdef/page_shield

        + page_shield_policy "Checkout"
            + action: "allow"
            + value: "script-src 'self'"
              POST zones/0123456789abcdef0123456789abcdef/page_shield/policies

        ~ page_shield_policy "Strict" (id abc)
            ~ value: script-src 'self' [-https://old.example-]{+https://js.stripe.com+}
              PUT zones/0123456789abcdef0123456789abcdef/page_shield/policies/abc

        - page_shield_policy "Old" (id def)
              DELETE zones/0123456789abcdef0123456789abcdef/page_shield/policies/def

      1 zone unchanged.
      Plan: 1 to create, 2 to update, 0 to replace, 1 to delete.
      "
    `);
  });
  it("text: says so when nothing changes", () => {
    const none: Plan = { ...plan, summary: { create: 0, update: 0, replace: 0, delete: 0 }, zones: [plan.zones[1]!] };
    expect(renderPlanText(none, { color: false })).toBe("No changes. 1 zone matches the configuration.\n");
  });
  it("markdown: a summary table and a diff block per changed zone", () => {
    expect(renderPlanMarkdown(plan)).toMatchInlineSnapshot(`
      "<!-- zoneform plan -->
      ### zoneform plan

      **Plan: 1 to create, 2 to update, 0 to replace, 1 to delete.**

      | zone | create | update | replace | delete | errors |
      |---|---:|---:|---:|---:|---:|
      | example.com | 1 | 2 | 0 | 1 | 0 |

      <details open><summary><code>example.com</code> (<code>0123456789abcdef0123456789abcdef</code>)</summary>

      \`\`\`diff
      ! ~ page_shield_settings "settings"
      #     enabled false → true
      -     enabled: false
      +     enabled: true
      #       PUT zones/0123456789abcdef0123456789abcdef/page_shield

      + + page_shield_policy "Checkout"
      +     action: "allow"
      +     value: "script-src 'self'"
      #       POST zones/0123456789abcdef0123456789abcdef/page_shield/policies

      ! ~ page_shield_policy "Strict" (id abc)
      -     value: "script-src 'self' https://old.example"
      +     value: "script-src 'self' https://js.stripe.com"
      #       PUT zones/0123456789abcdef0123456789abcdef/page_shield/policies/abc

      - - page_shield_policy "Old" (id def)
      #       DELETE zones/0123456789abcdef0123456789abcdef/page_shield/policies/def
      \`\`\`

      </details>

      "
    `);
  });
  it("drift: one line per drifted zone and a total", () => {
    expect(renderDriftReport(plan)).toMatchInlineSnapshot(`
      "example.com: drift (1 create, 2 update, 0 replace, 1 delete): update page_shield_settings "settings"; create page_shield_policy "Checkout"; update page_shield_policy "Strict"; delete page_shield_policy "Old"
      Drift in 1 of 2 zones.
      "
    `);
  });
});

describe("zones that could not be planned", () => {
  it("are shown with their errors and not counted as unchanged", () => {
    const failed: Plan = {
      ...plan,
      summary: { create: 0, update: 0, replace: 0, delete: 0 },
      zones: [
        {
          zone_id: Z,
          name: "example.com",
          fingerprints: {},
          errors: ["reading page_shield_settings: refused"],
          warnings: [],
          changes: [],
        },
      ],
    };
    const text = renderPlanText(failed, { color: false });
    expect(text).toContain("Error: reading page_shield_settings: refused");
    expect(text).not.toContain("unchanged");
    expect(text).toContain("1 zone could not be planned");
  });
});
