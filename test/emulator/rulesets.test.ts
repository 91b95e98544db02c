// The emulator's rulesets API over real HTTP: managed rulesets, zone rulesets and entry points,
// single-rule writes, versions, validation, dry runs and the previous-WAF guard.
import { describe, expect, it } from "vitest";
import { useEmulator, ZONE, type TestEmulator } from "../helpers/cli.js";

const ACCOUNT = "0123456789abcdef0123456789abcdef";
const OWASP = "4814384a9e5d4991b9815dcfc25d2f1f";
const CF_MANAGED = "efb7b8c949ac4650a09736fc376e9aee";
const THRESHOLD_RULE = "6179ae15870a4bb7b2d480d4843b323c";
const MANAGED_PHASE = "http_request_firewall_managed";
const Z = `zones/${ZONE.com}/rulesets`;
const ENTRY = `${Z}/phases/${MANAGED_PHASE}/entrypoint`;

const getEmu = useEmulator();

const rule = (ref: string, extra: Record<string, unknown> = {}) => ({
  action: "log",
  expression: `http.host eq "${ref}.example.com"`,
  ref,
  ...extra,
});
const owaspExecute = (overrides?: unknown) => ({
  action: "execute",
  expression: "true",
  action_parameters: { id: OWASP, ...(overrides ? { overrides } : {}) },
});

async function createCustom(emu: TestEmulator, rules: unknown[] = [rule("a"), rule("b"), rule("c")]) {
  const res = await emu.call("POST", Z, { name: "custom", kind: "zone", phase: "http_request_firewall_custom", rules });
  expect(res.status).toBe(200);
  return res.body.result as { id: string; version: string; rules: Array<Record<string, any>> };
}

describe("managed rulesets", () => {
  it("lists the account's managed rulesets with cursor paging and without rules", async () => {
    const emu = getEmu();
    const first = await emu.call("GET", `accounts/${ACCOUNT}/rulesets?per_page=1`);
    expect(first.status).toBe(200);
    expect(first.body.result).toHaveLength(1);
    expect(first.body.result[0].rules).toBeUndefined();
    expect(first.body.result_info).toMatchObject({ per_page: 1, count: 1 });
    const cursor = first.body.result_info.cursor as string;
    expect(cursor).not.toBe("");
    const second = await emu.call("GET", `accounts/${ACCOUNT}/rulesets?per_page=1&cursor=${cursor}`);
    expect(second.body.result_info.cursor).toBe("");
    const ids = [first.body.result[0].id, second.body.result[0].id].sort();
    expect(ids).toEqual([OWASP, CF_MANAGED].sort());
  });

  it("rejects a bad per_page, a foreign cursor and another account", async () => {
    const emu = getEmu();
    expect((await emu.call("GET", `accounts/${ACCOUNT}/rulesets?per_page=0`)).status).toBe(400);
    expect((await emu.call("GET", `accounts/${ACCOUNT}/rulesets?cursor=bogus`)).status).toBe(400);
    const other = await emu.call("GET", `accounts/${"f".repeat(32)}/rulesets`);
    expect(other.status).toBe(403);
  });

  it("ships an OWASP ruleset tagged by paranoia level whose last rule is 949110 with threshold 40", async () => {
    const res = await getEmu().call("GET", `accounts/${ACCOUNT}/rulesets/${OWASP}`);
    expect(res.status).toBe(200);
    const rules = res.body.result.rules as Array<Record<string, any>>;
    expect(rules.length).toBeGreaterThanOrEqual(30);
    const last = rules[rules.length - 1]!;
    expect(last).toMatchObject({
      id: THRESHOLD_RULE,
      action: "block",
      score_threshold: 40,
      description: "949110: Inbound Anomaly Score Exceeded",
    });
    const tags = new Set(rules.flatMap((r) => r.categories as string[]));
    for (const n of [1, 2, 3, 4]) expect(tags.has(`paranoia-level-${n}`)).toBe(true);
    expect(rules.filter((r) => r.action === "score").length).toBe(rules.length - 1);
    for (const r of rules) expect(r.id).toMatch(/^[0-9a-f]{32}$/);
  });

  it("answers 404 with code 10003 for an unknown ruleset", async () => {
    const res = await getEmu().call("GET", `accounts/${ACCOUNT}/rulesets/${"a".repeat(32)}`);
    expect(res.status).toBe(404);
    expect(res.body.errors[0].code).toBe(10003);
  });

  it("shows managed rulesets in a zone's list and by id, but refuses to modify them", async () => {
    const emu = getEmu();
    await createCustom(emu);
    const list = await emu.call("GET", Z);
    const kinds = (list.body.result as Array<{ kind: string; rules?: unknown }>).map((r) => r.kind).sort();
    expect(kinds).toEqual(["managed", "managed", "zone"]);
    expect(list.body.result.every((r: { rules?: unknown }) => r.rules === undefined)).toBe(true);
    const one = await emu.call("GET", `${Z}/${CF_MANAGED}`);
    expect(one.body.result.rules.length).toBeGreaterThanOrEqual(20);
    const put = await emu.call("PUT", `${Z}/${CF_MANAGED}`, { rules: [] });
    expect(put.status).toBe(403);
  });
});

