// The semantic rules one by one, on small documents built in the test.
import { describe, expect, it } from "vitest";
import { RULES, runRules, type RuleContext } from "../../../src/config/rules/index.js";
import {
  customFieldLimit,
  customFieldsPushed,
  lowerCaseHeaders,
  uniqueCustomFields,
} from "../../../src/sections/custom_fields/rules.js";
import {
  exactJobIds,
  filterLimits,
  filterValues,
  literalSecretParams,
  pruneNeedsJobs,
  secretsFromEnvironment,
  uniqueJobs,
} from "../../../src/sections/logpush_jobs/rules.js";
import { pruneNeedsPolicies, uniquePolicies } from "../../../src/sections/page_shield/rules.js";
import { uniqueCustomHostnames } from "../../../src/sections/custom_hostnames/rules.js";

const ctx: RuleContext = { template: () => undefined };
const zone = (body: Record<string, unknown>) => ({
  version: 1,
  zones: [{ zone_id: "5ababd603b22780302dd8d83498e5172", ...body }],
});
const job = (extra: Record<string, unknown> = {}) => ({
  name: "j",
  dataset: "http_requests",
  destination_conf: "s3://b/{DATE}?region=x",
  ...extra,
});
const withJobs = (...jobs: unknown[]) => zone({ logs: { logpush_jobs: jobs } });
const leaf = (i: number) => ({ key: "ClientIP", operator: "eq", value: String(i) });

describe("page_shield rules", () => {
  it("reports a repeated policy description at the second one", () => {
    const p = { action: "log", expression: "true", value: "v" };
    const doc = zone({
      page_shield: {
        policies: [
          { description: "A", ...p },
          { description: "B", ...p },
          { description: "A", ...p },
        ],
      },
    });
    expect(uniquePolicies(doc, ctx)).toEqual([
      expect.objectContaining({
        pointer: "/zones/0/page_shield/policies/2/description",
        message: expect.stringContaining(
          "policy described 'A' is declared twice (also item 0 of this list) with no id",
        ),
      }),
    ]);
  });

  it("accepts one description on entries that pin distinct ids, and refuses one id pinned twice", () => {
    const p = { description: "A", action: "log", expression: "true", value: "v" };
    expect(
      uniquePolicies(zone({ page_shield: { policies: [{ id: "p1", ...p }, { id: "p2", ...p }, p] } }), ctx),
    ).toEqual([]);
    expect(
      uniquePolicies(
        zone({
          page_shield: {
            policies: [
              { id: "p1", ...p },
              { id: "p1", ...p, description: "B" },
            ],
          },
        }),
        ctx,
      ),
    ).toEqual([
      expect.objectContaining({
        pointer: "/zones/0/page_shield/policies/1/id",
        message: expect.stringContaining("id p1 is pinned twice"),
      }),
    ]);
  });

  it("warns that prune without policies does nothing", () => {
    expect(pruneNeedsPolicies(zone({ page_shield: { prune: false } }), ctx)).toEqual([
      expect.objectContaining({ pointer: "/zones/0/page_shield/prune", severity: "warning" }),
    ]);
    expect(pruneNeedsPolicies(zone({ page_shield: { prune: false, policies: [] } }), ctx)).toEqual([]);
  });
});

