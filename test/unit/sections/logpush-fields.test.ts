// The Logpush section's check of the log fields a write names against its dataset's fields (GET
// zones/{zone}/logpush/datasets/{dataset}/fields), with a fake client behind the engine's real read
// context (its memo): which changes ask, once per dataset, what an unknown field reports, and what a
// refused or malformed answer does.
import { describe, expect, it } from "vitest";
import type { CloudflareClient } from "../../../src/cloudflare/types.js";
import { createReadContext } from "../../../src/engine/read.js";
import { AnswerShapeError, ApiError } from "../../../src/errors.js";
import type { Change } from "../../../src/model/plan.js";
import type { DesiredZone } from "../../../src/sections/index.js";
import {
  closeMatches,
  fieldsWritten,
  filterKeys,
  parseFieldsAnswer,
} from "../../../src/sections/logpush_jobs/fields-check.js";
import type { DesiredLogpushJob } from "../../../src/sections/logpush_jobs/index.js";
import { createBody } from "../../../src/sections/logpush_jobs/job-changes.js";
import { logpushJobs } from "../../../src/sections/logpush_jobs/logpush-jobs.js";
import { normalizeLiveJob, type LiveLogpushJob } from "../../../src/sections/logpush_jobs/live.js";
import { NO_SECRETS } from "../../../src/secrets/index.js";

const Z = "0123456789abcdef0123456789abcdef";
const Z2 = "fedcba9876543210fedcba9876543210";
const R2 = "r2://logs/http/{DATE}?account-id=acc&access-key-id=AKIA2&secret-access-key=SECRET";

const FIELDS: Record<string, Record<string, string>> = {
  http_requests: {
    ClientIP: "IP address of the client",
    ClientRequestHost: "Host requested by the client",
    ClientRequestPath: "URI path requested by the client",
    EdgeResponseStatus: "HTTP status code returned by Cloudflare to the client",
    RayID: "ID of the request",
  },
  firewall_events: {
    Action: "Action",
    ClientIP: "Client IP",
    ClientRequestHTTPHost: "Client Request HTTP Host",
    ClientRequestPath: "Client Request Path",
    RayID: "Ray ID",
  },
};

const job = (over: Partial<DesiredLogpushJob> = {}): DesiredLogpushJob => ({
  name: "http-to-r2",
  dataset: "http_requests",
  destination_conf: R2,
  enabled: true,
  ...over,
});

const live = (id: string, j: DesiredLogpushJob): LiveLogpushJob =>
  normalizeLiveJob({ id: Number(id), ...createBody(j), kind: j.kind ?? "" });

const zone = (jobs: DesiredLogpushJob[], zoneId = Z): DesiredZone => ({
  zone_id: zoneId,
  logs: { prune: true, logpush_jobs: jobs },
});

type Answer = unknown | ((path: string) => unknown);

/** A client answering the destination check `{valid: true}` and each fields path from `fields`. */
function fakeClient(fields: (dataset: string, zoneId: string) => Answer = (d) => FIELDS[d]) {
  const calls: string[] = [];
  const client = {
    async request(method: string, path: string) {
      calls.push(`${method} ${path}`);
      const m = /^zones\/([^/]+)\/logpush\/datasets\/([^/]+)\/fields$/.exec(path);
      if (m) {
        const a = fields(m[2]!, m[1]!);
        if (a instanceof Error) throw a;
        return structuredClone(a);
      }
      if (path.endsWith("/logpush/validate/destination")) return { valid: true };
      throw new Error(`unexpected ${method} ${path}`);
    },
  } as unknown as CloudflareClient;
  const desired = { version: 1 as const, safety: { max_deletes: 5 }, zones: [], secrets: NO_SECRETS, files: [] };
  return { ctx: createReadContext(client, desired), calls };
}

const fieldsGet = (dataset: string, zoneId = Z) => `GET zones/${zoneId}/logpush/datasets/${dataset}/fields`;
const VALIDATE = `POST zones/${Z}/logpush/validate/destination`;

const changesOf = (z: DesiredZone, liveJobs: LiveLogpushJob[] = []): Change[] => {
  const d = logpushJobs.diff(z as never, liveJobs);
  expect(d.errors).toEqual([]);
  return d.changes;
};

