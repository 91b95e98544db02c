// The managed WAF kind against what the real API answers: managed rulesets read by their well-known id
// (account path when the account is known), paranoia overrides never written for categories the answer
// does not show, execute rule expressions, and the recorded entry point whose Cloudflare Managed rule
// lost its id in sanitising.
import { describe, expect, it } from "vitest";
import type { CloudflareClient } from "../../../src/cloudflare/types.js";
import { createReadContext } from "../../../src/engine/read.js";
import { AnswerShapeError, ApiError, NetworkError } from "../../../src/errors.js";
import type { DesiredState, DesiredZone } from "../../../src/sections/index.js";
import { readEntrypoint, type Entrypoint, type LiveRule } from "../../../src/sections/shared/entrypoint.js";
import {
  CLOUDFLARE_MANAGED_RULESET_ID,
  managedRulesetPath,
  missingParanoiaLevels,
  OWASP_RULESET_ID,
  readManagedRuleset,
  readOwaspRuleset,
  type OwaspRuleset,
} from "../../../src/sections/waf/managed-ruleset.js";
import { diffWaf, WAF_PHASE, wafManagedRules, type LiveWaf } from "../../../src/sections/waf/waf-managed.js";
import { recordedResult } from "../recorded.js";
import { NO_SECRETS } from "../../../src/secrets/index.js";

const Z = "0123456789abcdef0123456789abcdef";
const ACCOUNT = "f037e56e89293a057740de681ac9abbe";
const OWASP = OWASP_RULESET_ID;
const CFM = CLOUDFLARE_MANAGED_RULESET_ID;
const LAST = "6179ae15870a4bb7b2d480d4843b323c";
const EP = "e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0";
const RULE = "0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a";

const state = (account_id?: string): DesiredState => ({
  version: 1,
  safety: { max_deletes: 5 },
  zones: [],
  secrets: NO_SECRETS,
  files: [],
  ...(account_id ? { account_id } : {}),
});

/** The OWASP ruleset as Cloudflare's docs show it: rules without expression, paranoia categories on each. */
const owaspAnswer = (levels = [1, 2, 3, 4]) => ({
  id: OWASP,
  name: "Cloudflare OWASP Core Ruleset",
  kind: "managed",
  phase: "http_request_firewall_managed",
  rules: [
    ...levels.map((l) => ({ id: `r${l}`, action: "score", categories: ["attack-xss", `paranoia-level-${l}`] })),
    {
      id: LAST,
      action: "block",
      score_threshold: 40,
      categories: ["anomaly-score"],
      description: "949110: Inbound Anomaly Score Exceeded",
    },
  ],
});

/** A client whose `request` answers by path from `answers` (an Error is thrown), recording every call. */
function fakeClient(answers: Record<string, unknown>) {
  const calls: string[] = [];
  const client = {
    async request(method: string, path: string) {
      calls.push(`${method} ${path}`);
      if (!(path in answers)) throw new Error(`unexpected ${method} ${path}`);
      const a = answers[path];
      if (a instanceof Error) throw a;
      return structuredClone(a);
    },
  } as unknown as CloudflareClient;
  return { client, calls };
}

const apiError = (status: number, path: string) =>
  new ApiError(`HTTP ${status}`, {
    status,
    method: "GET",
    path,
    errors: [{ code: 10000, message: "Authentication error" }],
    retryable: status >= 500 || status === 429,
  });

const managed = (paranoiaLevels = [1, 2, 3, 4]): OwaspRuleset => ({
  id: OWASP,
  lastRuleId: LAST,
  defaultThreshold: 40,
  defaultAction: "block",
  paranoiaLevels,
});
const executeRule = (
  id: string | undefined,
  rulesetId: string,
  overrides?: Record<string, unknown>,
  extra: Partial<LiveRule> = {},
): LiveRule =>
  ({
    ...(id !== undefined ? { id } : {}),
    version: "3",
    action: "execute",
    expression: "true",
    description: "",
    enabled: true,
    ref: id ?? "r",
    action_parameters: { id: rulesetId, version: "latest", ...(overrides ? { overrides } : {}) },
    ...extra,
  }) as LiveRule;