describe("custom field rules", () => {
  it("suggests the lower-case form of a header name, and leaves cookies alone", () => {
    const doc = zone({
      logs: {
        custom_fields: {
          request_headers: ["cf-ray", "X-Request-ID"],
          response_headers: ["Cache-Control"],
          cookies: ["__Session"],
        },
      },
    });
    expect(lowerCaseHeaders(doc, ctx).map((f) => [f.pointer, f.message])).toEqual([
      [
        "/zones/0/logs/custom_fields/request_headers/1",
        "header names must be lower case: write 'x-request-id' instead of 'X-Request-ID'",
      ],
      [
        "/zones/0/logs/custom_fields/response_headers/0",
        "header names must be lower case: write 'cache-control' instead of 'Cache-Control'",
      ],
    ]);
  });

  it("counts all three lists against the limit of 40", () => {
    const names = (n: number, p: string) => Array.from({ length: n }, (_, i) => `${p}${i}`);
    const at40 = zone({
      logs: {
        custom_fields: { request_headers: names(20, "a"), response_headers: names(10, "b"), cookies: names(10, "c") },
      },
    });
    const at41 = zone({
      logs: {
        custom_fields: { request_headers: names(21, "a"), response_headers: names(10, "b"), cookies: names(10, "c") },
      },
    });
    expect(customFieldLimit(at40, ctx)).toEqual([]);
    expect(customFieldLimit(at41, ctx)).toEqual([
      expect.objectContaining({
        pointer: "/zones/0/logs/custom_fields",
        message: expect.stringMatching(/^41 custom log fields/),
      }),
    ]);
  });

  it("reports a field listed twice; headers compare case-insensitively, cookies exactly", () => {
    const doc = zone({ logs: { custom_fields: { request_headers: ["a", "A"], cookies: ["s", "S", "s"] } } });
    expect(uniqueCustomFields(doc, ctx).map((f) => f.pointer)).toEqual([
      "/zones/0/logs/custom_fields/request_headers/1",
      "/zones/0/logs/custom_fields/cookies/2",
    ]);
  });

  it("warns when a job pushes a custom-field column the zone leaves empty", () => {
    const doc = zone({
      logs: {
        custom_fields: { request_headers: ["cf-ray"] },
        logpush_jobs: [job({ output_options: { field_names: ["RayID", "RequestHeaders", "Cookies"] } })],
      },
    });
    expect(customFieldsPushed(doc, ctx)).toEqual([
      expect.objectContaining({
        pointer: "/zones/0/logs/logpush_jobs/0/output_options/field_names/2",
        severity: "warning",
        message: "Cookies will be empty: logs.custom_fields.cookies lists nothing",
      }),
    ]);
    // Without a managed custom_fields section the live fields are unknown: no warning.
    expect(customFieldsPushed(withJobs(job({ output_options: { field_names: ["Cookies"] } })), ctx)).toEqual([]);
  });
});

describe("logpush rules", () => {
  it("reports a repeated name and dataset, not a name repeated across datasets (Cloudflare's example.com pair)", () => {
    expect(
      uniqueJobs(withJobs(job({ name: "example.com" }), job({ name: "example.com", dataset: "spectrum_events" })), ctx),
    ).toEqual([]);
    expect(uniqueJobs(withJobs(job(), job({ dataset: "dns_logs" }), job()), ctx)).toEqual([
      expect.objectContaining({
        pointer: "/zones/0/logs/logpush_jobs/2/name",
        message: expect.stringContaining("Logpush job named 'j' with dataset 'http_requests' is declared twice"),
      }),
    ]);
    // Distinct pins are distinct jobs; one pin twice is one job declared twice.
    expect(uniqueJobs(withJobs(job({ id: 1 }), job({ id: "2" }), job()), ctx)).toEqual([]);
    expect(uniqueJobs(withJobs(job({ id: 1 }), job({ id: "1", name: "k" })), ctx)).toEqual([
      expect.objectContaining({ pointer: "/zones/0/logs/logpush_jobs/1/id" }),
    ]);
  });

  it("refuses a job id the YAML number cannot hold exactly, and accepts it quoted", () => {
    expect(
      exactJobIds(withJobs(job({ id: 2 ** 53 + 2 }), job({ id: "12345678901234567890" }), job({ id: 7 })), ctx),
    ).toEqual([
      expect.objectContaining({
        pointer: "/zones/0/logs/logpush_jobs/0/id",
        message: expect.stringContaining("write it as a quoted string"),
      }),
    ]);
  });

  it("accepts 30 operators and refuses 31", () => {
    // n conditions in n - 1 nested groups: 2n - 1 operators, small enough to stay under 1000 bytes.
    const deep = (n: number): unknown => (n === 1 ? leaf(0) : { and: [leaf(n), deep(n - 1)] });
    const thirty = { where: { or: [deep(15)] } };
    expect(filterLimits(withJobs(job({ filter: thirty })), ctx)).toEqual([]);
    expect(filterLimits(withJobs(job({ filter: { where: deep(16) } })), ctx)).toEqual([
      expect.objectContaining({
        pointer: "/zones/0/logs/logpush_jobs/0/filter",
        message: expect.stringContaining("31 operators"),
      }),
    ]);
  });

  it("measures the size of the serialised filter, not of the YAML", () => {
    const value = "x".repeat(1000 - '{"where":{"key":"k","operator":"eq","value":""}}'.length);
    expect(filterLimits(withJobs(job({ filter: { where: { key: "k", operator: "eq", value } } })), ctx)).toEqual([]);
    expect(
      filterLimits(withJobs(job({ filter: { where: { key: "k", operator: "eq", value: `${value}x` } } })), ctx),
    ).toEqual([
      expect.objectContaining({ message: "the filter is 1001 bytes once serialised: Logpush allows at most 1000" }),
    ]);
  });

  it("wants a list for in and !in, a single value otherwise, and no empty condition", () => {
    const where = {
      or: [
        { key: "a", operator: "in", value: "x" },
        { key: "a", operator: "!in", value: [] },
        { key: "a", operator: "contains", value: ["x"] },
        { key: "a", operator: "in", value: ["x", 1] },
        { and: [{}] },
      ],
    };
    expect(
      filterValues(withJobs(job({ filter: { where } })), ctx).map((f) => [
        f.pointer.replace("/zones/0/logs/logpush_jobs/0/filter/where", ""),
        f.message,
      ]),
    ).toEqual([
      ["/or/0/value", "operator 'in' needs a list value, e.g. [a, b] (got a single value)"],
      ["/or/1/value", "operator '!in' needs at least one value in its list"],
      ["/or/2/value", "operator 'contains' compares with a single value; use 'in' to match any of a list"],
      ["/or/4/and/0", "an empty condition: give {key, operator, value}, an 'and' or an 'or' group"],
    ]);
    expect(filterValues(withJobs(job({ filter: { where: {} } })), ctx)).toEqual([]);
  });

  it("warns that logs.prune without logpush_jobs does nothing", () => {
    expect(pruneNeedsJobs(zone({ logs: { prune: false, custom_fields: {} } }), ctx)).toHaveLength(1);
    expect(pruneNeedsJobs(zone({ logs: { prune: false, logpush_jobs: [] } }), ctx)).toHaveLength(0);
  });
});