describe("zone rulesets and entry points", () => {
  it("creates a ruleset at version 1 with new ids, refs defaulting to the id and enabled by default", async () => {
    const created = await createCustom(getEmu(), [
      { action: "block", expression: "true" },
      rule("mine", { enabled: false }),
    ]);
    expect(created.version).toBe("1");
    expect(created.id).toMatch(/^[0-9a-f]{32}$/);
    const [a, b] = created.rules;
    expect(a).toMatchObject({ version: "1", enabled: true, ref: a!.id, description: "" });
    expect(b).toMatchObject({ ref: "mine", enabled: false });
  });

  it("refuses a second zone ruleset for a phase with code 20217", async () => {
    const emu = getEmu();
    await createCustom(emu);
    const res = await emu.call("POST", Z, { name: "again", kind: "zone", phase: "http_request_firewall_custom" });
    expect(res.status).toBe(400);
    expect(res.body.errors[0]).toMatchObject({
      code: 20217,
      message:
        "'zone' is not a valid value for kind because exceeded maximum number of zone rulesets for phase " +
        "http_request_firewall_custom",
    });
  });

  it("names every missing or wrong field of a create body", async () => {
    const res = await getEmu().call("POST", Z, { kind: "root", phase: "nope" });
    expect(res.status).toBe(400);
    const pointers = res.body.errors.map((e: { source: { pointer: string } }) => e.source.pointer).sort();
    expect(pointers).toEqual(["/kind", "/name", "/phase"]);
  });

  it("answers 404 code 10003 for a missing entry point and creates it on PUT", async () => {
    const emu = getEmu();
    const missing = await emu.call("GET", ENTRY);
    expect(missing.status).toBe(404);
    expect(missing.body.errors[0]).toMatchObject({
      code: 10003,
      message: `could not find entrypoint ruleset in the ${MANAGED_PHASE} phase`,
    });
    const put = await emu.call("PUT", ENTRY, { name: "zone entry", rules: [owaspExecute()] });
    expect(put.status).toBe(200);
    expect(put.body.result).toMatchObject({ kind: "zone", phase: MANAGED_PHASE, version: "1", name: "zone entry" });
    const got = await emu.call("GET", ENTRY);
    expect(got.body.result.id).toBe(put.body.result.id);
  });

  it("replaces the rule list on PUT, keeps unchanged rules' versions and bumps the ruleset version", async () => {
    const emu = getEmu();
    const created = await createCustom(emu);
    const [a, b] = created.rules;
    const res = await emu.call("PUT", `${Z}/${created.id}`, {
      rules: [{ ...rule("a"), id: a!.id }, { ...rule("b"), id: b!.id, description: "changed" }, rule("d")],
    });
    expect(res.status).toBe(200);
    const rules = res.body.result.rules;
    expect(res.body.result.version).toBe("2");
    expect(rules.map((r: { ref: string }) => r.ref)).toEqual(["a", "b", "d"]);
    expect(rules[0]).toEqual(a);
    expect(rules[1]).toMatchObject({ id: b!.id, version: "2", description: "changed" });
    expect(rules[2].version).toBe("1");
  });

  it("keeps name, kind and phase immutable and rejects unknown rule ids on PUT", async () => {
    const emu = getEmu();
    const created = await createCustom(emu);
    const renamed = await emu.call("PUT", `${Z}/${created.id}`, { name: "other", rules: [] });
    expect(renamed.status).toBe(400);
    expect(renamed.body.errors[0].source.pointer).toBe("/name");
    const ghost = await emu.call("PUT", `${Z}/${created.id}`, { rules: [{ ...rule("x"), id: "b".repeat(32) }] });
    expect(ghost.status).toBe(400);
    expect(ghost.body.errors[0].source.pointer).toBe("/rules/0/id");
  });

  it("deletes a ruleset with 204", async () => {
    const emu = getEmu();
    const created = await createCustom(emu);
    const del = await emu.call("DELETE", `${Z}/${created.id}`);
    expect(del.status).toBe(204);
    expect(del.body).toBeNull();
    expect((await emu.call("GET", `${Z}/${created.id}`)).status).toBe(404);
  });
});

