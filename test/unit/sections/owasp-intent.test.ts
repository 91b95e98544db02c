import { describe, expect, it } from "vitest";
import type { DesiredZone } from "../../../src/sections/index.js";
import type { Entrypoint, LiveRule } from "../../../src/sections/shared/entrypoint.js";
import { AnswerShapeError } from "../../../src/errors.js";
import { deriveOwasp, type OwaspRuleset } from "../../../src/sections/waf/managed-ruleset.js";
import {
  describeCreate,
  describeUpdate,
  formatThreshold,
  intentFrom,
  overridesFor,
  paranoiaOverrides,
  sameParanoia,
  tunedParameters,
  type OwaspIntent,
} from "../../../src/sections/waf/owasp-intent.js";
import { diffWaf, type LiveWaf } from "../../../src/sections/waf/waf-managed.js";

const Z = "0123456789abcdef0123456789abcdef";
const OWASP = "4814384a9e5d4991b9815dcfc25d2f1f";
const CFM = "efb7b8c949ac4650a09736fc376e9aee";
const LAST = "6179ae15870a4bb7b2d480d4843b323c";
const EP = "e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0";

const managed: OwaspRuleset = {
  id: OWASP,
  lastRuleId: LAST,
  defaultThreshold: 40,
  defaultAction: "block",
  paranoiaLevels: [1, 2, 3, 4],
};
const intent = (paranoia_level: number, score_threshold: number, action = "block", enabled = true): OwaspIntent => ({
  enabled,
  paranoia_level,
  score_threshold,
  action,
});
const executeRule = (
  id: string,
  rulesetId: string,
  overrides?: Record<string, unknown>,
  extra: Partial<LiveRule> = {},
): LiveRule => ({
  id,
  version: "3",
  action: "execute",
  expression: "true",
  description: "",
  enabled: true,
  ref: id,
  last_updated: "2024-01-01T00:00:00Z",
  action_parameters: { id: rulesetId, version: "latest", ...(overrides ? { overrides } : {}) },
  ...extra,
});
const skipRule: LiveRule = {
  id: "5c5c5c5c5c5c5c5c5c5c5c5c5c5c5c5c",
  version: "1",
  action: "skip",
  expression: "ip.src eq 192.0.2.1",
  enabled: true,
  ref: "dashboard-skip",
  description: "office",
  action_parameters: { ruleset: "current" },
};
const entrypoint = (...rules: LiveRule[]): Entrypoint => ({
  id: EP,
  name: "default",
  phase: "http_request_firewall_managed",
  version: "7",
  rules,
});
const live = (ep: Entrypoint | null, owaspRuleset: OwaspRuleset | null = managed): LiveWaf => ({
  entrypoint: ep,
  owaspId: OWASP,
  cloudflareManagedId: CFM,
  owaspRuleset,
});
const zone = (waf: DesiredZone["waf"]): DesiredZone => ({ zone_id: Z, name: "example.com", waf });
/** As the normalized file has it: the expression defaults to "true". */
const owaspZone = (p: number, t: number, action = "block", enabled = true, expression = "true") =>
  zone({ owasp: { enabled, paranoia_level: p, score_threshold: t, action: action as "block", expression } });
const cfmZone = (enabled: boolean, action?: "log", expression = "true") =>
  zone({ cloudflare_managed: { enabled, expression, ...(action !== undefined ? { action } : {}) } });

