// The migration switch's body, pure: live rules sent back by id and unchanged, proposal rules added
// only when the entry point does not hold them, and a live rule without an id refused.
import { describe, expect, it } from "vitest";
import { planSwitch, sameEntrypoint } from "../../../src/migration/switch-body.js";
import type { Entrypoint } from "../../../src/sections/shared/entrypoint.js";

const OWASP = "4814384a9e5d4991b9815dcfc25d2f1f";
const CFM = "efb7b8c949ac4650a09736fc376e9aee";
const Z = "0123456789abcdef0123456789abcdef";
const proposed = (id: string) => ({
  id: "",
  version: "",
  action: "execute",
  expression: "true",
  description: `run ${id}`,
  ref: "",
  enabled: true,
  action_parameters: { id, version: "latest" },
});
const proposal = { name: "default", rules: [proposed(OWASP), proposed(CFM)] };
const skip = {
  id: "a".repeat(32),
  version: "3",
  last_updated: "2026-01-01T00:00:00Z",
  action: "skip",
  expression: "ip.src eq 203.0.113.7",
  ref: "x",
  logging: { enabled: true },
  action_parameters: { ruleset: "current" },
};
const tuned = {
  id: "b".repeat(32),
  version: "2",
  last_updated: "2026-01-01T00:00:00Z",
  action: "execute",
  expression: "true",
  ref: "y",
  action_parameters: { id: OWASP, version: "latest", overrides: { rules: [{ id: "r", score_threshold: 60 }] } },
};
const ep = (rules: Entrypoint["rules"]): Entrypoint => ({
  id: "c".repeat(32),
  name: "default",
  phase: "http_request_firewall_managed",
  version: "4",
  rules,
});

describe("planSwitch", () => {
  it("creates the entry point with the proposal when the zone has none", () => {
    const s = planSwitch(Z, "pending", proposal, null);
    if ("error" in s) throw new Error(s.error);
    expect(s.operation.body).toEqual({ name: "default", rules: proposal.rules });
    expect(s.operation.query).toEqual({ waf_migration: "pending", phase_two: "1" });
    expect(s.lines.filter((l) => l.includes("+ adds:"))).toHaveLength(2);
  });

  it("keeps every live rule by id with its content, and adds only what is missing", () => {
    const s = planSwitch(Z, "validation", proposal, ep([skip, tuned]));
    if ("error" in s) throw new Error(s.error);
    const { version: _a, last_updated: _b, ...skipSent } = skip;
    const { version: _c, last_updated: _d, ...tunedSent } = tuned;
    expect(s.operation.body).toEqual({ name: "default", rules: [skipSent, tunedSent, proposed(CFM)] });
    expect(s.kept.map((r) => r.id)).toEqual([skip.id, tuned.id]);
    expect(s.added).toEqual([proposed(CFM)]);
    expect(s.lines.join("\n")).toMatch(/not added \(the entry point already has it as b{32}/);
  });

  it("adds nothing when the entry point already holds every proposed rule", () => {
    const s = planSwitch(Z, "pending", { name: "default", rules: [proposed(OWASP)] }, ep([tuned]));
    if ("error" in s) throw new Error(s.error);
    expect(s.added).toEqual([]);
    expect(s.lines[1]).toMatch(/no rule is added/);
  });

  it("refuses an entry point with a rule that has no id: it could not be kept", () => {
    const { id: _id, ...noId } = skip;
    const s = planSwitch(Z, "pending", proposal, ep([noId as never]));
    expect(s).toMatchObject({ error: expect.stringMatching(/rule 1 .* without an id; .* nothing was changed/) });
  });

  it("sameEntrypoint sees any difference", () => {
    expect(sameEntrypoint(ep([skip]), ep([skip]))).toBe(true);
    expect(sameEntrypoint(ep([skip]), { ...ep([skip]), version: "5" })).toBe(false);
    expect(sameEntrypoint(null, ep([]))).toBe(false);
  });
});
