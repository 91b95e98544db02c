// The digest and the bound values of a plan (src/plan/digest.ts, src/plan/inputs.ts): the digest
// covers every part of a plan file that is shown (and the desired state, operations, fingerprints and
// bound values) but when it was made; the salt is derived from the desired state the plan carries, so
// the same file, zones and values give the same digest on every run, and it is known before any read;
// the values are bound together by one scrypt with recorded parameters that are checked.
import { describe, expect, it } from "vitest";
import { parseConfigText } from "../../../src/config/index.js";
import { assertInputsForm, assertSameInputs } from "../../../src/engine/verify.js";
import { StalePlanError } from "../../../src/errors.js";
import type { Change, Plan } from "../../../src/model/plan.js";
import { desiredSalt } from "../../../src/plan/binding.js";
import { derivedSalt, planDigest, saltMaterial } from "../../../src/plan/digest.js";
import { EnvSecrets } from "../../../src/secrets/index.js";
import { bindInputs, changedInputs, kdfProblem, PLAN_KDF, prepareInputs } from "../../../src/secrets/binding.js";
import { plan as planPure } from "../../../src/plan/planner.js";
import { planForFile, preparePlanFile } from "../../../src/plan/secrets.js";

const Z = "0123456789abcdef0123456789abcdef";
const ENV = { SUFFIX: "stripe-secret" };
const { desired } = parseConfigText(
  `version: 1
zones:
  - zone_id: ${Z}
    name: example.com
    page_shield:
      policies:
        - { description: "Checkout \${env:SUFFIX}", action: log, expression: "true", value: "script-src 'self'" }
`,
  "z.yaml",
  ENV,
);

const policy: Change = {
  kind: "update",
  resource: "page_shield_policy",
  zone_id: Z,
  identity: "Checkout ${env:SUFFIX}",
  live_id: "195cc7b95424a50fefef8e406f1c65b3",
  summary: "value widened",
  notes: ["a note"],
  before: { action: "log" },
  after: { action: "allow" },
  fields: [{ field: "action", before: "log", after: "allow" }],
  operations: [{ method: "PUT", path: `zones/${Z}/page_shield/policies/195cc7b95424a50fefef8e406f1c65b3`, body: {} }],
};

function made(): Plan {
  return {
    format_version: 5,
    created_at: "2026-11-21T00:00:00.000Z",
    safety: { max_deletes: 5 },
    summary: { create: 0, update: 1, replace: 0, delete: 0 },
    zones: [
      {
        zone_id: Z,
        name: "example.com",
        changes: [structuredClone(policy)],
        fingerprints: { "page_shield_policy/195cc7b95424a50fefef8e406f1c65b3": "0123456789abcdef" },
        errors: [],
        warnings: ["a warning"],
        desired: desired.zones[0]!.declared,
      },
    ],
  };
}

/** Each shown part of a plan file, and the desired state, calls, fingerprints: an edit of one. */
const EDITS: Array<[string, (p: Plan) => void]> = [
  ["the zone's name", (p) => (p.zones[0]!.name = "example.org")],
  ["a change's kind", (p) => (p.zones[0]!.changes[0]!.kind = "replace")],
  ["a change's resource", (p) => (p.zones[0]!.changes[0]!.resource = "logpush_job")],
  ["a change's identity", (p) => (p.zones[0]!.changes[0]!.identity = "Other")],
  ["a change's live id", (p) => (p.zones[0]!.changes[0]!.live_id = "x")],
  ["a field's value after", (p) => (p.zones[0]!.changes[0]!.fields[0]!.after = "log")],
  ["a field's value before", (p) => (p.zones[0]!.changes[0]!.fields[0]!.before = "allow")],
  ["a field shown as sensitive", (p) => (p.zones[0]!.changes[0]!.fields[0]!.sensitive = true)],
  ["a field shown as text", (p) => (p.zones[0]!.changes[0]!.fields[0]!.text = true)],
  ["a field's name", (p) => (p.zones[0]!.changes[0]!.fields[0]!.field = "enabled")],
  ["a change's summary", (p) => (p.zones[0]!.changes[0]!.summary = "nothing to see")],
  ["a change's notes", (p) => (p.zones[0]!.changes[0]!.notes = [])],
  ["a change's before", (p) => (p.zones[0]!.changes[0]!.before = { action: "allow" })],
  ["a change's after", (p) => (p.zones[0]!.changes[0]!.after = { action: "log" })],
  ["a zone's errors", (p) => (p.zones[0]!.errors = ["an error"])],
  ["a zone's warnings", (p) => (p.zones[0]!.warnings = [])],
  ["the counts", (p) => (p.summary = { create: 0, update: 0, replace: 0, delete: 0 })],
  ["an operation", (p) => (p.zones[0]!.changes[0]!.operations[0]!.method = "PATCH")],
  ["a fingerprint", (p) => (p.zones[0]!.fingerprints = {})],
  ["the desired state", (p) => (p.zones[0]!.desired = {})],
  ["the safety limit", (p) => (p.safety = { max_deletes: 50 })],
];