describe("OWASP intent ↔ overrides", () => {
  it("paranoia N disables the tags of the levels above N, and threshold/action go on the last rule", () => {
    expect(overridesFor(intent(2, 60, "managed_challenge"), managed)).toEqual({
      categories: [
        { category: "paranoia-level-3", enabled: false },
        { category: "paranoia-level-4", enabled: false },
      ],
      rules: [{ id: LAST, score_threshold: 60, action: "managed_challenge" }],
    });
    expect(overridesFor(intent(4, 40), managed).categories).toEqual([]);
  });

  it(
    "reads the intent back: lowest disabled paranoia tag minus one, threshold and action from the last " +
      "rule's override",
    () => {
      for (const p of [1, 2, 3, 4]) {
        const want = intent(p, 25, "log");
        const rule = { enabled: true, action_parameters: { id: OWASP, overrides: overridesFor(want, managed) } };
        expect(intentFrom(rule, managed)).toEqual(want);
        expect(sameParanoia(rule, p)).toBe(true);
      }
    },
  );

  it("falls back to the managed ruleset's defaults when nothing is overridden", () => {
    expect(intentFrom({ action_parameters: { id: OWASP } }, managed)).toEqual(intent(4, 40, "block"));
    expect(intentFrom({ enabled: false, action_parameters: { id: OWASP } }, managed).enabled).toBe(false);
    // A ruleset-wide action applies to the last rule when it has no override of its own.
    expect(intentFrom({ action_parameters: { id: OWASP, overrides: { action: "log" } } }, managed).action).toBe("log");
  });

  it("sees hand-made paranoia overrides that are not the canonical set", () => {
    const rule = {
      action_parameters: { id: OWASP, overrides: { categories: [{ category: "paranoia-level-3", enabled: false }] } },
    };
    expect(intentFrom(rule, managed).paranoia_level).toBe(2);
    expect(sameParanoia(rule, 2)).toBe(false);
    const reordered = {
      action_parameters: {
        id: OWASP,
        overrides: { categories: [...overridesFor(intent(2, 40), managed).categories].reverse() },
      },
    };
    expect(sameParanoia(reordered, 2)).toBe(true);
  });

  it("selects a paranoia level by disabling every level above it up to 4, whatever the ruleset answer shows", () => {
    expect(paranoiaOverrides(1)).toEqual([
      { category: "paranoia-level-2", enabled: false },
      { category: "paranoia-level-3", enabled: false },
      { category: "paranoia-level-4", enabled: false },
    ]);
    expect(paranoiaOverrides(3)).toEqual([{ category: "paranoia-level-4", enabled: false }]);
    expect(paranoiaOverrides(4)).toEqual([]);
    // The overrides no longer depend on the levels the ruleset read shows.
    const bare: OwaspRuleset = { ...managed, paranoiaLevels: [] };
    expect(overridesFor(intent(2, 40), bare).categories).toEqual(paranoiaOverrides(2));
  });

  it("compares paranoia as the set of disabled levels: other keys and enabled: true overrides do not count", () => {
    const withAction = {
      action_parameters: {
        id: OWASP,
        overrides: {
          categories: [
            { category: "paranoia-level-1", action: "log" },
            { category: "paranoia-level-2", enabled: true, action: "log" },
            { category: "paranoia-level-3", enabled: false, action: "log" },
            { category: "paranoia-level-4", enabled: false },
            { category: "language-php", enabled: false },
          ],
        },
      },
    };
    expect(sameParanoia(withAction, 2)).toBe(true);
    expect(sameParanoia(withAction, 1)).toBe(false);
    expect(sameParanoia(withAction, 3)).toBe(false);
    expect(sameParanoia({ action_parameters: { id: OWASP } }, 4)).toBe(true);
    expect(sameParanoia({ action_parameters: { id: OWASP } }, 3)).toBe(false);
  });

  it(
    "changes only the enabled of paranoia category overrides, keeping every key it does not own and " + "their places",
    () => {
      const liveParams = {
        id: OWASP,
        overrides: {
          categories: [
            { category: "paranoia-level-4", action: "log" },
            { category: "language-php", enabled: false },
            { category: "paranoia-level-2", enabled: false, action: "managed_challenge" },
            { category: "paranoia-level-3", enabled: false },
            { category: "paranoia-level-1", enabled: true },
          ],
        },
      };
      const tuned = tunedParameters(liveParams, intent(2, 40), managed);
      expect(tuned.overrides!.categories).toEqual([
        // Above the level: disabled, its action kept.
        { category: "paranoia-level-4", action: "log", enabled: false },
        { category: "language-php", enabled: false },
        // At or below the level: only `enabled` goes, the action stays.
        { category: "paranoia-level-2", action: "managed_challenge" },
        { category: "paranoia-level-3", enabled: false },
        // Left with only its category: dropped.
      ]);
      // Paranoia 4 disables nothing: overrides left with only their category go, the others lose `enabled`.
      expect(tunedParameters(liveParams, intent(4, 40), managed).overrides!.categories).toEqual([
        { category: "paranoia-level-4", action: "log" },
        { category: "language-php", enabled: false },
        { category: "paranoia-level-2", action: "managed_challenge" },
      ]);
      // A missing level above is added after the live ones.
      expect(
        tunedParameters(
          { id: OWASP, overrides: { categories: [{ category: "paranoia-level-4", enabled: false }] } },
          intent(1, 40),
          managed,
        ).overrides!.categories,
      ).toEqual([
        { category: "paranoia-level-4", enabled: false },
        { category: "paranoia-level-2", enabled: false },
        { category: "paranoia-level-3", enabled: false },
      ]);
      // Nothing left: no categories key at all.
      expect(
        tunedParameters(
          { id: OWASP, overrides: { categories: [{ category: "paranoia-level-4", enabled: false }] } },
          intent(4, 40),
          managed,
        ).overrides,
      ).not.toHaveProperty("categories");
    },
  );

  it("keeps overrides it does not own and the deployed version when tuning", () => {
    const foreignRule = { id: "aaaabbbbccccddddeeeeffff00001111", enabled: false };
    const foreignCategory = { category: "language-php", enabled: false };
    const liveParams = {
      id: OWASP,
      version: "latest",
      overrides: {
        enabled: true,
        categories: [
          foreignCategory,
          { category: "paranoia-level-2", enabled: false },
          { category: "paranoia-level-3", enabled: false },
          { category: "paranoia-level-4", enabled: false },
        ],
        rules: [foreignRule, { id: LAST, score_threshold: 60, action: "block", enabled: true }],
      },
    };
    const before = structuredClone(liveParams);
    const tuned = tunedParameters(liveParams, intent(3, 25, "managed_challenge"), managed);
    expect(tuned).toEqual({
      id: OWASP,
      version: "latest",
      overrides: {
        enabled: true,
        categories: [foreignCategory, { category: "paranoia-level-4", enabled: false }],
        rules: [foreignRule, { id: LAST, score_threshold: 25, action: "managed_challenge", enabled: true }],
      },
    });
    expect(liveParams).toEqual(before);
  });

  it("derives the last rule, its defaults and the paranoia levels from the ruleset read", () => {
    const raw = {
      id: OWASP,
      rules: [
        { id: "r1", action: "score", categories: ["attack-xss", "paranoia-level-1"] },
        { id: "r3", action: "score", categories: ["paranoia-level-3"] },
        { id: "zz", action: "managed_challenge", score_threshold: 33, categories: ["anomaly-score"] },
      ],
    };
    expect(deriveOwasp(raw)).toEqual({
      id: OWASP,
      lastRuleId: "zz",
      defaultThreshold: 33,
      defaultAction: "managed_challenge",
      paranoiaLevels: [1, 3],
    });
    // Without score_threshold and action on the last rule: the documented 40 / block.
    expect(deriveOwasp({ id: OWASP, rules: [{ id: "zz" }] })).toEqual({
      id: OWASP,
      lastRuleId: "zz",
      defaultThreshold: 40,
      defaultAction: "block",
      paranoiaLevels: [],
    });
  });

  it(
    "refuses an OWASP answer without rules, or whose last rule has no id: it never guesses the rule it " + "overrides",
    () => {
      const bad: unknown[] = [
        { id: OWASP, rules: [] },
        { id: OWASP },
        { id: OWASP, rules: "none" },
        { id: OWASP, rules: [{ id: "r1" }, { action: "block", score_threshold: 40 }] },
        { id: OWASP, rules: [{ id: "r1" }, { id: "" }] },
        { id: OWASP, rules: [{ id: "r1" }, null] },
        { rules: [{ id: "zz" }] },
        null,
        [],
        "ruleset",
      ];
      for (const raw of bad) expect(() => deriveOwasp(raw), JSON.stringify(raw)).toThrow(AnswerShapeError);
      expect(() => deriveOwasp({ id: OWASP, rules: [] })).toThrow(`${OWASP} without rules`);
      expect(() => deriveOwasp({ id: OWASP, rules: [{ id: "r1" }, { action: "block" }] })).toThrow(
        `${OWASP} with a last rule that has no id`,
      );
    },
  );

  it("speaks in intent: only what changes, with the threshold's name", () => {
    expect(describeUpdate(intent(1, 60, "block"), intent(2, 40, "managed_challenge"))).toBe(
      "paranoia 1 → 2, threshold 60 → 40 (medium), action block → managed_challenge",
    );
    expect(describeUpdate(intent(2, 40), intent(2, 33))).toBe("threshold 40 → 33");
    expect(describeCreate(intent(2, 40))).toBe("deploy OWASP: paranoia 2, threshold 40 (medium), action block");
    expect([60, 40, 25, 10].map(formatThreshold)).toEqual(["60 (low)", "40 (medium)", "25 (high)", "10"]);
  });
});

