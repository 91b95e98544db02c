// Issue 38: a coloured text plan fitted to a narrow terminal (the CLI's fitFor → fitText): API paths
// break at their slashes, never inside an id; a dim or coloured run a break splits closes at the end
// of its line and opens again on the next, so no line leaves a style on.
import { describe, expect, it } from "vitest";
import type { Plan } from "../../../src/model/plan.js";
import { renderPlanText } from "../../../src/plan/render/text.js";
import { displayWidth, fitText } from "../../../src/text-width.js";

const Z = "0123456789abcdef0123456789abcdef";
const R = "fedcba9876543210fedcba9876543210";
const RULE = "00112233445566778899aabbccddeeff";
const plan: Plan = {
  format_version: 5,
  created_at: "2026-11-21T00:00:00.000Z",
  summary: { create: 0, update: 1, replace: 0, delete: 0 },
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
          resource: "page_shield_policy",
          zone_id: Z,
          identity: "CSP of the checkout",
          live_id: RULE,
          summary: "value: one script source added to the checkout's content security policy",
          fields: [
            {
              field: "value",
              before: "script-src 'self' https://a.example; img-src *",
              after: "script-src 'self' https://a.example https://b.example; img-src *",
              text: true,
            },
          ],
          operations: [{ method: "PUT", path: `zones/${Z}/rulesets/${R}/rules/${RULE}`, body: {} }],
        },
      ],
    },
  ],
} as Plan;

/** The styles still open at the end of each line (SGR opened and not closed or reset). */
function leftOpen(line: string): number {
  let open = 0;
  for (const m of line.matchAll(/\u001b\[([0-9;]*)m/g)) {
    const p = m[1]!;
    if (p === "" || p === "0") open = 0;
    else if (/^(2[0-9]|39|49)$/.test(p)) open = Math.max(0, open - 1);
    else open++;
  }
  return open;
}

describe("a coloured plan at 50 columns", () => {
  const text = fitText(renderPlanText(plan, { color: true }), 50, { long: "break" });
  const lines = text.split("\n");

  it("keeps every line within the width", () => {
    for (const l of lines) expect(displayWidth(l), l).toBeLessThanOrEqual(50);
  });

  it("breaks the API path at slashes, each id whole on one line", () => {
    for (const id of [Z, R, RULE])
      expect(
        lines.some((l) => l.includes(id)),
        id,
      ).toBe(true);
    const call = lines.findIndex((l) => l.includes("PUT"));
    expect(call).toBeGreaterThanOrEqual(0);
    expect(lines[call + 1]!.trimStart().replace(/\u001b\[[0-9;]*m/g, "")).toMatch(/^[0-9a-f]{32}\//);
  });

  it("leaves no style open at the end of a line", () => {
    for (const l of lines) expect(leftOpen(l), JSON.stringify(l)).toBe(0);
  });

  it("shows only the added source in the word diff", () => {
    const plain = text.replace(/\u001b\[[0-9;]*m/g, "");
    expect(plain.match(/\{\+[^+]*\+\}/g)).toEqual(["{+https://b.example+}"]);
    expect(plain).not.toContain("[-");
  });
});