describe("the digest", () => {
  it("covers every part a plan file shows, and what decides the writes", () => {
    const base = planForFile(made(), desired);
    for (const [what, edit] of EDITS) {
      const edited = structuredClone(base);
      edit(edited);
      expect(planDigest(edited), what).not.toBe(base.digest);
    }
    const bound = structuredClone(base);
    bound.inputs!.hash = "0".repeat(64);
    expect(planDigest(bound), "a bound value").not.toBe(base.digest);
  });

  it("leaves out only when the plan was made (and itself): the same plan on another day has the same digest", () => {
    const base = planForFile(made(), desired);
    const later = planForFile({ ...made(), created_at: "2027-01-01T00:00:00.000Z" }, desired);
    expect(later.digest).toBe(base.digest);
    expect(planDigest({ ...base, digest: `sha256:${"0".repeat(64)}` })).toBe(base.digest);
  });

  it("is the same for the same plan, values and zones every time: the salt is derived, never random", async () => {
    const a = planForFile(made(), desired);
    await preparePlanFile(made(), desired);
    const b = planForFile(made(), desired);
    expect(b.inputs).toEqual(a.inputs);
    expect(b.digest).toBe(a.digest);
    expect(a.inputs!.salt).toBe(derivedSalt(saltMaterial(a)));
    expect(a.inputs!.salt).toMatch(/^[0-9a-f]{32}$/);
    expect(a.inputs!.kdf).toEqual({ name: "scrypt", n: 16384, r: 10, p: 1 });
    // No value in the file: the reference and its bound hash only.
    expect(JSON.stringify(a)).not.toContain(ENV.SUFFIX);
    expect(a.zones[0]!.changes[0]!.identity).toBe("Checkout ${env:SUFFIX}");
  });

  it("changes with a value; two desired states never share a salt", () => {
    const a = planForFile(made(), desired);
    const other = parseConfigText(
      `version: 1\nzones:\n  - zone_id: ${Z}\n    name: example.com\n    page_shield:\n      policies:\n` +
        `        - { description: "Checkout \${env:SUFFIX}", action: log, expression: "true", value: "script-src 'self'" }\n`,
      "z.yaml",
      { SUFFIX: "paypal-secret" },
    ).desired;
    const p = made();
    p.zones[0]!.changes[0]!.identity = "Checkout paypal-secret";
    const b = planForFile(p, other);
    // The same file form (references, not values): the same salt, another bound value, another digest.
    expect(b.inputs!.salt).toBe(a.inputs!.salt);
    expect(b.inputs!.hash).not.toBe(a.inputs!.hash);
    expect(b.digest).not.toBe(a.digest);
    // What was read does not move the salt (it is known before the reads); the desired state does.
    const moved = made();
    moved.zones[0]!.warnings = [];
    expect(planForFile(moved, desired).inputs!.salt).toBe(a.inputs!.salt);
    const otherDesired = made();
    otherDesired.zones[0]!.desired = { ...(otherDesired.zones[0]!.desired as object), name: "example.org" };
    expect(planForFile(otherDesired, desired).inputs!.salt).not.toBe(a.inputs!.salt);
  });

  it("is known before any read: the salt started from the desired state is the plan's", () => {
    const unread = planPure(desired, { read_at: "2026-11-21T00:00:00.000Z", zones: [] });
    expect(planForFile(unread, desired).inputs!.salt).toBe(desiredSalt(desired));
  });
});

/** A holder of these values, as a desired state carries one. */
function held(pairs: ReadonlyArray<{ name: string; value: string }>): EnvSecrets {
  return new EnvSecrets(
    Object.fromEntries(pairs.map((p) => [p.name, p.value])),
    pairs.map((p) => p.name),
  );
}