describe("the log fields a Logpush write names", () => {
  it("are the filter's keys through and/or at any depth, and output_options.field_names, each once", () => {
    const where = {
      and: [
        { key: "A", operator: "eq", value: 1 },
        { or: [{ key: "B", operator: "eq", value: 2 }, { and: [{ key: "C", operator: "in", value: [1] }] }] },
        { key: "A", operator: "!eq", value: 3 },
      ],
    };
    expect(filterKeys({ where })).toEqual(["A", "B", "C"]);
    expect(filterKeys({ where: {} })).toEqual([]);
    expect(
      fieldsWritten({ filter: JSON.stringify({ where }), output_options: { field_names: ["X", "Y", "X"] } }),
    ).toEqual({ filter: ["A", "B", "C"], field_names: ["X", "Y"] });
    // A filter removed ("") and options without field_names name no field.
    expect(fieldsWritten({ filter: "", output_options: { sample_rate: 0.5 } })).toBeUndefined();
    expect(fieldsWritten({ enabled: false })).toBeUndefined();
  });

  it("suggests close matches, closest first, none when nothing is close", () => {
    const known = Object.keys(FIELDS.firewall_events!);
    expect(closeMatches("ClientRequestHost", known)).toEqual(["ClientRequestHTTPHost", "ClientRequestPath"]);
    expect(closeMatches("clientip", known)).toEqual(["ClientIP"]);
    expect(closeMatches("EdgeResponseStatus", known)).toEqual([]);
  });

  it("takes only an object of field name → description as the fields answer", () => {
    expect([...parseFieldsAnswer({ RayID: "ID", ClientIP: null }, "p")]).toEqual(["RayID", "ClientIP"]);
    const bad: Array<[string, unknown]> = [
      ["null", null],
      ["a list of names", ["RayID", "ClientIP"]],
      ["a string", "RayID,ClientIP"],
      ["an empty object", {}],
      ["a numeric description", { RayID: 1 }],
      ["an object description", { RayID: { description: "ID" } }],
    ];
    for (const [why, res] of bad) expect(() => parseFieldsAnswer(res, "p"), why).toThrow(AnswerShapeError);
    expect(() => parseFieldsAnswer(["RayID"], "zones/z/logpush/datasets/d/fields")).toThrow(
      'the API answered GET zones/z/logpush/datasets/d/fields with ["RayID"], expected an object of field name → ' +
        "description (not an object); the job's fields were not checked and nothing was changed",
    );
  });
});