const entrypoint = (...rules: LiveRule[]): Entrypoint => ({
  id: EP,
  name: "default",
  phase: WAF_PHASE,
  version: "7",
  rules,
});
const live = (ep: Entrypoint | null, owaspRuleset: OwaspRuleset | null = managed()): LiveWaf => ({
  entrypoint: ep,
  owaspId: OWASP,
  cloudflareManagedId: CFM,
  owaspRuleset,
});
const zone = (waf: DesiredZone["waf"]): DesiredZone => ({ zone_id: Z, name: "example.com", waf });
const owaspZone = (paranoia_level: number, score_threshold = 40, expression = "true", enabled = true) =>
  zone({ owasp: { enabled, paranoia_level, score_threshold, action: "block", expression } });
const cfmZone = (enabled: boolean, expression = "true", action?: "log") =>
  zone({ cloudflare_managed: { enabled, expression, ...(action !== undefined ? { action } : {}) } });
const paranoia = (...levels: number[]) => levels.map((l) => ({ category: `paranoia-level-${l}`, enabled: false }));

describe("reading the managed rulesets by their well-known ids", () => {
  it("reads through the account when it is known, else through the zone", () => {
    expect(managedRulesetPath(ACCOUNT, Z, OWASP)).toBe(`accounts/${ACCOUNT}/rulesets/${OWASP}`);
    expect(managedRulesetPath(undefined, Z, OWASP)).toBe(`zones/${Z}/rulesets/${OWASP}`);
  });

  it("GETs the OWASP ruleset at accounts/{account_id}/rulesets/{id} once per run, with no ruleset list", async () => {
    const { client, calls } = fakeClient({ [`accounts/${ACCOUNT}/rulesets/${OWASP}`]: owaspAnswer() });
    const ctx = createReadContext(client, state(ACCOUNT));
    const first = await readOwaspRuleset(ctx, Z);
    const second = await readOwaspRuleset(ctx, "fedcba9876543210fedcba9876543210");
    expect(first).toEqual({
      id: OWASP,
      lastRuleId: LAST,
      defaultThreshold: 40,
      defaultAction: "block",
      paranoiaLevels: [1, 2, 3, 4],
    });
    expect(second).toEqual(first);
    expect(calls).toEqual([`GET accounts/${ACCOUNT}/rulesets/${OWASP}`]);
  });

  it("GETs it at zones/{zone}/rulesets/{id} when the file names no account", async () => {
    const { client, calls } = fakeClient({ [`zones/${Z}/rulesets/${OWASP}`]: owaspAnswer([1, 2]) });
    expect((await readOwaspRuleset(createReadContext(client, state()), Z)).paranoiaLevels).toEqual([1, 2]);
    expect(calls).toEqual([`GET zones/${Z}/rulesets/${OWASP}`]);
  });

  it("turns a 4xx on the zone path into an error that says to set account_id (or CLOUDFLARE_ACCOUNT_ID)", async () => {
    for (const status of [400, 403, 404]) {
      const path = `zones/${Z}/rulesets/${OWASP}`;
      const { client } = fakeClient({ [path]: apiError(status, path) });
      const err = await readOwaspRuleset(createReadContext(client, state()), Z).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ApiError);
      expect((err as ApiError).status).toBe(status);
      expect((err as ApiError).info.path).toBe(path);
      expect((err as ApiError).message).toBe(
        `reading the Cloudflare OWASP Core Ruleset (${OWASP}) was refused (HTTP ${status}: HTTP ${status}); ` +
          `managed rulesets are documented under the account: ` +
          `set account_id in the file (or CLOUDFLARE_ACCOUNT_ID) so that zoneform reads ` +
          `accounts/<account_id>/rulesets/${OWASP}`,
      );
    }
  });

  it("says to check the account and the token when the account path is refused", async () => {
    const path = `accounts/${ACCOUNT}/rulesets/${CFM}`;
    const { client } = fakeClient({ [path]: apiError(403, path) });
    const err = await readManagedRuleset(
      createReadContext(client, state(ACCOUNT)),
      Z,
      CFM,
      "Cloudflare Managed Ruleset",
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).message).toBe(
      `reading the Cloudflare Managed Ruleset (${CFM}) was refused (HTTP 403: HTTP 403); account ${ACCOUNT} ` +
        `cannot read it: ` +
        'check that the account id is right and that the token has "Account Rulesets: Read"',
    );
  });

  it("passes 5xx, 429 and network failures through as they are", async () => {
    const path = `zones/${Z}/rulesets/${OWASP}`;
    const failures = [
      apiError(500, path),
      apiError(429, path),
      new NetworkError("connection reset", { method: "GET", path, ambiguous: false }),
    ];
    for (const failure of failures) {
      const { client } = fakeClient({ [path]: failure });
      await expect(readOwaspRuleset(createReadContext(client, state()), Z)).rejects.toBe(failure);
    }
  });

  it("refuses an OWASP answer without rules as an AnswerShapeError", async () => {
    const path = `zones/${Z}/rulesets/${OWASP}`;
    const { client } = fakeClient({ [path]: { id: OWASP, name: "Cloudflare OWASP Core Ruleset", kind: "managed" } });
    await expect(readOwaspRuleset(createReadContext(client, state()), Z)).rejects.toThrow(AnswerShapeError);
  });

  it("lists the levels a paranoia level disables that the answer shows no category of", () => {
    expect(missingParanoiaLevels(1, managed())).toEqual([]);
    expect(missingParanoiaLevels(1, managed([1, 2]))).toEqual([3, 4]);
    expect(missingParanoiaLevels(2, managed([]))).toEqual([3, 4]);
    expect(missingParanoiaLevels(3, managed([1, 2, 3]))).toEqual([4]);
    expect(missingParanoiaLevels(4, managed([]))).toEqual([]);
  });
});

