import { describe, expect, it } from "vitest";
import type { Change, Plan } from "../../../src/model/plan.js";
import { compareFingerprints, fingerprint } from "../../../src/plan/fingerprint.js";
import { orderChanges } from "../../../src/plan/order.js";
import { assertSafe, findSafetyViolations } from "../../../src/engine/verify.js";
import { planFileText, planForDisplay, planForFile } from "../../../src/plan/secrets.js";
import { EnvSecrets } from "../../../src/secrets/index.js";
import { summaryLine } from "../../../src/plan/summary.js";
import { UnsafePlanError } from "../../../src/errors.js";

const Z = "0123456789abcdef0123456789abcdef";
const change = (kind: Change["kind"], resource: string, identity: string, extra: Partial<Change> = {}): Change => ({
  kind,
  resource,
  zone_id: Z,
  identity,
  fields: [],
  operations: [],
  ...extra,
});
const planOf = (changes: Change[]): Plan => ({
  format_version: 5,
  created_at: "2026-11-21T00:00:00.000Z",
  zones: [{ zone_id: Z, name: "example.com", changes, fingerprints: {}, errors: [], warnings: [] }],
  summary: { create: 0, update: 0, replace: 0, delete: 0 },
});

describe("ordering", () => {
  it("makes before it breaks: creates and updates in kind order, then deletes in reverse kind order", () => {
    const order = (r: string) => ({ settings: 10, policy: 20, job: 40 })[r] ?? 0;
    const ordered = orderChanges(
      [
        change("delete", "policy", "old"),
        change("create", "job", "j"),
        change("delete", "job", "x"),
        change("update", "settings", "s"),
        change("create", "policy", "new"),
      ],
      order,
    );
    expect(ordered.map((c) => `${c.kind}:${c.identity}`)).toEqual([
      "update:s",
      "create:new",
      "create:j",
      "delete:x",
      "delete:old",
    ]);
  });
});

describe("fingerprints", () => {
  it("ignore key order and report changed, added and removed resources", () => {
    expect(fingerprint({ a: 1, b: [1, { c: 2, d: 3 }] })).toBe(fingerprint({ b: [1, { d: 3, c: 2 }], a: 1 }));
    expect(compareFingerprints({ x: "1", y: "2" }, { x: "1", y: "3", z: "4" })).toEqual([
      { key: "y", how: "changed" },
      { key: "z", how: "added" },
    ]);
    expect(compareFingerprints({ x: "1" }, {})).toEqual([{ key: "x", how: "removed" }]);
  });
});

describe("safety", () => {
  it("refuses more deletes than the limit in octoDNS style, unless forced", () => {
    const plan = planOf([1, 2, 3].map((i) => change("delete", "policy", `p${i}`)));
    expect(findSafetyViolations(plan, 3)).toEqual([]);
    expect(() => assertSafe(plan, 2, false)).toThrow(UnsafePlanError);
    expect(() => assertSafe(plan, 2, false)).toThrow(
      "[example.com] too many deletes, 3 is over 2 (safety.max_deletes), force required",
    );
    expect(() => assertSafe(plan, 2, true)).not.toThrow();
  });
  it("has a Terraform-like closing line", () => {
    expect(summaryLine({ create: 1, update: 2, replace: 0, delete: 3 })).toBe(
      "Plan: 1 to create, 2 to update, 0 to replace, 3 to delete.",
    );
  });
});

describe("secrets in plans", () => {
  // A plan holds references (src/secrets templatizes live values): it is built here as the planner makes it.
  const secret = { name: "AWS_SECRET", value: "s3cr3t-value-xyz" };
  const holder = { secrets: new EnvSecrets({ [secret.name]: secret.value }, [secret.name]) };
  const dest = "s3://logs/{DATE}?region=us-east-1&secret-access-key=${env:AWS_SECRET}";
  const plan = planOf([
    change("update", "logpush_job", "http", {
      before: { destination_conf: "s3://logs?region=us-east-1&secret-access-key=LIVEKEY123" },
      fields: [
        { field: "destination_conf", before: "s3://logs?region=us-east-1&secret-access-key=LIVEKEY123", after: dest },
      ],
      operations: [{ method: "PUT", path: `zones/${Z}/logpush/jobs/1`, body: { destination_conf: dest } }],
    }),
  ]);
  it("shows every secret as (sensitive) for display, keeping bucket and region", () => {
    const text = JSON.stringify(planForDisplay(plan, holder));
    expect(text).not.toContain(secret.value);
    expect(text).not.toContain("LIVEKEY123");
    expect(text).not.toContain("${env:");
    expect(text).toContain("region=us-east-1&secret-access-key=(sensitive)");
  });
  it("writes env references, never values, into plan files, and hides live credentials", () => {
    const text = JSON.stringify(planForFile(plan, holder));
    expect(text).not.toContain(secret.value);
    expect(text).not.toContain("LIVEKEY123");
    expect(text).toContain("secret-access-key=${env:AWS_SECRET}");
  });
  it("refuses to write a plan that holds a value, in any encoding", () => {
    const leaked = planOf([
      change("create", "logpush_job", "s", {
        operations: [{ method: "POST", path: `zones/${Z}/logpush/jobs`, body: { note: JSON.stringify(secret.value) } }],
      }),
    ]);
    expect(() => planFileText(leaked, holder)).toThrow(/would hold an environment value/);
  });
});

describe("partly-literal credentials in plan files", () => {
  it("keeps a reference inside a larger value (Splunk's `Splunk ${env:TOKEN}`) usable", () => {
    const holder = { secrets: new EnvSecrets({ SPLUNK_TOKEN: "splunk-secret-42" }, ["SPLUNK_TOKEN"]) };
    const dest =
      "splunk://h.example:8088/services/collector/raw?channel=abc&header_Authorization=Splunk%20${env:SPLUNK_TOKEN}";
    const plan = planOf([
      change("create", "logpush_job", "s", {
        operations: [{ method: "POST", path: `zones/${Z}/logpush/jobs`, body: { destination_conf: dest } }],
      }),
    ]);
    const text = JSON.stringify(planForFile(plan, holder));
    expect(text).toContain("header_Authorization=Splunk%20${env:SPLUNK_TOKEN}");
    expect(JSON.stringify(planForDisplay(plan, holder))).toContain("header_Authorization=(sensitive)");
  });
});