describe("logpush_job check of the fields", () => {
  it("names the job, the field, the dataset and close matches of every unknown field", async () => {
    const z = zone([
      job({
        name: "fw",
        dataset: "firewall_events",
        filter: {
          where: {
            or: [
              { key: "ClientRequestHost", operator: "eq", value: "example.com" },
              {
                and: [
                  { key: "Action", operator: "eq", value: "block" },
                  { key: "Nope", operator: "eq", value: 1 },
                ],
              },
            ],
          },
        },
        output_options: { field_names: ["RayID", "clientip"] },
      }),
    ]);
    const { ctx, calls } = fakeClient();
    const errors = await logpushJobs.check!(ctx, z as never, changesOf(z));
    const tail = `; the API would refuse the job at apply (GET zones/${Z}/logpush/datasets/firewall_events/fields lists the dataset's fields); nothing was changed`;
    expect(errors).toEqual([
      `logpush job "fw": the filter names "ClientRequestHost", which dataset firewall_events does not have (did you mean ClientRequestHTTPHost, ClientRequestPath?)${tail}`,
      `logpush job "fw": the filter names "Nope", which dataset firewall_events does not have${tail}`,
      `logpush job "fw": output_options.field_names names "clientip", which dataset firewall_events does not have (did you mean ClientIP?)${tail}`,
    ]);
    // The fields first, then the destination.
    expect(calls).toEqual([fieldsGet("firewall_events"), VALIDATE]);
  });

  it("reads each dataset's fields once per run, for every job and zone", async () => {
    const f = { where: { key: "ClientIP", operator: "eq", value: "192.0.2.1" } };
    const a = zone([job({ name: "a", filter: f }), job({ name: "b", output_options: { field_names: ["RayID"] } })]);
    const b = zone([job({ name: "c", filter: f }), job({ name: "d", dataset: "firewall_events", filter: f })], Z2);
    const { ctx, calls } = fakeClient();
    const [ea, eb] = await Promise.all([
      logpushJobs.check!(ctx, a as never, changesOf(a)),
      logpushJobs.check!(ctx, b as never, changesOf(b)),
    ]);
    expect([ea, eb]).toEqual([[], []]);
    expect(calls.filter((c) => c.includes("/fields")).sort()).toEqual([
      fieldsGet("http_requests"),
      fieldsGet("firewall_events", Z2),
    ]);
  });

  it("asks only for changes that write a filter or field_names", async () => {
    const withFilter = job({ filter: { where: { key: "RayID", operator: "eq", value: "x" } } });
    const { ctx, calls } = fakeClient();
    // An update of `enabled` alone, a removed filter, a delete: no fields read.
    const z = zone([job({ name: "on", enabled: false }), job({ name: "drop" })]);
    const changes = changesOf(z, [
      live("1", job({ name: "on" })),
      live("2", { ...withFilter, name: "drop" }),
      live("3", job({ name: "gone" })),
    ]);
    expect(changes.map((c) => c.kind)).toEqual(["update", "update", "delete"]);
    expect(await logpushJobs.check!(ctx, z as never, changes)).toEqual([]);
    expect(calls).toEqual([]);
    // An update that sets a filter asks, and asks nothing about the unchanged destination.
    const z2 = zone([withFilter]);
    expect(await logpushJobs.check!(ctx, z2 as never, changesOf(z2, [live("1", job())]))).toEqual([]);
    expect(calls).toEqual([fieldsGet("http_requests")]);
  });

  it("reports a refused fields read as an error of that job only, with what to do", async () => {
    const denied = new ApiError("GET zones/…/fields: 403 Forbidden (code 10000: Authentication error)", {
      status: 403,
      method: "GET",
      path: "fields",
      errors: [{ code: 10000, message: "Authentication error" }],
      retryable: false,
      envelope: true,
    });
    const { ctx, calls } = fakeClient((d) => (d === "dns_logs" ? denied : FIELDS[d]));
    const z = zone([
      job({ name: "dns", dataset: "dns_logs", output_options: { field_names: ["QueryName"] } }),
      job({ name: "http", filter: { where: { key: "Bogus", operator: "eq", value: 1 } } }),
    ]);
    const errors = await logpushJobs.check!(ctx, z as never, changesOf(z));
    expect(errors).toHaveLength(2);
    expect(errors[0]).toBe(
      'logpush job "dns": could not read the fields of dataset dns_logs to check the output_options.field_names ' +
        "(GET zones/…/fields: 403 Forbidden (code 10000: Authentication error)); nothing was changed: give the " +
        'API token "Logs: Edit" on this zone (the fields list needs it), then run plan again',
    );
    expect(errors[1]).toMatch(/^logpush job "http": the filter names "Bogus", which dataset http_requests/);
    // Both destinations were still checked.
    expect(calls.filter((c) => c === VALIDATE)).toHaveLength(2);
  });

  it("reads again for its own zone a dataset's fields another zone could not read", async () => {
    const notFound = new ApiError("404", {
      status: 404,
      method: "GET",
      path: "fields",
      errors: [],
      retryable: false,
      envelope: true,
    });
    const { ctx, calls } = fakeClient((d, zid) => (zid === Z ? notFound : FIELDS[d]));
    const f = { where: { key: "RayID", operator: "eq", value: "x" } };
    const a = zone([job({ filter: f })]);
    const b = zone([job({ filter: f })], Z2);
    const ea = await logpushJobs.check!(ctx, a as never, changesOf(a));
    expect(ea[0]).toMatch(/check the dataset name \(http_requests\) and that the zone has Logpush/);
    expect(await logpushJobs.check!(ctx, b as never, changesOf(b))).toEqual([]);
    // And a zone whose read failed does not read twice.
    expect(await logpushJobs.check!(ctx, a as never, changesOf(a))).toEqual(ea);
    expect(calls.filter((c) => c.includes("/fields"))).toEqual([
      fieldsGet("http_requests"),
      fieldsGet("http_requests", Z2),
    ]);
  });

  it("fails the check with AnswerShapeError on a fields answer of the wrong shape, never coercing", async () => {
    const { ctx } = fakeClient(() => ["RayID", "ClientIP"]);
    const z = zone([job({ output_options: { field_names: ["RayID"] } })]);
    await expect(logpushJobs.check!(ctx, z as never, changesOf(z))).rejects.toThrow(AnswerShapeError);
  });
});