describe("waf_managed_rules read", () => {
  const epPath = `zones/${Z}/rulesets/phases/${WAF_PHASE}/entrypoint`;

  it(
    "reads the entry point and the OWASP ruleset by id; the Cloudflare Managed ruleset only when it would " +
      "be deployed",
    async () => {
      const { client, calls } = fakeClient({
        [epPath]: { id: EP, name: "zone", phase: WAF_PHASE, version: "1", rules: [] },
        [`accounts/${ACCOUNT}/rulesets/${OWASP}`]: owaspAnswer(),
        [`accounts/${ACCOUNT}/rulesets/${CFM}`]: { id: CFM, name: "Cloudflare Managed Ruleset", rules: [] },
      });
      const z = zone({
        owasp: { enabled: true, paranoia_level: 1, score_threshold: 40, action: "block", expression: "true" },
        cloudflare_managed: { enabled: true, expression: "true" },
      });
      const { live: got } = await wafManagedRules.read(createReadContext(client, state(ACCOUNT)), z);
      expect(got).toEqual({
        entrypoint: { id: EP, name: "zone", phase: WAF_PHASE, version: "1", rules: [] },
        owaspId: OWASP,
        cloudflareManagedId: CFM,
        owaspRuleset: {
          id: OWASP,
          lastRuleId: LAST,
          defaultThreshold: 40,
          defaultAction: "block",
          paranoiaLevels: [1, 2, 3, 4],
        },
      });
      expect([...calls].sort()).toEqual(
        [
          `GET ${epPath}`,
          `GET accounts/${ACCOUNT}/rulesets/${CFM}`,
          `GET accounts/${ACCOUNT}/rulesets/${OWASP}`,
        ].sort(),
      );
    },
  );

  it("reads no managed ruleset when OWASP is disabled and Cloudflare Managed is off or already deployed", async () => {
    const deployed = executeRule(RULE, CFM);
    for (const cfm of [
      { enabled: false, expression: "true" },
      { enabled: true, expression: "true" },
    ]) {
      const { client, calls } = fakeClient({
        [epPath]: { id: EP, name: "zone", phase: WAF_PHASE, version: "1", rules: [deployed] },
      });
      const z = zone({
        owasp: { enabled: false, paranoia_level: 1, score_threshold: 40, action: "block", expression: "true" },
        cloudflare_managed: cfm,
      });
      const { live: got } = await wafManagedRules.read(createReadContext(client, state()), z);
      expect(got.owaspRuleset).toBeNull();
      expect(calls).toEqual([`GET ${epPath}`]);
    }
  });
});