describe("single-rule writes", () => {
  it("adds a rule at the end by default and leaves the other rules byte-for-byte", async () => {
    const emu = getEmu();
    const created = await createCustom(emu);
    const res = await emu.call("POST", `${Z}/${created.id}/rules`, rule("new"));
    expect(res.status).toBe(200);
    expect(res.body.result.version).toBe("2");
    expect(JSON.stringify(res.body.result.rules.slice(0, 3))).toBe(JSON.stringify(created.rules));
    expect(res.body.result.rules[3]).toMatchObject({ ref: "new", version: "1", enabled: true });
    const log = await emu.requests();
    expect(log.at(-1)).toMatchObject({ method: "POST", path: `/client/v4/${Z}/${created.id}/rules`, status: 200 });
  });

  it("places a rule before, after or at a 1-based index", async () => {
    const emu = getEmu();
    const created = await createCustom(emu);
    const [a, b] = created.rules;
    const refs = async (position: unknown, ref: string) =>
      (
        (await emu.call("POST", `${Z}/${created.id}/rules`, { ...rule(ref), position })).body.result.rules as Array<{
          ref: string;
        }>
      ).map((r) => r.ref);
    expect(await refs({ before: b!.id }, "x")).toEqual(["a", "x", "b", "c"]);
    expect(await refs({ after: a!.id }, "y")).toEqual(["a", "y", "x", "b", "c"]);
    expect(await refs({ index: 1 }, "z")).toEqual(["z", "a", "y", "x", "b", "c"]);
    expect(await refs({ before: "" }, "top")).toEqual(["top", "z", "a", "y", "x", "b", "c"]);
    const bad = await emu.call("POST", `${Z}/${created.id}/rules`, {
      ...rule("w"),
      position: { before: "c".repeat(32) },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].source.pointer).toBe("/position/before");
  });

  it("bumps a rule's version when PATCH edits it, keeps its ref, and leaves the others alone", async () => {
    const emu = getEmu();
    const created = await createCustom(emu);
    const b = created.rules[1]!;
    const res = await emu.call("PATCH", `${Z}/${created.id}/rules/${b.id}`, { action: "block", expression: "true" });
    expect(res.status).toBe(200);
    const after = res.body.result.rules;
    expect(after[1]).toMatchObject({ id: b.id, version: "2", action: "block", ref: "b" });
    expect(after[0]).toEqual(created.rules[0]);
    expect(after[2]).toEqual(created.rules[2]);
    expect(res.body.result.version).toBe("2");
  });

  it("moves a rule with a position-only PATCH without changing its version", async () => {
    const emu = getEmu();
    const created = await createCustom(emu);
    const c = created.rules[2]!;
    const res = await emu.call("PATCH", `${Z}/${created.id}/rules/${c.id}`, { position: { index: 1 } });
    expect(res.status).toBe(200);
    expect(res.body.result.rules[0]).toEqual(c);
    expect(res.body.result.version).toBe("2");
  });

  it("deletes one rule with 200 and the full ruleset, 404 for an unknown rule", async () => {
    const emu = getEmu();
    const created = await createCustom(emu);
    const res = await emu.call("DELETE", `${Z}/${created.id}/rules/${created.rules[0]!.id}`);
    expect(res.status).toBe(200);
    expect(res.body.result.rules.map((r: { ref: string }) => r.ref)).toEqual(["b", "c"]);
    const again = await emu.call("DELETE", `${Z}/${created.id}/rules/${created.rules[0]!.id}`);
    expect(again.status).toBe(404);
    expect(again.body.errors[0].code).toBe(10003);
  });

  it("rejects a duplicate ref", async () => {
    const emu = getEmu();
    const created = await createCustom(emu);
    const res = await emu.call("POST", `${Z}/${created.id}/rules`, rule("a"));
    expect(res.status).toBe(400);
  });
});