describe("waf_managed_rules diff", () => {
  it("creates the entry point with both rules in one POST when it does not exist", () => {
    const z = zone({
      owasp: { enabled: true, paranoia_level: 2, score_threshold: 40, action: "block", expression: "true" },
      cloudflare_managed: { enabled: true, expression: "true" },
    });
    const { changes, errors } = diffWaf(z, live(null));
    expect(errors).toEqual([]);
    expect(changes.map((c) => [c.kind, c.identity, c.operations.length])).toEqual([
      ["create", "cloudflare_managed", 1],
      ["create", "owasp", 0],
    ]);
    const op = changes[0]!.operations[0]!;
    expect(op).toMatchObject({ method: "POST", path: `zones/${Z}/rulesets` });
    const body = op.body as { kind: string; phase: string; rules: Array<Record<string, unknown>> };
    expect(body).toMatchObject({ kind: "zone", phase: "http_request_firewall_managed" });
    expect(body.rules).toEqual([
      {
        action: "execute",
        expression: "true",
        description: "zoneform: Cloudflare Managed Ruleset",
        enabled: true,
        ref: "zoneform-cloudflare-managed",
        action_parameters: { id: CFM },
      },
      {
        action: "execute",
        expression: "true",
        description: "zoneform: OWASP Core Ruleset",
        enabled: true,
        ref: "zoneform-owasp",
        action_parameters: {
          id: OWASP,
          overrides: {
            categories: [
              { category: "paranoia-level-3", enabled: false },
              { category: "paranoia-level-4", enabled: false },
            ],
            rules: [{ id: LAST, score_threshold: 40, action: "block" }],
          },
        },
      },
    ]);
    expect(changes[1]!.summary).toBe("deploy OWASP: paranoia 2, threshold 40 (medium), action block");
    expect(changes[1]!.notes?.[0]).toMatch(/cloudflare_managed/);
  });

  it("adds a rule at the end of an existing entry point, one POST per rule", () => {
    const { changes } = diffWaf(owaspZone(1, 60), live(entrypoint(skipRule)));
    expect(changes).toHaveLength(1);
    expect(changes[0]!.operations).toEqual([
      {
        method: "POST",
        path: `zones/${Z}/rulesets/${EP}/rules`,
        body: expect.objectContaining({ action: "execute", ref: "zoneform-owasp" }),
        finds: {
          path: `zones/${Z}/rulesets/phases/http_request_firewall_managed/entrypoint`,
          list: "rules",
          match: { ref: "zoneform-owasp" },
        },
      },
    ]);
  });

  it(
    "adopts a live OWASP rule and patches it whole, keeping its ref, description, the expression the file " +
      "states and foreign overrides",
    () => {
      const expression = 'http.host ne "internal.example.com"';
      const rule = executeRule(
        "0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a",
        OWASP,
        {
          rules: [{ id: "aaaabbbbccccddddeeeeffff00001111", enabled: false }],
          categories: [
            { category: "paranoia-level-2", enabled: false },
            { category: "paranoia-level-3", enabled: false },
            { category: "paranoia-level-4", enabled: false },
          ],
        },
        { description: "made in the dashboard", ref: "dash-owasp", expression, logging: { enabled: true } },
      );
      const { changes } = diffWaf(
        owaspZone(2, 40, "managed_challenge", true, expression),
        live(entrypoint(skipRule, rule)),
      );
      expect(changes).toHaveLength(1);
      const c = changes[0]!;
      expect(c).toMatchObject({ kind: "update", identity: "owasp", live_id: rule.id });
      expect(c.summary).toBe("paranoia 1 → 2, action block → managed_challenge");
      expect(c.fields).toEqual([
        { field: "paranoia_level", before: 1, after: 2 },
        { field: "action", before: "block", after: "managed_challenge" },
      ]);
      expect(c.operations).toEqual([
        {
          method: "PATCH",
          path: `zones/${Z}/rulesets/${EP}/rules/${rule.id}`,
          body: {
            action: "execute",
            expression: 'http.host ne "internal.example.com"',
            description: "made in the dashboard",
            enabled: true,
            ref: "dash-owasp",
            logging: { enabled: true },
            action_parameters: {
              id: OWASP,
              version: "latest",
              overrides: {
                rules: [
                  { id: "aaaabbbbccccddddeeeeffff00001111", enabled: false },
                  { id: LAST, score_threshold: 40, action: "managed_challenge" },
                ],
                categories: [
                  { category: "paranoia-level-3", enabled: false },
                  { category: "paranoia-level-4", enabled: false },
                ],
              },
            },
          },
        },
      ]);
    },
  );

  it("plans nothing when the live rule already expresses the intent, whatever order its overrides are in", () => {
    const rule = executeRule("0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a", OWASP, {
      categories: [
        { category: "paranoia-level-4", enabled: false },
        { category: "paranoia-level-3", enabled: false },
      ],
      rules: [{ id: LAST, action: "block", score_threshold: 40 }],
    });
    expect(diffWaf(owaspZone(2, 40), live(entrypoint(rule))).changes).toEqual([]);
    // Defaults need no override: 40 / block are what the last rule does already.
    const bare = executeRule("0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a", OWASP);
    expect(diffWaf(owaspZone(4, 40), live(entrypoint(bare))).changes).toEqual([]);
  });

  it("rewrites non-canonical paranoia overrides even when the derived level is the same", () => {
    const rule = executeRule("0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a", OWASP, {
      categories: [{ category: "paranoia-level-3", enabled: false }],
    });
    const { changes } = diffWaf(owaspZone(2, 40), live(entrypoint(rule)));
    expect(changes[0]!.summary).toMatch(/^paranoia 2 \(category overrides rewritten/);
  });

  it("disables by patching enabled: false and keeps the tuning; no change when nothing is deployed", () => {
    const overrides = {
      categories: [{ category: "paranoia-level-4", enabled: false }],
      rules: [{ id: LAST, score_threshold: 25, action: "log" }],
    };
    const rule = executeRule("0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a", OWASP, overrides);
    const { changes } = diffWaf(owaspZone(1, 40, "block", false), live(entrypoint(rule), null));
    expect(changes).toHaveLength(1);
    expect(changes[0]!.summary).toBe("disable OWASP (tuning kept)");
    expect(changes[0]!.operations[0]!.body).toMatchObject({
      enabled: false,
      action_parameters: { id: OWASP, overrides },
    });
    expect(diffWaf(owaspZone(1, 40, "block", false), live(null, null)).changes).toEqual([]);
    expect(
      diffWaf(owaspZone(1, 40, "block", false), live(entrypoint({ ...rule, enabled: false }), null)).changes,
    ).toEqual([]);
  });

  it(
    "stops the zone when another enabled execute rule deploys the ruleset (the file's settings could not be " +
      "met); with the others disabled, warns and manages the first",
    () => {
      const a = executeRule("0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a", OWASP);
      const b = executeRule("0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b", OWASP);
      const both = diffWaf(owaspZone(1, 40), live(entrypoint(a, b)));
      expect(both.errors).toEqual([
        `2 execute rules deploy the OWASP Core Ruleset (${a.id}, ${b.id}); zoneform manages one, and the other ` +
          `enabled one(s) (${b.id}) keep it running with their own settings, so the file's could not be met. ` +
          "Delete or disable the others in the dashboard or API (or merge them into one), then plan again; " +
          "nothing in this zone is changed",
      ]);
      const off = executeRule(b.id, OWASP, undefined, { enabled: false });
      const { changes, warnings, errors } = diffWaf(owaspZone(1, 40), live(entrypoint(a, off)));
      expect(errors).toEqual([]);
      expect(warnings?.[0]).toMatch(/2 execute rules .* leaving the others \(disabled\) as they are/);
      expect(changes.map((c) => c.live_id)).toEqual([a.id]);
    },
  );

  it("sets and removes the Cloudflare Managed ruleset-wide action", () => {
    const rule = executeRule("0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c", CFM);
    const set = diffWaf(cfmZone(true, "log"), live(entrypoint(rule), null)).changes[0]!;
    expect(set.summary).toBe("action each rule's own → log");
    expect(set.fields).toEqual([{ field: "action", before: undefined, after: "log" }]);
    expect(set.operations[0]!.body).toMatchObject({
      action_parameters: { id: CFM, version: "latest", overrides: { action: "log" } },
    });
    const withAction = executeRule(rule.id, CFM, { action: "log" });
    const unset = diffWaf(cfmZone(true), live(entrypoint(withAction), null)).changes[0]!;
    expect(unset.summary).toBe("action log → each rule's own");
    expect((unset.operations[0]!.body as { action_parameters: Record<string, unknown> }).action_parameters).toEqual({
      id: CFM,
      version: "latest",
    });
  });

  it("reports an error, and plans nothing, when the OWASP ruleset was not read", () => {
    const { changes, errors } = diffWaf(owaspZone(1, 40), live(null, null));
    expect(changes).toEqual([]);
    expect(errors).toEqual([
      `the OWASP Core Ruleset (${OWASP}) was not read; cannot find its last rule to set the threshold and action`,
    ]);
  });
});