describe("paranoia categories the OWASP answer does not show", () => {
  const missingError = (level: number, missing: number[]) =>
    `the OWASP Core Ruleset as the API answered it shows no rule in category ` +
    `${missing.map((l) => `paranoia-level-${l}`).join(", ")}, ` +
    `which paranoia_level ${level} disables; zoneform will not write paranoia overrides it cannot confirm, ` +
    `and nothing was changed ` +
    "(set account_id so that the ruleset is read where its rules' categories are documented)";

  it("refuses to deploy OWASP with paranoia overrides it cannot confirm", () => {
    const { changes, errors } = diffWaf(owaspZone(2), live(entrypoint(), managed([])));
    expect(changes).toEqual([]);
    expect(errors).toEqual([missingError(2, [3, 4])]);
    expect(diffWaf(owaspZone(1), live(null, managed([1, 2, 3]))).errors).toEqual([missingError(1, [4])]);
  });

  it("never rewrites the live paranoia-level-3/4 disables: an error and no change", () => {
    // Live: paranoia 1 (levels 2, 3 and 4 disabled). The file wants 2; the answer shows levels 1 and 2 only.
    const rule = executeRule(RULE, OWASP, {
      categories: paranoia(2, 3, 4),
      rules: [{ id: LAST, score_threshold: 40, action: "block" }],
    });
    const { changes, errors } = diffWaf(owaspZone(2, 25), live(entrypoint(rule), managed([1, 2])));
    expect(changes).toEqual([]);
    expect(errors).toEqual([missingError(2, [3, 4])]);
    // A hand-made set (only 4 disabled) would be rewritten for paranoia 2: refused too.
    const handMade = executeRule(RULE, OWASP, { categories: paranoia(4) });
    expect(diffWaf(owaspZone(2), live(entrypoint(handMade), managed([1, 2, 4]))).errors).toEqual([
      missingError(2, [3]),
    ]);
  });

  it("tunes threshold and action when the paranoia overrides already match, whatever the answer shows", () => {
    const rule = executeRule(RULE, OWASP, {
      categories: paranoia(3, 4),
      rules: [{ id: LAST, score_threshold: 40, action: "block" }],
    });
    const { changes, errors } = diffWaf(owaspZone(2, 25), live(entrypoint(rule), managed([])));
    expect(errors).toEqual([]);
    expect(changes).toHaveLength(1);
    expect(changes[0]!.summary).toBe("threshold 40 → 25 (high)");
    expect(changes[0]!.fields).toEqual([{ field: "score_threshold", before: 40, after: 25 }]);
    const body = changes[0]!.operations[0]!.body as { action_parameters: { overrides: Record<string, unknown> } };
    expect(body.action_parameters.overrides).toEqual({
      categories: paranoia(3, 4),
      rules: [{ id: LAST, score_threshold: 25, action: "block" }],
    });
    // Nothing to change: nothing planned, no error.
    expect(diffWaf(owaspZone(2, 40), live(entrypoint(rule), managed([])))).toEqual({
      changes: [],
      errors: [],
      warnings: [],
    });
  });

  it("needs no category for paranoia 4, which disables nothing", () => {
    const { changes, errors } = diffWaf(owaspZone(4), live(entrypoint(), managed([])));
    expect(errors).toEqual([]);
    expect(changes.map((c) => c.kind)).toEqual(["create"]);
    expect((changes[0]!.operations[0]!.body as { action_parameters: unknown }).action_parameters).toEqual({
      id: OWASP,
      overrides: { rules: [{ id: LAST, score_threshold: 40, action: "block" }] },
    });
  });
});