describe("rule validation", () => {
  const put = (body: unknown) => getEmu().call("PUT", ENTRY, body);
  const firstError = async (rules: unknown[], url = ENTRY) => {
    const res = await getEmu().call("PUT", url, { rules });
    expect(res.status).toBe(400);
    return res.body.errors[0] as { code: number; message: string; source: { pointer: string } };
  };

  it("rejects an unknown action with a pointer and the API's message shape", async () => {
    const err = await firstError([{ action: "frobnicate", expression: "true" }]);
    expect(err.source.pointer).toBe("/rules/0/action");
    expect(err.message).toMatch(/^'frobnicate' is not a valid value for action because/);
    expect(err.code).toBe(20021);
  });

  it("requires a non-empty expression", async () => {
    expect((await firstError([{ action: "log", expression: " " }])).source.pointer).toBe("/rules/0/expression");
  });

  it("requires execute to name an existing managed ruleset of the same phase", async () => {
    expect((await firstError([{ action: "execute", expression: "true" }])).source.pointer).toBe(
      "/rules/0/action_parameters/id",
    );
    expect(
      (await firstError([{ action: "execute", expression: "true", action_parameters: { id: "d".repeat(32) } }]))
        .message,
    ).toMatch(/no managed ruleset/);
    const custom = `${Z}/phases/http_request_firewall_custom/entrypoint`;
    expect((await firstError([owaspExecute()], custom)).message).toMatch(
      /belongs to phase http_request_firewall_managed/,
    );
  });

  it("checks override categories, rule ids, actions and score thresholds", async () => {
    const cat = await firstError([owaspExecute({ categories: [{ category: "paranoia-level-9", enabled: false }] })]);
    expect(cat.source.pointer).toBe("/rules/0/action_parameters/overrides/categories/0/category");
    const id = await firstError([owaspExecute({ rules: [{ id: "e".repeat(32), enabled: false }] })]);
    expect(id.source.pointer).toBe("/rules/0/action_parameters/overrides/rules/0/id");
    const action = await firstError([owaspExecute({ rules: [{ id: THRESHOLD_RULE, action: "allow" }] })]);
    expect(action.message).toMatch(/block, managed_challenge, js_challenge, log, challenge/);
    const onCategory = await firstError([
      owaspExecute({ categories: [{ category: "paranoia-level-3", enabled: false, score_threshold: 40 }] }),
    ]);
    expect(onCategory.source.pointer).toMatch(/categories\/0\/score_threshold$/);
    const bounds = await firstError([owaspExecute({ rules: [{ id: THRESHOLD_RULE, score_threshold: 0 }] })]);
    expect(bounds.message).toMatch(/integer from 1 to 1000/);
    const ruleLevel = await firstError([{ ...owaspExecute(), score_threshold: 40 }]);
    expect(ruleLevel.source.pointer).toBe("/rules/0/score_threshold");
  });

  it("accepts the documented OWASP tuning: paranoia level 2, threshold 25, managed challenge", async () => {
    const res = await put({
      rules: [
        owaspExecute({
          categories: [
            { category: "paranoia-level-3", enabled: false },
            { category: "paranoia-level-4", enabled: false },
          ],
          rules: [{ id: THRESHOLD_RULE, score_threshold: 25, action: "managed_challenge" }],
        }),
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.result.rules[0].action_parameters.overrides.rules[0].score_threshold).toBe(25);
  });

  it("allows log_custom_field only in its phase, with lower-case header names and at most 40 fields", async () => {
    const emu = getEmu();
    const url = `${Z}/phases/http_log_custom_fields/entrypoint`;
    const ok = await emu.call("PUT", url, {
      rules: [
        {
          action: "log_custom_field",
          expression: "true",
          action_parameters: {
            request_fields: [{ name: "user-agent" }],
            response_fields: [{ name: "cache-control" }],
            cookie_fields: [{ name: "__Session" }],
          },
        },
      ],
    });
    expect(ok.status).toBe(200);
    expect(ok.body.result.rules[0].action_parameters.cookie_fields[0].name).toBe("__Session");
    const upper = await firstError(
      [
        {
          action: "log_custom_field",
          expression: "true",
          action_parameters: { request_fields: [{ name: "User-Agent" }] },
        },
      ],
      url,
    );
    expect(upper.source.pointer).toBe("/rules/0/action_parameters/request_fields/0/name");
    const none = await firstError([{ action: "log_custom_field", expression: "true", action_parameters: {} }], url);
    expect(none.message).toMatch(/at least one of request_fields/);
    const many = Array.from({ length: 41 }, (_, i) => ({ name: `h${i}` }));
    const tooMany = await firstError(
      [{ action: "log_custom_field", expression: "true", action_parameters: { request_fields: many } }],
      url,
    );
    expect(tooMany.message).toMatch(/at most 40/);
    const elsewhere = await firstError([
      { action: "log_custom_field", expression: "true", action_parameters: { request_fields: [{ name: "x" }] } },
    ]);
    expect(elsewhere.source.pointer).toBe("/rules/0/action");
  });
});

describe("dry_run", () => {
  it("validates, changes nothing and answers result null", async () => {
    const emu = getEmu();
    const created = await createCustom(emu);
    const res = await emu.call("POST", `${Z}/${created.id}/rules?dry_run=true`, rule("dry"));
    expect(res.status).toBe(200);
    expect(res.body.result).toBeNull();
    const after = await emu.call("GET", `${Z}/${created.id}`);
    expect(after.body.result.version).toBe("1");
    expect(after.body.result.rules).toHaveLength(3);
    const invalid = await emu.call("POST", `${Z}/${created.id}/rules?dry_run=true`, {
      action: "nope",
      expression: "true",
    });
    expect(invalid.status).toBe(400);
    const del = await emu.call("DELETE", `${Z}/${created.id}?dry_run=true`);
    expect(del.status).toBe(204);
    expect((await emu.call("GET", `${Z}/${created.id}`)).status).toBe(200);
    const entry = await emu.call("PUT", `${ENTRY}?dry_run=true`, { rules: [owaspExecute()] });
    expect(entry.body.result).toBeNull();
    expect((await emu.call("GET", ENTRY)).status).toBe(404);
  });

  it("rejects dry_run values other than true and false", async () => {
    const res = await getEmu().call("PUT", `${ENTRY}?dry_run=yes`, { rules: [] });
    expect(res.status).toBe(400);
  });
});

describe("zones still on the previous WAF", () => {
  it("refuse deploying a managed ruleset through normal writes but accept other phases", async () => {
    const emu = getEmu();
    const added = await emu.callAdmin("POST", "zones", {
      name: "legacy.example",
      plan: "pro",
      waf_migration: "previous",
    });
    const zone = added.body.id as string;
    const res = await emu.call("PUT", `zones/${zone}/rulesets/phases/${MANAGED_PHASE}/entrypoint`, {
      rules: [owaspExecute()],
    });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].code).toBe(20219);
    expect(res.body.errors[0].message).toMatch(/migrate it first/);
    const custom = await emu.call("PUT", `zones/${zone}/rulesets/phases/http_request_firewall_custom/entrypoint`, {
      rules: [rule("ok")],
    });
    expect(custom.status).toBe(200);
  });
});
