// What a create finds in its list (engine/lost-create.ts), as pure logic over a client that answers from a
// table: what counts as "what was sent" (exact fields with `equals`; the body, at every depth, without it, what
// the API adds aside), which items are candidates (a new id, hints not contradicted; an item that does not show a
// hint is read by id), and the bound on those reads. The end-to-end cases are test/e2e/lost-creates.test.ts.
import { describe, expect, it } from "vitest";
import type { CloudflareClient } from "../../../src/cloudflare/types.js";
import {
  MAX_CANDIDATE_READS,
  appearedSincePlan,
  isWhatWasSent,
  lookForCreated,
} from "../../../src/engine/lost-create.js";
import { ApiError } from "../../../src/errors.js";
import type { Finder, Operation } from "../../../src/model/plan.js";
import { createEntrypointOp } from "../../../src/sections/shared/entrypoint.js";

const Z = "0123456789abcdef0123456789abcdef";
const LIST = `zones/${Z}/page_shield/policies`;

/** A client answering GETs of a list and of its objects by id from `objects`; every path asked is in `calls`. */
function tableClient(listed: Array<Record<string, unknown>>, objects: Record<string, unknown> = {}) {
  const calls: string[] = [];
  const byId = (path: string) => {
    calls.push(path);
    if (!Object.hasOwn(objects, path)) {
      throw new ApiError(`GET ${path}: not found`, {
        status: 404,
        method: "GET",
        path,
        errors: [{ code: 10003, message: "not found" }],
        retryable: false,
        envelope: true,
      });
    }
    return objects[path];
  };
  const client = {
    request: async (_m: string, path: string) => byId(path),
    listAll: async (path: string) => {
      calls.push(path);
      return listed;
    },
  } as unknown as CloudflareClient;
  return { client, calls };
}

const policyOp = (known: string[] = []): Operation & { finds: Finder } => {
  const body = {
    description: "Checkout",
    action: "log",
    expression: "true",
    value: "script-src 'self'",
    enabled: true,
  };
  return {
    method: "POST",
    path: LIST,
    body,
    finds: { path: LIST, match: { description: "Checkout" }, known, equals: { ...body }, compare: { enabled: "bool" } },
  };
};

describe("what was sent", () => {
  it("with equals: each field exactly, at every depth, a boolean's text as the boolean; other fields aside", () => {
    const op = policyOp();
    const sent = op.body as Record<string, unknown>;
    expect(isWhatWasSent({ id: "a", ...sent, created_on: "x" }, op)).toBe(true);
    expect(isWhatWasSent({ id: "a", ...sent, enabled: "true" }, op)).toBe(true);
    expect(isWhatWasSent({ id: "a", ...sent, value: "script-src *" }, op)).toBe(false);
    expect(isWhatWasSent({ id: "a", ...sent, enabled: false }, op)).toBe(false);
    const nested: Operation & { finds: Finder } = {
      ...op,
      finds: { ...op.finds, equals: { output_options: { field_names: ["RayID"] } } },
    };
    expect(isWhatWasSent({ output_options: { field_names: ["RayID"] } }, nested)).toBe(true);
    // A nested field more than was sent is another content: exact, as the API reads back only what was set.
    expect(isWhatWasSent({ output_options: { field_names: ["RayID"], sample_rate: 0.5 } }, nested)).toBe(false);
  });

  it("without equals (an entry point): the body at every depth, ids, versions and dates the API adds aside", () => {
    const rule = {
      action: "execute",
      expression: "true",
      action_parameters: { id: "owasp", overrides: { enabled: true } },
    };
    const op = createEntrypointOp(Z, "http_request_firewall_managed", "zoneform", [rule]) as Operation & {
      finds: Finder;
    };
    const read = {
      ...(op.body as Record<string, unknown>),
      id: "e",
      version: "1",
      last_updated: "2026-01-01T00:00:00Z",
      rules: [{ ...rule, id: "r", version: "1", ref: "r", categories: [] }],
    };
    expect(isWhatWasSent(read, op)).toBe(true);
    expect(isWhatWasSent({ ...read, rules: [{ ...read.rules[0], expression: "false" }] }, op)).toBe(false);
    expect(isWhatWasSent({ ...read, rules: [...read.rules, { ...read.rules[0], id: "s" }] }, op)).toBe(false);
    expect(isWhatWasSent({ ...read, rules: [] }, op)).toBe(false);
    const { rules: _rules, ...withoutRules } = read;
    // The list's summary of the same entry point: no rules to compare, so not what was sent.
    expect(isWhatWasSent(withoutRules, op)).toBe(false);
  });
});

describe("the candidates", () => {
  it("after a lost answer: a new id with its hints is read by id; an old id, or other hints, is not", () => {
    const op = policyOp(["old"]);
    const sent = op.body as Record<string, unknown>;
    const { client, calls } = tableClient(
      [
        { id: "old", ...sent },
        { id: "other", ...sent, description: "Reports" },
        { id: "new", ...sent },
      ],
      { [`${LIST}/new`]: { id: "new", ...sent } },
    );
    return lookForCreated(client, op).then((look) => {
      expect(look.candidates.map((c) => c.id)).toEqual(["new"]);
      expect(look.equal.map((c) => c.id)).toEqual(["new"]);
      expect(calls).toEqual([LIST, `${LIST}/new`]);
    });
  });

  it("an object read by id that says other hints, or is gone (404), is no candidate; one unlike what was sent is", async () => {
    const op = policyOp();
    const sent = op.body as Record<string, unknown>;
    const { client } = tableClient([{ id: "a" }, { id: "b", description: "Checkout" }, { id: "c" }], {
      [`${LIST}/a`]: { id: "a", ...sent, description: "Reports" },
      [`${LIST}/b`]: { id: "b", ...sent, value: "script-src *" },
    });
    const look = await lookForCreated(client, op);
    expect(look.candidates.map((c) => c.id)).toEqual(["b"]);
    expect(look.equal).toEqual([]);
  });

  it("an answer by id for another id is refused, never compared", async () => {
    const op = policyOp();
    const { client } = tableClient([{ id: "a", description: "Checkout" }], { [`${LIST}/a`]: { id: "z" } });
    await expect(lookForCreated(client, op)).rejects.toThrow(`expected the object of id a`);
  });

  it(`more than ${MAX_CANDIDATE_READS} candidates: none is read, all are named`, async () => {
    const op = policyOp();
    const many = Array.from({ length: MAX_CANDIDATE_READS + 1 }, (_, i) => ({ id: `n${i}`, description: "Checkout" }));
    const { client, calls } = tableClient(many);
    const look = await lookForCreated(client, op);
    expect([look.tooMany, look.candidates.length, look.equal.length]).toEqual([true, MAX_CANDIDATE_READS + 1, 0]);
    expect(calls).toEqual([LIST]);
  });

  it("before a create: an item without its hint is read by id; one with other hints is not a reason to stop", async () => {
    const op = policyOp(["old"]);
    const { client, calls } = tableClient(
      [{ id: "old", description: "Checkout" }, { id: "x" }, { id: "y" }, { id: "w", description: "Reports" }],
      { [`${LIST}/x`]: { id: "x", description: "Checkout" }, [`${LIST}/y`]: { id: "y", description: "Reports" } },
    );
    const appeared = await appearedSincePlan(client, op.finds);
    expect(appeared.map((i) => i.id)).toEqual(["x"]);
    expect(calls).toEqual([LIST, `${LIST}/x`, `${LIST}/y`]);
  });
});