describe("execute rule expressions", () => {
  const narrow = 'http.host ne "internal.example.com"';

  it("updates an OWASP rule whose expression differs, showing it as text and sending it", () => {
    const rule = executeRule(
      RULE,
      OWASP,
      { categories: paranoia(2, 3, 4), rules: [{ id: LAST, score_threshold: 40, action: "block" }] },
      { expression: narrow },
    );
    const { changes, errors } = diffWaf(owaspZone(1), live(entrypoint(rule)));
    expect(errors).toEqual([]);
    expect(changes).toHaveLength(1);
    const c = changes[0]!;
    expect(c.summary).toBe("expression changed");
    expect(c.fields).toEqual([{ field: "expression", before: narrow, after: "true", text: true }]);
    expect(c.before).toEqual({
      enabled: true,
      paranoia_level: 1,
      score_threshold: 40,
      action: "block",
      expression: narrow,
    });
    expect(c.after).toEqual({
      enabled: true,
      paranoia_level: 1,
      score_threshold: 40,
      action: "block",
      expression: "true",
    });
    expect(c.operations).toEqual([
      {
        method: "PATCH",
        path: `zones/${Z}/rulesets/${EP}/rules/${RULE}`,
        body: {
          action: "execute",
          expression: "true",
          description: "",
          enabled: true,
          ref: RULE,
          action_parameters: {
            id: OWASP,
            version: "latest",
            overrides: { categories: paranoia(2, 3, 4), rules: [{ id: LAST, score_threshold: 40, action: "block" }] },
          },
        },
      },
    ]);
    // The other way round, with a tuning change too.
    const back = diffWaf(owaspZone(1, 60, narrow), live(entrypoint({ ...rule, expression: "true" }))).changes[0]!;
    expect(back.summary).toBe("threshold 40 → 60 (low), expression changed");
    expect(back.fields).toEqual([
      { field: "score_threshold", before: 40, after: 60 },
      { field: "expression", before: "true", after: narrow, text: true },
    ]);
    expect(back.operations[0]!.body).toMatchObject({ expression: narrow });
  });

  it("deploys OWASP with the file's expression", () => {
    const { changes } = diffWaf(owaspZone(4, 40, narrow), live(entrypoint()));
    expect(changes[0]!.fields).toContainEqual({ field: "expression", after: narrow });
    expect(changes[0]!.after).toMatchObject({ expression: narrow });
    expect(changes[0]!.operations[0]!.body).toMatchObject({ expression: narrow });
    expect(diffWaf(owaspZone(4), live(entrypoint())).changes[0]!.fields.map((f) => f.field)).not.toContain(
      "expression",
    );
  });

  it("updates a Cloudflare Managed rule whose expression differs", () => {
    const rule = executeRule(RULE, CFM, undefined, { expression: narrow });
    const { changes, errors } = diffWaf(cfmZone(true), live(entrypoint(rule), null));
    expect(errors).toEqual([]);
    const c = changes[0]!;
    expect(c.summary).toBe(`expression ${JSON.stringify(narrow)} → "true"`);
    expect(c.fields).toEqual([{ field: "expression", before: narrow, after: "true", text: true }]);
    expect(c.before).toEqual({ enabled: true, action: undefined, expression: narrow });
    expect(c.after).toEqual({ enabled: true, action: undefined, expression: "true" });
    expect(c.operations[0]!.body).toEqual({
      action: "execute",
      expression: "true",
      description: "",
      enabled: true,
      ref: RULE,
      action_parameters: { id: CFM, version: "latest" },
    });
    expect(c.notes).toBeUndefined();
    expect(diffWaf(cfmZone(true, narrow), live(entrypoint(rule), null)).changes).toEqual([]);
  });

  it("deploys Cloudflare Managed with the file's expression", () => {
    const { changes } = diffWaf(cfmZone(true, narrow), live(entrypoint(), null));
    expect(changes[0]!.after).toEqual({ enabled: true, expression: narrow });
    expect(changes[0]!.fields).toEqual([
      { field: "enabled", after: true },
      { field: "expression", after: narrow },
    ]);
    expect(changes[0]!.operations[0]!.body).toMatchObject({ expression: narrow, action_parameters: { id: CFM } });
  });

  it("manages only enabled of a Cloudflare Managed rule the file disables: its expression and action stay", () => {
    const rule = executeRule(RULE, CFM, { action: "log" }, { expression: narrow });
    const { changes } = diffWaf(cfmZone(false), live(entrypoint(rule), null));
    expect(changes).toHaveLength(1);
    const c = changes[0]!;
    expect(c.summary).toBe("disable Cloudflare Managed Ruleset (rule kept)");
    expect(c.fields).toEqual([{ field: "enabled", before: true, after: false }]);
    expect(c.operations[0]!.body).toEqual({
      action: "execute",
      expression: narrow,
      description: "",
      enabled: false,
      ref: RULE,
      action_parameters: { id: CFM, version: "latest", overrides: { action: "log" } },
    });
    // Already disabled: another expression or action is no reason to write.
    expect(diffWaf(cfmZone(false), live(entrypoint({ ...rule, enabled: false }), null))).toEqual({
      changes: [],
      errors: [],
      warnings: [],
    });
  });
});