describe("the bound values", () => {
  it("are one scrypt of every name and value together, the same derived on this thread or on libuv's", async () => {
    const salt = "0123456789abcdef0123456789abcdef";
    const pairs = [
      { name: "B", value: "value-b" },
      { name: "A", value: "value-a" },
    ];
    const sync = bindInputs(held(pairs), salt)!;
    expect(sync.names).toEqual(["A", "B"]);
    expect(sync.hash).toMatch(/^[0-9a-f]{64}$/);
    const { scryptSync } = await import("node:crypto");
    const expected = scryptSync("A\u00007\u0000value-a\u0000B\u00007\u0000value-b", salt, 32, {
      N: 16384,
      r: 10,
      p: 1,
      maxmem: 64 * 1024 * 1024,
    });
    expect(sync.hash).toBe(expected.toString("hex"));
    const other = "fedcba9876543210fedcba9876543210";
    await prepareInputs(held(pairs), other);
    expect(bindInputs(held(pairs), other)!.hash).toBe(
      scryptSync("A\u00007\u0000value-a\u0000B\u00007\u0000value-b", other, 32, {
        N: 16384,
        r: 10,
        p: 1,
        maxmem: 64 * 1024 * 1024,
      }).toString("hex"),
    );
    // The names are bound too: two names cannot swap values.
    const swapped = bindInputs(
      held([
        { name: "A", value: "value-b" },
        { name: "B", value: "value-a" },
      ]),
      salt,
    )!;
    expect(swapped.hash).not.toBe(sync.hash);
  });

  it("cost one KDF per plan, whatever the number of references", async () => {
    const salt = "fedcba9876543210fedcba9876543210";
    const secrets = Array.from({ length: 12 }, (_, i) => ({ name: `V${i}`, value: `value-${i}-long` }));
    await prepareInputs(held(secrets), salt);
    const bound = bindInputs(held(secrets), salt)!;
    expect(bound.names).toEqual(secrets.map((s) => s.name).sort());
    expect(await changedInputs(bound, Object.fromEntries(secrets.map((s) => [s.name, s.value])))).toEqual([]);
    const changed = Object.fromEntries(secrets.map((s) => [s.name, s.value]));
    changed.V3 = "another";
    expect(await changedInputs(bound, changed)).toEqual([
      "one at least of ${env:V0}, ${env:V1}, ${env:V10}, ${env:V11}, ${env:V2} and 7 more has another value " +
        "than when the plan was made (they are bound together: which one cannot be told)",
    ]);
  });

  it("are checked with the parameters the plan records", async () => {
    const salt = "00112233445566778899aabbccddeeff";
    const raised = { name: "scrypt" as const, n: 2 ** 15, r: 8, p: 1 };
    const inputs = bindInputs(held([{ name: "TOKEN", value: "secret-value" }]), salt, raised)!;
    expect(inputs.kdf).toEqual(raised);
    expect(inputs.hash).not.toBe(bindInputs(held([{ name: "TOKEN", value: "secret-value" }]), salt)!.hash);
    expect(await changedInputs(inputs, { TOKEN: "secret-value" })).toEqual([]);
    expect(await changedInputs(inputs, { TOKEN: "another" })).toEqual([
      "${env:TOKEN} has another value than when the plan was made",
    ]);
    expect(await changedInputs(inputs, {}, ["TOKEN", "OTHER"])).toEqual([
      "${env:TOKEN} is not set (the plan was made with a value)",
      "${env:OTHER} is used, but the plan records no hash of the value it was made with",
    ]);
    // Edited parameters (within bounds) give other values: refused as not the ones the plan was made with.
    const edited = { ...inputs, kdf: { ...raised, r: 9 } };
    expect(await changedInputs(edited, { TOKEN: "secret-value" })).toEqual([
      "${env:TOKEN} has another value than when the plan was made",
    ]);
  });

  it("refuse parameters outside zoneform's bounds, and a salt that is not the plan's own", async () => {
    expect(kdfProblem(PLAN_KDF)).toBeUndefined();
    expect(kdfProblem({ name: "scrypt", n: 2 ** 10, r: 8, p: 1 })).toMatch(/weaker than zoneform allows/);
    expect(kdfProblem({ name: "scrypt", n: 2 ** 14, r: 1, p: 1 })).toMatch(/weaker than zoneform allows/);
    expect(kdfProblem({ name: "scrypt", n: 2 ** 22, r: 8, p: 1 })).toMatch(/cost more than zoneform checks/);
    expect(kdfProblem({ name: "scrypt", n: 2 ** 17, r: 32, p: 1 })).toMatch(/cost more than zoneform checks/);
    expect(kdfProblem({ name: "scrypt", n: 20000, r: 8, p: 1 })).toMatch(/n a power of two/);
    expect(kdfProblem({ name: "argon2" as "scrypt", n: 2 ** 14, r: 8, p: 1 })).toMatch(/is not scrypt/);
    const filed = planForFile(made(), desired);
    expect(() => assertInputsForm(filed, "plan.json", { salt: true })).not.toThrow();
    const weak = structuredClone(filed);
    weak.inputs!.kdf.n = 1024;
    expect(() => assertInputsForm(weak, "plan.json", { salt: false })).toThrow(StalePlanError);
    const salted = structuredClone(filed);
    salted.inputs!.salt = "ffffffffffffffffffffffffffffffff";
    expect(() => assertInputsForm(salted, "plan.json", { salt: false })).not.toThrow();
    expect(() => assertInputsForm(salted, "plan.json", { salt: true })).toThrow(
      "plan.json cannot be checked: the salt of its bound values is not the one derived from its content",
    );
    // With the values: the hashes made under another salt are refused as such, never as another value.
    await expect(assertSameInputs(salted, "plan.json", ENV)).rejects.toThrow(
      "the salt of its bound values is not the one derived from its content",
    );
    await expect(assertSameInputs(filed, "plan.json", ENV)).resolves.toBeUndefined();
  });
});