describe("secrets rule", () => {
  it("finds the credential parameters written literally", () => {
    expect(literalSecretParams("s3://b/{DATE}?region=us-east-1&access-key-id=AKIA&secret-access-key=${env:S}")).toEqual(
      ["access-key-id"],
    );
    expect(literalSecretParams("azure://c/{DATE}?sv=2021&sig=abc%2F")).toEqual(["sig"]);
    expect(literalSecretParams("https://h/p?header_Authorization=Basic%20${env:AUTH}&tags=a")).toEqual([]);
    expect(literalSecretParams("gs://bucket/{DATE}")).toEqual([]);
  });

  it("checks the destination as written, before interpolation", () => {
    const doc = withJobs(job({ destination_conf: "s3://b?secret-access-key=value-from-env" }));
    const written: RuleContext = {
      template: (p) => (p.endsWith("destination_conf") ? "s3://b?secret-access-key=${env:S}" : undefined),
    };
    expect(secretsFromEnvironment(doc, written)).toEqual([]);
    expect(secretsFromEnvironment(doc, ctx)).toEqual([
      expect.objectContaining({
        pointer: "/zones/0/logs/logpush_jobs/0/destination_conf",
        message: expect.stringContaining("'secret-access-key' is written literally"),
      }),
    ]);
  });

  it("refuses a literal or escaped ownership challenge", () => {
    const doc = withJobs(job({ ownership_challenge: "${env:X}" }));
    expect(secretsFromEnvironment(doc, { template: () => "$${env:X}" })).toHaveLength(1);
    expect(secretsFromEnvironment(doc, { template: () => "${env:X}" })).toHaveLength(0);
  });
});

describe("custom hostname rule", () => {
  it("reports a hostname listed twice, ignoring case", () => {
    const doc = zone({
      custom_hostnames: [
        { hostname: "a.example", certificate_authority: "" },
        { hostname: "A.Example", certificate_authority: "google" },
      ],
    });
    expect(uniqueCustomHostnames(doc, ctx)).toEqual([
      expect.objectContaining({ pointer: "/zones/0/custom_hostnames/1/hostname" }),
    ]);
  });
});

describe("all rules", () => {
  it("do not throw on documents of the wrong shape (they also run after schema errors)", () => {
    for (const doc of [
      null,
      1,
      "x",
      [],
      { zones: 3 },
      { zones: [null, 1, { logs: [] }, { logs: { logpush_jobs: [{ filter: { where: [] } }, { filter: "x" }] } }] },
    ]) {
      expect(() => runRules(doc, ctx, RULES)).not.toThrow();
    }
  });
});