describe("the recorded entry point (cft_managed_entrypoint)", () => {
  const epPath = `zones/${Z}/rulesets/phases/${WAF_PHASE}/entrypoint`;
  const recordedEntrypoint = async (edit?: (rules: LiveRule[]) => void): Promise<Entrypoint> => {
    const raw = recordedResult<{ id: string; rules: LiveRule[] }>("cft_managed_entrypoint");
    edit?.(raw.rules);
    const { client } = fakeClient({ [epPath]: raw });
    const ep = await readEntrypoint(createReadContext(client, state()), Z, WAF_PHASE);
    return ep!;
  };
  const CFM_EXPRESSION = '(http.cookie eq "jb_testing=true")';

  it("reads it, keeping the execute rule that has no id", async () => {
    const ep = await recordedEntrypoint();
    expect(ep).toMatchObject({ id: "4c971a697dd249939460f4520dcd7184", name: "zone", phase: WAF_PHASE, version: "2" });
    expect(ep.rules.map((r) => [r.action, r.id])).toEqual([
      ["execute", undefined],
      ["skip", "d189267a8dc943769d0000c3dcb400eb"],
    ]);
  });

  it("plans nothing for a file that states what it holds", async () => {
    const ep = await recordedEntrypoint();
    expect(diffWaf(cfmZone(false, CFM_EXPRESSION), live(ep, null))).toEqual({ changes: [], errors: [], warnings: [] });
    // Disabled, only `enabled` is managed: the file's expression does not matter.
    expect(diffWaf(cfmZone(false), live(ep, null))).toEqual({ changes: [], errors: [], warnings: [] });
  });

  it("is an error, and no change, when the rule without an id would have to be written", async () => {
    const ep = await recordedEntrypoint();
    for (const z of [cfmZone(true, CFM_EXPRESSION), cfmZone(true)]) {
      expect(diffWaf(z, live(ep, null))).toEqual({
        changes: [],
        errors: [
          "the API answered the Cloudflare Managed Ruleset execute rule without an id, expected one to " +
            "write it; nothing was changed",
        ],
        warnings: [],
      });
    }
  });

  it("adds the OWASP rule after the skip rule that references it, leaving both rules alone", async () => {
    const ep = await recordedEntrypoint();
    const z = zone({
      owasp: { enabled: true, paranoia_level: 2, score_threshold: 40, action: "block", expression: "true" },
      cloudflare_managed: { enabled: false, expression: "true" },
    });
    const { changes, errors } = diffWaf(z, live(ep));
    expect(errors).toEqual([]);
    expect(changes.map((c) => [c.kind, c.identity])).toEqual([["create", "owasp"]]);
    expect(changes[0]!.operations).toEqual([
      {
        method: "POST",
        path: `zones/${Z}/rulesets/4c971a697dd249939460f4520dcd7184/rules`,
        body: expect.objectContaining({ action: "execute", ref: "zoneform-owasp" }),
        finds: {
          path: `zones/${Z}/rulesets/phases/http_request_firewall_managed/entrypoint`,
          list: "rules",
          match: { ref: "zoneform-owasp" },
        },
      },
    ]);
  });

  it("keeps the 15 rule overrides of the dashboard's Cloudflare Managed rule when enabling it, and says so", async () => {
    const ep = await recordedEntrypoint((rules) => {
      rules[0]!.id = "c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0";
    });
    const recordedOverrides = recordedResult<{ rules: LiveRule[] }>("cft_managed_entrypoint").rules[0]!
      .action_parameters!.overrides as { rules: unknown[] };
    expect(recordedOverrides.rules).toHaveLength(15);
    const { changes, errors } = diffWaf(cfmZone(true, CFM_EXPRESSION), live(ep, null));
    expect(errors).toEqual([]);
    const c = changes[0]!;
    expect(c.summary).toBe("enable Cloudflare Managed Ruleset");
    expect(c.fields).toEqual([{ field: "enabled", before: false, after: true }]);
    expect(c.notes).toEqual(["the rule's 15 rule override(s), made outside zoneform, are kept as they are"]);
    expect(c.operations).toEqual([
      {
        method: "PATCH",
        path: `zones/${Z}/rulesets/4c971a697dd249939460f4520dcd7184/rules/c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0`,
        body: {
          action: "execute",
          expression: CFM_EXPRESSION,
          description: "zone",
          enabled: true,
          action_parameters: { id: CFM, version: "latest", overrides: recordedOverrides },
        },
      },
    ]);
  });

  it(
    "treats an OWASP execute rule without an id the same way: fine while nothing changes, an error when a " +
      "write is needed",
    () => {
      const rule = executeRule(undefined, OWASP, {
        categories: paranoia(2, 3, 4),
        rules: [{ id: LAST, score_threshold: 40, action: "block" }],
      });
      expect(diffWaf(owaspZone(1), live(entrypoint(rule)))).toEqual({ changes: [], errors: [], warnings: [] });
      const idError =
        "the API answered the OWASP Core Ruleset execute rule without an id, expected one to write it; " +
        "nothing was changed";
      expect(diffWaf(owaspZone(1, 25), live(entrypoint(rule)))).toEqual({
        changes: [],
        errors: [idError],
        warnings: [],
      });
      expect(diffWaf(owaspZone(1, 40, "true", false), live(entrypoint(rule), null))).toEqual({
        changes: [],
        errors: [idError],
        warnings: [],
      });
    },
  );
});
