import { describe, expect, it } from "vitest";
import type { CloudflareClient } from "../../../src/cloudflare/types.js";
import { createReadContext } from "../../../src/engine/read.js";
import { AnswerShapeError } from "../../../src/errors.js";
import type { DesiredLogpushJob, LogpushFilter } from "../../../src/sections/logpush_jobs/index.js";
import type { DesiredZone } from "../../../src/sections/index.js";
import type { Change } from "../../../src/model/plan.js";
import { planForDisplay, planForFile } from "../../../src/plan/secrets.js";
import { createBody, updateBody } from "../../../src/sections/logpush_jobs/job-changes.js";
import { logpushJobs } from "../../../src/sections/logpush_jobs/logpush-jobs.js";
import {
  comparableOutputOptions,
  describeFilter,
  filterFromWire,
  filtersEqual,
  needsOwnershipChallenge,
  normalizeLiveJob,
  outputOptionsFromLogpull,
  outputOptionsToSend,
  diffOutputOptions,
  redactDestinationSecrets,
  stripDestinationSecrets,
  destinationSecretValues,
  type LiveLogpushJob,
} from "../../../src/sections/logpush_jobs/live.js";
import type { ReadContext } from "../../../src/sections/types.js";
import { parseConfigText } from "../../../src/config/index.js";
import { ConfigError } from "../../../src/errors.js";
import { recorded, recordedResult } from "../recorded.js";
import { EnvSecrets, NO_SECRETS } from "../../../src/secrets/index.js";
import { shownTemplate } from "../../../src/template.js";

const Z = "0123456789abcdef0123456789abcdef";
const SECRET = "wJalrXUtnFEMIK7MDENGbPxRfiCYEXAMPLEKEY";
const CHALLENGE = "c0ffee-challenge-token";
const S3 = `s3://logs/{DATE}?region=us-east-1&access-key-id=AKIAEXAMPLE&secret-access-key=${SECRET}`;
const R2 = `r2://logs/http/{DATE}?account-id=acc&access-key-id=AKIA2&secret-access-key=${SECRET}`;

const filterAB: LogpushFilter = {
  where: {
    and: [
      { key: "ClientRequestHost", operator: "eq", value: "example.com" },
      {
        or: [
          { key: "ClientRequestPath", operator: "contains", value: "/api" },
          { key: "EdgeResponseStatus", operator: "geq", value: 500 },
        ],
      },
    ],
  },
};

const job = (over: Partial<DesiredLogpushJob> = {}): DesiredLogpushJob => ({
  name: "http-to-r2",
  dataset: "http_requests",
  destination_conf: R2,
  enabled: true,
  ...over,
});

/** A live job as the emulator would store it for `j`. */
const live = (id: string, j: DesiredLogpushJob, raw: Record<string, unknown> = {}): LiveLogpushJob =>
  normalizeLiveJob({ id: Number(id), ...createBody(j), kind: j.kind ?? "", ...raw });

const zone = (jobs: DesiredLogpushJob[] | undefined, prune = true): DesiredZone => ({
  zone_id: Z,
  logs: { prune, ...(jobs ? { logpush_jobs: jobs } : {}) },
});

describe("logpush filters compared by meaning", () => {
  it("treats key order, whitespace and every spelling of 'no filter' as equal", () => {
    const reordered = JSON.stringify(
      {
        where: {
          and: [
            { value: "example.com", operator: "eq", key: "ClientRequestHost" },
            {
              or: [
                { operator: "contains", key: "ClientRequestPath", value: "/api" },
                { value: 500, key: "EdgeResponseStatus", operator: "geq" },
              ],
            },
          ],
        },
      },
      null,
      2,
    );
    expect(filtersEqual(filterAB, filterFromWire(reordered).filter)).toBe(true);
    for (const none of [null, undefined, "", "  ", '{"where":{}}', '{ "where": {} }', { where: {} }]) {
      expect(filterFromWire(none).filter).toBeUndefined();
      expect(filtersEqual(undefined, filterFromWire(none).filter)).toBe(true);
    }
    expect(filtersEqual({ where: {} }, undefined)).toBe(true);
  });

  it("sees a different value, operator or grouping as a change", () => {
    const other: LogpushFilter = {
      where: {
        or: [
          {
            and: [
              { key: "ClientRequestHost", operator: "eq", value: "example.com" },
              { key: "ClientRequestPath", operator: "contains", value: "/api" },
            ],
          },
          { key: "EdgeResponseStatus", operator: "geq", value: 500 },
        ],
      },
    };
    expect(filtersEqual(filterAB, other)).toBe(false);
    expect(filtersEqual(filterAB, undefined)).toBe(false);
  });

  it("shows a filter as readable conditions, grouping nested ones", () => {
    expect(describeFilter(filterAB)).toBe(
      'ClientRequestHost eq "example.com" and (ClientRequestPath contains "/api" or EdgeResponseStatus geq 500)',
    );
    expect(
      describeFilter({
        where: {
          or: [
            {
              and: [
                { key: "A", operator: "eq", value: 1 },
                { key: "B", operator: "in", value: ["x", "y"] },
              ],
            },
            { key: "C", operator: "!eq", value: true },
          ],
        },
      }),
    ).toBe('(A eq 1 and B in ["x","y"]) or C !eq true');
    expect(describeFilter({ where: {} })).toBeUndefined();
  });

  it("keeps a live filter that is not JSON and always offers to replace it", () => {
    expect(filterFromWire("{not json")).toEqual({ unparsed: "{not json" });
    const l = normalizeLiveJob({ id: 1, ...createBody(job()), filter: "{not json" });
    const { changes } = logpushJobs.diff(zone([job()]), [l]);
    expect(changes[0]!.fields).toEqual([{ field: "filter", before: "{not json", after: undefined }]);
    // Removed with "", never null (the API's filter is a non-nullable string), beside the fields the
    // file manages (the whole job but its destination).
    expect(changes[0]!.operations[0]!.body).toEqual({ name: "http-to-r2", enabled: true, filter: "" });
    // Replaced by the file's own filter when it has one.
    const withFilter = logpushJobs.diff(zone([job({ filter: filterAB })]), [l]).changes[0]!;
    expect(withFilter.operations[0]!.body).toEqual({
      name: "http-to-r2",
      enabled: true,
      filter: createBody(job({ filter: filterAB })).filter,
    });
  });
});

describe("logpush output_options", () => {
  it("fills the API's defaults, so defaults never diff, and reads the 2024 CVE key typo", () => {
    const given = { field_names: ["RayID"], timestamp_format: "rfc3339" };
    const apiStored = {
      "CVE-2021-4428": false,
      batch_prefix: "",
      batch_suffix: "",
      field_delimiter: ",",
      field_names: ["RayID"],
      merge_subrequests: false,
      output_type: "ndjson",
      record_delimiter: "",
      record_prefix: "{",
      record_suffix: "}\n",
      record_template: "",
      sample_rate: 1,
      timestamp_format: "rfc3339",
    };
    expect(comparableOutputOptions(given)).toEqual(comparableOutputOptions(apiStored));
    expect(comparableOutputOptions(apiStored)["CVE-2021-44228"]).toBe(false);
    expect(comparableOutputOptions({ output_type: "csv" })).toMatchObject({ record_prefix: "", record_suffix: "\n" });
    expect(comparableOutputOptions({ sample_rate: null, field_names: ["A"] }).sample_rate).toBe(1);
  });

  it(
    "updates options that differ with the file's options plus, as defaults, the live ones it leaves out; " +
      "shows only what differs",
    () => {
      const want = job({ output_options: { field_names: ["RayID", "ClientIP"], sample_rate: 0.1 } });
      const l = live("7", job({ output_options: { field_names: ["RayID", "ClientIP"], timestamp_format: "rfc3339" } }));
      expect(l.output_options).toEqual({ field_names: ["RayID", "ClientIP"], timestamp_format: "rfc3339" });
      const { changes } = logpushJobs.diff(zone([want]), [l]);
      expect(changes[0]!.fields).toEqual([
        { field: "output_options.timestamp_format", before: "rfc3339", after: "unixnano" },
        { field: "output_options.sample_rate", before: 1, after: 0.1 },
      ]);
      // output_options whole, and no default the job does not need; beside them the fields the file manages.
      expect(changes[0]!.operations[0]!.body).toEqual({
        name: "http-to-r2",
        enabled: true,
        output_options: { field_names: ["RayID", "ClientIP"], sample_rate: 0.1, timestamp_format: "unixnano" },
      });
    },
  );

  it("sends no output_options when the file does not manage them: a PUT keeps what it does not carry", () => {
    const l = live("7", job({ output_options: { field_names: ["RayID"], sample_rate: 0.5 } }));
    expect(updateBody(job({ enabled: false }), l)).toEqual({ name: "http-to-r2", enabled: false });
    expect(logpushJobs.diff(zone([job({ enabled: false })]), [l]).changes[0]!.operations[0]!.body).toEqual({
      name: "http-to-r2",
      enabled: false,
    });
  });

  it("compares absent options as the service's defaults, both ways", () => {
    const held = live(
      "7",
      job({
        output_options: { field_names: ["RayID"], timestamp_format: "unixnano", sample_rate: 1, output_type: "ndjson" },
      }),
    );
    expect(logpushJobs.diff(zone([job({ output_options: { field_names: ["RayID"] } })]), [held]).changes).toEqual([]);
    const bare = live("8", job({ output_options: { field_names: ["RayID"] } }));
    expect(
      logpushJobs.diff(
        zone([
          job({ output_options: { field_names: ["RayID"], timestamp_format: "unixnano", "CVE-2021-44228": false } }),
        ]),
        [bare],
      ).changes,
    ).toEqual([]);
    // A job that holds no options at all equals a file whose options are all defaults.
    const none = live("9", job());
    expect(none.output_options).toBeUndefined();
    expect(logpushJobs.diff(zone([job({ output_options: { sample_rate: 1 } })]), [none]).changes).toEqual([]);
  });

  it(
    "computes the PUT's output_options: the file's, plus the default of each omitted option the job holds " +
      "with another value",
    () => {
      const liveOptions = {
        field_names: ["RayID"],
        timestamp_format: "rfc3339",
        sample_rate: 1,
        output_type: "ndjson",
        merge_subrequests: true,
        "CVE-2021-4428": true,
        batch_prefix: "[",
        some_future_option: "x",
        record_template: null,
      };
      expect(outputOptionsToSend({ field_names: ["RayID", "ClientIP"], sample_rate: 0.5 }, liveOptions)).toEqual({
        field_names: ["RayID", "ClientIP"],
        sample_rate: 0.5,
        // Held with another value than the default, and omitted by the file: sent as the default.
        timestamp_format: "unixnano",
        merge_subrequests: false,
        "CVE-2021-44228": false,
        batch_prefix: "",
        // An option zoneform does not know, as the job holds it: a PUT replaces output_options whole
        // (the shared spec real-answers.md "Logpush options"), so left out it would be lost.
        some_future_option: "x",
      });
      // Not stated by the file and unknown to zoneform: never a difference.
      expect(
        diffOutputOptions(
          {
            field_names: ["RayID"],
            timestamp_format: "rfc3339",
            sample_rate: 1,
            output_type: "ndjson",
            merge_subrequests: true,
            "CVE-2021-44228": true,
            batch_prefix: "[",
          },
          liveOptions,
        ),
      ).toEqual([]);
      expect(diffOutputOptions({ some_future_option: "y" }, liveOptions)).toContain("some_future_option");
      // CSV framing defaults follow the file's output_type.
      expect(outputOptionsToSend({ output_type: "csv" }, { record_prefix: "{", record_suffix: "}\n" })).toEqual({
        output_type: "csv",
        record_prefix: "",
        record_suffix: "\n",
      });
      expect(outputOptionsToSend({ field_names: ["A"], sample_rate: null }, undefined)).toEqual({ field_names: ["A"] });
    },
  );

  it("reads the legacy logpull_options string as the output_options it means", () => {
    expect(outputOptionsFromLogpull("fields=RayID,ClientIP,EdgeStartTimestamp&timestamps=rfc3339")).toEqual({
      options: { field_names: ["RayID", "ClientIP", "EdgeStartTimestamp"], timestamp_format: "rfc3339" },
      unknown: [],
    });
    expect(outputOptionsFromLogpull("?fields=RayID&sample=0.1&CVE-2021-44228=true&timestamps=unix&future=1")).toEqual({
      options: { field_names: ["RayID"], sample_rate: 0.1, "CVE-2021-44228": true, timestamp_format: "unix" },
      unknown: ["future"],
    });
    expect(outputOptionsFromLogpull("fields=&sample=often")).toEqual({
      options: { field_names: [] },
      unknown: ["sample"],
    });
    expect(outputOptionsFromLogpull("fields=Client%20IP")).toEqual({
      options: { field_names: ["Client IP"] },
      unknown: [],
    });
  });
});

describe("logpush_job diff", () => {
  it("creates a missing job with a POST of the file's fields, the filter as compact JSON", () => {
    const want = job({
      filter: filterAB,
      output_options: { field_names: ["RayID"] },
      max_upload_records: 5000,
      kind: "",
    });
    const { changes, errors } = logpushJobs.diff(zone([want]), []);
    expect(errors).toEqual([]);
    expect(changes).toHaveLength(1);
    expect(changes[0]).toMatchObject({ kind: "create", identity: "http-to-r2", resource: "logpush_job" });
    const op = changes[0]!.operations[0]!;
    expect(op).toMatchObject({ method: "POST", path: `zones/${Z}/logpush/jobs` });
    const body = op.body as Record<string, unknown>;
    expect(body).toMatchObject({
      name: "http-to-r2",
      dataset: "http_requests",
      destination_conf: R2,
      enabled: true,
      kind: "",
      max_upload_records: 5000,
    });
    expect(body.filter).toBe(
      '{"where":{"and":[{"key":"ClientRequestHost","operator":"eq","value":"example.com"},{"or":[{"key":"ClientRequestPath","operator":"contains","value":"/api"},{"key":"EdgeResponseStatus","operator":"geq","value":500}]}]}}',
    );
    // output_options as the file gives them: no defaults filled in.
    expect(body.output_options).toEqual({ field_names: ["RayID"] });
    expect(createBody(job())).toEqual({
      name: "http-to-r2",
      dataset: "http_requests",
      destination_conf: R2,
      enabled: true,
    });
    expect(createBody(job({ filter: { where: {} } }))).not.toHaveProperty("filter");
    expect(
      createBody(job({ output_options: { sample_rate: 0.5, timestamp_format: null, "CVE-2021-4428": true } }))
        .output_options,
    ).toEqual({
      sample_rate: 0.5,
      "CVE-2021-44228": true,
    });
  });

  it("shows no change for a live job equal by meaning", () => {
    const want = job({ filter: filterAB, output_options: { field_names: ["RayID"] } });
    const l = normalizeLiveJob({
      id: 3,
      name: "http-to-r2",
      dataset: "http_requests",
      destination_conf: R2,
      enabled: true,
      kind: "",
      filter: JSON.stringify({
        where: {
          and: [
            { value: "example.com", key: "ClientRequestHost", operator: "eq" },
            {
              or: [
                { key: "ClientRequestPath", operator: "contains", value: "/api" },
                { key: "EdgeResponseStatus", operator: "geq", value: 500 },
              ],
            },
          ],
        },
      }),
      output_options: { ...comparableOutputOptions({ field_names: ["RayID"] }), merge_subrequests: false },
      max_upload_bytes: null,
      max_upload_records: null,
      max_upload_interval_seconds: null,
      error_message: null,
      last_complete: null,
    });
    expect(logpushJobs.diff(zone([want]), [l]).changes).toEqual([]);
  });

  it("updates each mutable field in place with a PUT to the job id", () => {
    const base = job({ filter: filterAB, max_upload_bytes: 5_000_000 });
    const l = live("12", base);
    const cases: Array<[Partial<DesiredLogpushJob>, string]> = [
      [{ enabled: false }, "enabled"],
      [{ filter: undefined }, "filter"],
      [{ max_upload_bytes: 10_000_000 }, "max_upload_bytes"],
      [{ max_upload_interval_seconds: 60 }, "max_upload_interval_seconds"],
      [{ max_upload_records: 2000 }, "max_upload_records"],
      [{ destination_conf: R2.replace("logs/http", "logs/web") }, "destination_conf"],
      [{ output_options: { field_names: ["RayID"] } }, "output_options.field_names"],
    ];
    for (const [over, field] of cases) {
      const { changes } = logpushJobs.diff(zone([{ ...base, ...over }]), [l]);
      expect(changes, field).toHaveLength(1);
      expect(changes[0]!.kind).toBe("update");
      expect(changes[0]!.fields.map((f) => f.field)).toEqual([field]);
      expect(changes[0]!.operations).toEqual([
        { method: "PUT", path: `zones/${Z}/logpush/jobs/12`, body: expect.any(Object) },
      ]);
    }
  });

  it("PUTs every field the file manages, changed or not, and the destination only when it changes", () => {
    const base = job({ filter: filterAB, max_upload_bytes: 5_000_000 });
    const l = live("12", base);
    const wire = createBody(base).filter;
    // What every PUT of this job carries: the file's values, the live job's where the file agrees.
    const all = { name: "http-to-r2", enabled: true, filter: wire, max_upload_bytes: 5_000_000 };
    const bodies: Array<[Partial<DesiredLogpushJob>, Record<string, unknown>]> = [
      [{ enabled: false }, { ...all, enabled: false }],
      // A dropped filter is sent as "", never null.
      [{ filter: undefined }, { ...all, filter: "" }],
      [{ filter: { where: {} } }, { ...all, filter: "" }],
      [{ max_upload_bytes: 10_000_000 }, { ...all, max_upload_bytes: 10_000_000 }],
      [{ max_upload_records: 2000 }, { ...all, max_upload_records: 2000 }],
      [
        { destination_conf: R2.replace("logs/http", "logs/web") },
        { ...all, destination_conf: R2.replace("logs/http", "logs/web") },
      ],
      [{ output_options: { field_names: ["RayID"] } }, { ...all, output_options: { field_names: ["RayID"] } }],
      [
        { enabled: false, max_upload_interval_seconds: 60 },
        { ...all, enabled: false, max_upload_interval_seconds: 60 },
      ],
      [{ filter_attack_traffic: true }, { ...all, filter_attack_traffic: true }],
    ];
    for (const [over, body] of bodies) {
      const { changes } = logpushJobs.diff(zone([{ ...base, ...over }]), [l]);
      expect(changes[0]!.operations[0]!.body, JSON.stringify(over)).toEqual(body);
      expect(updateBody({ ...base, ...over }, l)).toEqual(body);
    }
    // Upload limits the file leaves out are not managed, nor is filter_attack_traffic.
    expect(logpushJobs.diff(zone([job({ filter: filterAB })]), [l]).changes).toEqual([]);
    expect(
      logpushJobs.diff(zone([job({ filter: filterAB })]), [{ ...l, filter_attack_traffic: true }]).changes,
    ).toEqual([]);
  });

  it("replaces a job whose kind changed: POST the new one, then DELETE the old", () => {
    const l = live("5", job());
    const c = logpushJobs.diff(zone([job({ kind: "edge", enabled: false })]), [l]).changes;
    expect(c).toHaveLength(1);
    expect(c[0]).toMatchObject({ kind: "replace", live_id: "5" });
    expect(c[0]!.fields[0]).toEqual({ field: "kind", before: "", after: "edge" });
    expect(c[0]!.fields.map((f) => f.field)).toContain("enabled");
    expect(c[0]!.operations.map((o) => `${o.method} ${o.path}`)).toEqual([
      `POST zones/${Z}/logpush/jobs`,
      `DELETE zones/${Z}/logpush/jobs/5`,
    ]);
    expect(c[0]!.summary).toMatch(/created before job 5 is deleted/);
    // A file that does not say `kind` does not manage it.
    expect(logpushJobs.diff(zone([job()]), [live("5", job(), { kind: "edge" })]).changes).toEqual([]);
  });

  it(
    "matches by name AND dataset: two live jobs named example.com (one per dataset), one declared, prune " +
      "false: no write",
    () => {
      const http = job({ name: "example.com" });
      const spectrum = job({ name: "example.com", dataset: "spectrum_events" });
      const lives = [live("1", http), live("2", spectrum)];
      expect(logpushJobs.diff(zone([http], false), lives)).toEqual({ changes: [], errors: [], warnings: [] });
      expect(logpushJobs.diff(zone([spectrum], false), lives)).toEqual({ changes: [], errors: [], warnings: [] });
      expect(logpushJobs.diff(zone([http, spectrum]), lives)).toEqual({ changes: [], errors: [], warnings: [] });
      // With prune on, the job the file does not declare is deleted (it is unmatched, not a "duplicate").
      expect(logpushJobs.diff(zone([http]), lives).changes.map((c) => [c.kind, c.live_id])).toEqual([["delete", "2"]]);
    },
  );

  it("stops on a name and dataset two live jobs share, whatever prune says; a pin picks one", () => {
    const want = job();
    const lives = [live("1", job({ enabled: false })), live("2", want), live("3", job({ name: "old" }))];
    for (const prune of [true, false]) {
      const { changes, errors } = logpushJobs.diff(zone([want], prune), lives);
      expect(changes.filter((c) => c.live_id !== "3")).toEqual([]);
      expect(errors).toEqual([
        'Logpush job "http-to-r2" (dataset http_requests) matches 2 live Logpush jobs: id 1 (name ' +
          '"http-to-r2", dataset http_requests, disabled); id 2 (name "http-to-r2", dataset http_requests). ' +
          "zoneform does not guess which one the file means: pin the one the file means with `id: <id>` " +
          "under the entry (e.g. `id: 1`), and declare or delete the others; nothing in this zone " +
          "is changed.",
      ]);
    }
    const pinned = logpushJobs.diff(zone([{ ...job({ enabled: false }), id: "1" }], false), lives);
    expect(pinned).toEqual({ changes: [], errors: [], warnings: [] });
    const pinned2 = logpushJobs.diff(zone([{ ...job({ enabled: false }), id: "2" }], true), lives);
    expect(pinned2.changes.map((c) => [c.kind, c.live_id])).toEqual([
      ["update", "2"],
      ["delete", "1"],
      ["delete", "3"],
    ]);
  });

  it(
    "takes a job of the same name but another dataset for another job: created beside it, deleted only " + "with prune",
    () => {
      const lives = [live("1", job({ dataset: "firewall_events" }))];
      expect(logpushJobs.diff(zone([job()], false), lives).changes.map((c) => [c.kind, c.live_id])).toEqual([
        ["create", undefined],
      ]);
      expect(logpushJobs.diff(zone([job()], true), lives).changes.map((c) => [c.kind, c.live_id])).toEqual([
        ["create", undefined],
        ["delete", "1"],
      ]);
      // A pinned job whose dataset differs cannot be replaced under its pin.
      const pinned = logpushJobs.diff(zone([{ ...job(), id: "1" }]), lives);
      expect(pinned.changes).toEqual([]);
      expect(pinned.errors![0]).toContain(
        'pins id 1, whose dataset cannot change in place (live: dataset "firewall_events"); remove the `id:`',
      );
    },
  );

  it(
    "creates with a finder that knows the ids read and the content sent (no ownership challenge), the " +
      "filter compared as JSON",
    () => {
      const want = job({ destination_conf: S3, ownership_challenge: CHALLENGE, filter: filterAB });
      const { changes } = logpushJobs.diff(zone([want], false), [live("7", job({ name: "other" }))]);
      const { ownership_challenge: _c, ...sent } = createBody(want);
      expect(changes[0]!.operations).toEqual([
        {
          method: "POST",
          path: `zones/${Z}/logpush/jobs`,
          body: createBody(want),
          finds: {
            path: `zones/${Z}/logpush/jobs`,
            match: { name: "http-to-r2", dataset: "http_requests" },
            known: ["7"],
            equals: sent,
            compare: { filter: "json" },
          },
        },
      ]);
    },
  );

  it("reads a live list that names one job twice once: no keep-and-delete of one id, with or without prune", () => {
    const l = live("5", job());
    for (const prune of [true, false]) {
      const r = logpushJobs.diff(zone([job()], prune), [l, { ...l }]);
      expect(r.changes).toEqual([]);
      expect(r.errors).toEqual([]);
    }
    expect(logpushJobs.diff(zone([], false), [l, { ...l }]).changes).toEqual([]);
  });

  it("does not own jobs when the file does not list them", () => {
    expect(logpushJobs.owns(zone(undefined))).toBe(false);
    expect(logpushJobs.owns(zone([]))).toBe(true);
    expect(logpushJobs.owns({ zone_id: Z })).toBe(false);
  });
});

describe("ownership challenge", () => {
  it("needs one for s3, gs and azure only", () => {
    for (const d of ["s3://b/p", "gs://b/p", "azure://c/p?sig=x"]) expect(needsOwnershipChallenge(d)).toBe(true);
    for (const d of ["r2://b/p", "https://h/p", "datadog://h", "splunk://h", "sumo://h"])
      expect(needsOwnershipChallenge(d)).toBe(false);
  });

  it("makes a create without one a plan error that says what to run, without the credentials", () => {
    const { errors } = logpushJobs.diff(zone([job({ name: "to-s3", destination_conf: S3 })]), []);
    expect(errors).toHaveLength(1);
    expect(errors![0]).toContain(
      `zoneform logpush challenge --zone ${Z} --destination 's3://logs/{DATE}?region=us-east-1'`,
    );
    expect(shownTemplate(errors![0]!)).toContain("ownership_challenge: ${env:LOGPUSH_CHALLENGE}");
    expect(errors![0]).not.toContain(SECRET);
    expect(errors![0]).not.toContain("AKIAEXAMPLE");
    expect(logpushJobs.diff(zone([job({ destination_conf: S3, ownership_challenge: CHALLENGE })]), []).errors).toEqual(
      [],
    );
  });

  it("asks for one when the destination changes, sends it with the PUT, and not otherwise", () => {
    const l = live("4", job({ destination_conf: S3, ownership_challenge: CHALLENGE }));
    const moved = S3.replace("s3://logs/", "s3://logs2/");
    expect(logpushJobs.diff(zone([job({ destination_conf: moved })]), [l]).errors).toHaveLength(1);
    const { changes, errors } = logpushJobs.diff(
      zone([job({ destination_conf: moved, ownership_challenge: CHALLENGE })]),
      [l],
    );
    expect(errors).toEqual([]);
    expect((changes[0]!.operations[0]!.body as Record<string, unknown>).ownership_challenge).toBe(CHALLENGE);
    expect(changes[0]!.fields).toContainEqual({ field: "ownership_challenge", after: CHALLENGE, sensitive: true });
    const same = logpushJobs.diff(
      zone([job({ destination_conf: S3, ownership_challenge: CHALLENGE, enabled: false })]),
      [l],
    );
    expect(same.changes[0]!.operations[0]!.body).not.toHaveProperty("ownership_challenge");
    expect(logpushJobs.diff(zone([job({ destination_conf: S3, enabled: false })]), [l]).errors).toEqual([]);
  });
});

describe("secrets in logpush changes", () => {
  const plan = (changes: Change[]) => ({
    format_version: 5 as const,
    created_at: "2025-01-01T00:00:00Z",
    zones: [{ zone_id: Z, changes, fingerprints: {}, errors: [], warnings: [] }],
    summary: { create: 0, update: 0, replace: 0, delete: 0 },
  });

  it("shows destinations with bucket and region but not credentials in field diffs", () => {
    const l = live("4", job({ destination_conf: S3.replace(SECRET, "old-secret-value") }));
    const { changes } = logpushJobs.diff(zone([job({ destination_conf: S3, ownership_challenge: CHALLENGE })]), [l]);
    const f = changes[0]!.fields.find((x) => x.field === "destination_conf")!;
    expect(f.after).toBe("s3://logs/{DATE}?region=us-east-1&access-key-id=(sensitive)&secret-access-key=(sensitive)");
    expect(JSON.stringify(changes[0]!.fields)).not.toContain("old-secret-value");
    expect(changes[0]!.notes?.[0]).toMatch(/credentials in destination_conf differ/);
  });

  it("keeps every secret out of the displayed plan and the plan file", () => {
    // As the engine plans: the desired state holds references, the live jobs are read in template syntax.
    const env = { AWS_SECRET: SECRET, LOGPUSH_CHALLENGE: CHALLENGE };
    const holder = { secrets: new EnvSecrets(env, Object.keys(env)) };
    const S3_REF = S3.replace(SECRET, "${env:AWS_SECRET}");
    const l = holder.secrets.templatize([live("4", job({ destination_conf: S3.replace(SECRET, "live-only-secret") }))]);
    const d = logpushJobs.diff(
      zone([
        job({ destination_conf: S3_REF, ownership_challenge: "${env:LOGPUSH_CHALLENGE}" }),
        job({ name: "new", destination_conf: S3_REF, ownership_challenge: "${env:LOGPUSH_CHALLENGE}" }),
      ]),
      l,
    );
    const shown = JSON.stringify(planForDisplay(plan(d.changes), holder));
    const file = JSON.stringify(planForFile(plan(d.changes), holder));
    for (const text of [shown, file]) {
      expect(text).not.toContain(SECRET);
      expect(text).not.toContain(CHALLENGE);
      expect(text).not.toContain("live-only-secret");
    }
    expect(file).toContain("${env:AWS_SECRET}");
    expect(file).toContain("${env:LOGPUSH_CHALLENGE}");
    expect(shown).toContain("region=us-east-1");
    expect(shown).not.toContain("${env:");
  });

  it("scrubs credentials from API messages and strips them from suggested commands", () => {
    expect(redactDestinationSecrets(`cannot write with key ${SECRET} to ${S3}`, S3)).toBe(
      "cannot write with key (sensitive) to " +
        "s3://logs/{DATE}?region=us-east-1&access-key-id=(sensitive)&secret-access-key=(sensitive)",
    );
    expect(stripDestinationSecrets("azure://c/p?sv=2022&sig=abc%2Bdef&se=x")).toBe("azure://c/p?sv=2022&se=x");
    expect(stripDestinationSecrets("https://h/p?header_Authorization=Basic%20xyz")).toBe("https://h/p");
  });

  it("finds credentials as destinationCredentials does: user info, token path segments, token values", () => {
    const TOKEN = "Zx9vQ2mR7tLk4PwY8nB3";
    // A copy command never shows user info, whether a password or a token.
    expect(stripDestinationSecrets("s3://AKIAEXAMPLE:s3cr3t-pass@logs/{DATE}?region=us-east-1")).toBe(
      "s3://logs/{DATE}?region=us-east-1",
    );
    expect(stripDestinationSecrets(`gs://${TOKEN}@logs/x`)).toBe("gs://logs/x");
    expect(stripDestinationSecrets("azure://admin:hunter22@c/p?sv=2022")).toBe("azure://c/p?sv=2022");
    // A path segment that looks like a token is shown for the user to put back; a value that looks
    // like one goes with its parameter, whatever its name.
    expect(stripDestinationSecrets(`s3://logs/${"a1".repeat(16)}/{DATE}?region=eu&x=${TOKEN}&y=1`)).toBe(
      "s3://logs/(sensitive)/{DATE}?region=eu&y=1",
    );
    expect(stripDestinationSecrets("s3://logs/{DATE}?sig=abc&region=eu")).toBe("s3://logs/{DATE}?region=eu");
    expect(stripDestinationSecrets("s3://logs/{DATE}?region=eu")).toBe("s3://logs/{DATE}?region=eu");

    const dest = `https://${TOKEN}:pw%21x@collector.example/in/${"f".repeat(32)}?key=k3y&n=1`;
    expect(destinationSecretValues(dest).sort()).toEqual(
      [`${TOKEN}:pw%21x`, `${TOKEN}:pw!x`, TOKEN, "pw%21x", "pw!x", "f".repeat(32), "k3y"].sort(),
    );
    expect(redactDestinationSecrets(`401 for ${TOKEN} and pw!x at in/${"f".repeat(32)}`, dest)).toBe(
      "401 for (sensitive) and (sensitive) at in/(sensitive)",
    );
    expect(destinationSecretValues("https://user:secretpw@h/in")).toEqual(["secretpw"]);
  });
});

describe("logpush_job check", () => {
  const fakeCtx = (answers: Record<string, unknown>) => {
    const calls: Array<{ method: string; path: string; body: unknown }> = [];
    const ctx = {
      client: {
        request: async (method: string, path: string, opts?: { body?: unknown }) => {
          calls.push({ method, path, body: opts?.body });
          return answers[path.split("/logpush/")[1]!];
        },
      },
    } as unknown as ReadContext;
    return { ctx, calls };
  };

  it("validates the destination of creates and destination changes, and the ownership token", async () => {
    const z = zone([job({ destination_conf: S3, ownership_challenge: CHALLENGE }), job({ name: "b" })]);
    const { changes } = logpushJobs.diff(z, [live("2", job({ name: "b", enabled: false }))]);
    const { ctx, calls } = fakeCtx({
      "validate/destination": { valid: true, message: "" },
      "ownership/validate": { valid: true },
    });
    expect(await logpushJobs.check!(ctx, z, changes)).toEqual([]);
    expect(calls.map((c) => c.path)).toEqual([
      `zones/${Z}/logpush/validate/destination`,
      `zones/${Z}/logpush/ownership/validate`,
    ]);
    expect(calls[0]!.body).toEqual({ destination_conf: S3 });
  });

  it("reports a bad destination as a plan error naming the job, secrets hidden", async () => {
    const z = zone([job({ name: "bad", destination_conf: S3, ownership_challenge: CHALLENGE })]);
    const { changes } = logpushJobs.diff(z, []);
    const { ctx } = fakeCtx({ "validate/destination": { valid: false, message: `access denied for ${S3}` } });
    const errors = await logpushJobs.check!(ctx, z, changes);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(
      /^logpush job "bad": the destination s3:\/\/logs\/\{DATE\}\?region=us-east-1&.* is not valid: access denied/,
    );
    expect(errors[0]).not.toContain(SECRET);
  });

  it("reports an ownership token that does not match", async () => {
    const z = zone([job({ destination_conf: S3, ownership_challenge: CHALLENGE })]);
    const { changes } = logpushJobs.diff(z, []);
    const { ctx } = fakeCtx({ "validate/destination": { valid: true }, "ownership/validate": { valid: false } });
    const errors = await logpushJobs.check!(ctx, z, changes);
    expect(errors[0]).toMatch(/ownership_challenge is not the token/);
    expect(errors[0]).not.toContain(CHALLENGE);
  });
});

describe("logpush jobs as the real API answers them", () => {
  /** Reads `result` through the kind's own read, as plan does. */
  const read = async (result: unknown) => {
    // The whole list, as the client's strict listAll hands it over (its paging is tested with the client).
    const client = {
      async listAll(path: string) {
        if (path !== `zones/${Z}/logpush/jobs`) throw new Error(`unexpected GET ${path}`);
        return structuredClone(result);
      },
    } as unknown as CloudflareClient;
    const desired = { version: 1 as const, safety: { max_deletes: 5 }, zones: [], secrets: NO_SECRETS, files: [] };
    return (await logpushJobs.read(createReadContext(client, desired), zone([]))).live;
  };
  const LEGACY = "fields=RayID,ClientIP,EdgeStartTimestamp&timestamps=rfc3339";
  const recordedFilter: LogpushFilter = {
    where: {
      and: [
        { key: "ClientRequestPath", operator: "contains", value: "/static" },
        { key: "ClientRequestHost", operator: "eq", value: "example.com" },
      ],
    },
  };
  /** The file that states what cft_logpush_zone_filter holds. */
  const recordedFilterWire = createBody({ ...job(), filter: recordedFilter }).filter;
  const zoneFilterJob = (over: Partial<DesiredLogpushJob> = {}): DesiredLogpushJob => ({
    name: "example.com",
    dataset: "http_requests",
    destination_conf: "s3://mybucket/logs?region=us-west-2",
    enabled: false,
    filter: recordedFilter,
    output_options: { field_names: ["RayID", "ClientIP", "EdgeStartTimestamp"], timestamp_format: "rfc3339" },
    ...over,
  });

  it(
    "reads the legacy job with a filter (cft_logpush_zone_filter) as output_options, noting where they " + "came from",
    async () => {
      expect(await read(recordedResult("cft_logpush_zone_filter"))).toEqual([
        {
          id: "1",
          name: "example.com",
          dataset: "http_requests",
          destination_conf: "s3://mybucket/logs?region=us-west-2",
          enabled: false,
          kind: "",
          filter: recordedFilter,
          output_options: { field_names: ["RayID", "ClientIP", "EdgeStartTimestamp"], timestamp_format: "rfc3339" },
          legacy_logpull: LEGACY,
          max_upload_bytes: 0,
          max_upload_interval_seconds: 0,
          max_upload_records: 0,
          filter_attack_traffic: false,
        },
      ]);
    },
  );

  it("plans nothing for a file that states what the legacy job holds", async () => {
    const jobs = await read(recordedResult("cft_logpush_zone_filter"));
    expect(logpushJobs.diff(zone([zoneFilterJob()]), jobs)).toEqual({ changes: [], errors: [], warnings: [] });
    // A file that does not manage output_options plans nothing either.
    expect(logpushJobs.diff(zone([zoneFilterJob({ output_options: undefined })]), jobs).changes).toEqual([]);
  });

  it("moves a legacy job to output_options when the file states other options, and says so", async () => {
    const jobs = await read(recordedResult("cft_logpush_zone_filter"));
    const note =
      `moves the job from the legacy logpull_options ("${LEGACY}") to output_options, which ` +
      `replace them; the unchanged options are carried over as the file states them`;
    const more = logpushJobs.diff(
      zone([zoneFilterJob({ output_options: { field_names: ["RayID", "ClientIP"], timestamp_format: "rfc3339" } })]),
      jobs,
    );
    expect(more.changes).toHaveLength(1);
    const c = more.changes[0]!;
    expect(c).toMatchObject({ kind: "update", live_id: "1", identity: "example.com" });
    expect(c.fields).toEqual([
      {
        field: "output_options.field_names",
        before: ["RayID", "ClientIP", "EdgeStartTimestamp"],
        after: ["RayID", "ClientIP"],
      },
    ]);
    expect(c.notes).toEqual([note]);
    expect(c.operations).toEqual([
      {
        method: "PUT",
        path: `zones/${Z}/logpush/jobs/1`,
        body: {
          name: "example.com",
          enabled: false,
          filter: recordedFilterWire,
          output_options: { field_names: ["RayID", "ClientIP"], timestamp_format: "rfc3339" },
        },
      },
    ]);
    // A file that leaves the timestamp format out means the default: sent as such, since the job holds rfc3339.
    const noTimestamps = logpushJobs.diff(zone([zoneFilterJob({ output_options: { field_names: ["RayID"] } })]), jobs)
      .changes[0]!;
    expect(noTimestamps.notes).toEqual([note]);
    expect(noTimestamps.operations[0]!.body).toEqual({
      name: "example.com",
      enabled: false,
      filter: recordedFilterWire,
      output_options: { field_names: ["RayID"], timestamp_format: "unixnano" },
    });
    // A change that does not touch the options does not move the job: its unchanged options stay out.
    const enable = logpushJobs.diff(zone([zoneFilterJob({ enabled: true })]), jobs).changes[0]!;
    expect(enable.notes).toBeUndefined();
    expect(enable.operations[0]!.body).toEqual({ name: "example.com", enabled: true, filter: recordedFilterWire });
  });

  it(
    "reads the cloudflare-go fixture (errors: null, a numeric id) and plans nothing for the file that " + "states it",
    async () => {
      expect(recorded("cfgo_logpush_list").body.errors).toBeNull();
      const jobs = await read(recordedResult("cfgo_logpush_list"));
      expect(jobs).toEqual([
        {
          id: "1",
          name: "example.com",
          dataset: "http_requests",
          destination_conf: "s3://mybucket/logs?region=us-west-2",
          enabled: false,
          kind: "",
          output_options: { field_names: ["RayID", "ClientIP", "EdgeStartTimestamp"], timestamp_format: "rfc3339" },
          legacy_logpull: LEGACY,
          max_upload_bytes: 0,
          max_upload_interval_seconds: 0,
          max_upload_records: 0,
          filter_attack_traffic: false,
        },
      ]);
      expect(logpushJobs.diff(zone([zoneFilterJob({ filter: undefined })]), jobs)).toEqual({
        changes: [],
        errors: [],
        warnings: [],
      });
    },
  );

  it(
    'reads the account jobs (cft_logpush_account_v5) with kind "" and plans nothing for the file that ' + "states them",
    async () => {
      const jobs = await read(recordedResult("cft_logpush_account_v5"));
      const fields = ["Event", "EventTimestampMs", "Outcome", "Exceptions", "Logs", "ScriptName"];
      expect(jobs.map((j) => [j.id, j.name, j.kind, j.output_options, j.legacy_logpull])).toEqual([
        ["234884", "httgotkhpj", "", { field_names: fields }, `fields=${fields.join(",")}`],
        ["235658", "fmvpbbpnkb", "", { field_names: fields }, `fields=${fields.join(",")}`],
      ]);
      const destination =
        recordedResult<Array<{ destination_conf: string }>>("cft_logpush_account_v5")[0]!.destination_conf;
      const file = (name: string): DesiredLogpushJob => ({
        name,
        dataset: "workers_trace_events",
        destination_conf: destination,
        enabled: true,
        kind: "",
        output_options: { field_names: fields },
      });
      expect(logpushJobs.diff(zone([file("fmvpbbpnkb"), file("httgotkhpj")]), jobs)).toEqual({
        changes: [],
        errors: [],
        warnings: [],
      });
    },
  );
});

describe("normalizeLiveJob refuses answers of the wrong shape", () => {
  const good = { id: 7, name: "j", dataset: "http_requests", destination_conf: R2, enabled: true };

  it(
    'accepts a job answered with name: null (created without a name) as the name "", a null dataset as ' +
      "unknown, and nulls as absent",
    () => {
      expect(
        normalizeLiveJob({
          ...good,
          name: null,
          kind: null,
          dataset: null,
          filter: null,
          output_options: null,
          logpull_options: null,
          max_upload_bytes: null,
        }),
      ).toEqual({
        id: "7",
        name: "",
        dataset: null,
        destination_conf: R2,
        enabled: true,
        kind: "",
        max_upload_bytes: 0,
        max_upload_interval_seconds: 0,
        max_upload_records: 0,
        filter_attack_traffic: false,
      });
      expect(normalizeLiveJob({ ...good, id: "12" }).id).toBe("12");
      // output_options win over a logpull_options string the job still holds.
      const both = normalizeLiveJob({ ...good, output_options: { field_names: ["A"] }, logpull_options: "fields=B" });
      expect(both.output_options).toEqual({ field_names: ["A"] });
      expect(both).not.toHaveProperty("legacy_logpull");
    },
  );

  it("throws AnswerShapeError rather than coercing", () => {
    const bad: Array<[string, unknown]> = [
      ["not an object", null],
      ["a list", [good]],
      ["no id", { ...good, id: undefined }],
      ["an id that is not a number", { ...good, id: "abc" }],
      ["a fractional id", { ...good, id: 1.5 }],
      ["a numeric name", { ...good, name: 42 }],
      ["a string enabled", { ...good, enabled: "true" }],
      ["no enabled", { ...good, enabled: undefined }],
      ["no destination", { ...good, destination_conf: undefined }],
      ["a numeric dataset", { ...good, dataset: 3 }],
      ["a numeric kind", { ...good, kind: 1 }],
      ["a filter object", { ...good, filter: { where: {} } }],
      ["output_options a list", { ...good, output_options: [] }],
      ["output_options a string", { ...good, output_options: "fields=RayID" }],
      ["logpull_options not a string", { ...good, logpull_options: { fields: "RayID" } }],
      ["a negative limit", { ...good, max_upload_bytes: -1 }],
      ["a string limit", { ...good, max_upload_records: "5000" }],
      ["a fractional limit", { ...good, max_upload_interval_seconds: 1.5 }],
      ["filter_attack_traffic as text", { ...good, filter_attack_traffic: "true" }],
    ];
    for (const [why, raw] of bad) expect(() => normalizeLiveJob(raw), why).toThrow(AnswerShapeError);
    expect(() => normalizeLiveJob({ ...good, name: 42 })).toThrow(
      "the API answered Logpush job 7 with name 42, expected a string or null",
    );
    expect(() => normalizeLiveJob({ ...good, id: undefined })).toThrow(
      "the API answered Logpush job with id missing, expected a job id (a whole number)",
    );
    expect(() => normalizeLiveJob({ ...good, enabled: "true" })).toThrow(
      'the API answered Logpush job 7 with enabled "true", expected true or false',
    );
  });

  it("fails the read of a list that is not a list", async () => {
    const client = { listAll: async () => ({ jobs: [] }) } as unknown as CloudflareClient;
    const desired = { version: 1 as const, safety: { max_deletes: 5 }, zones: [], secrets: NO_SECRETS, files: [] };
    await expect(logpushJobs.read(createReadContext(client, desired), zone([]))).rejects.toThrow(AnswerShapeError);
  });
});

describe("filter_attack_traffic (cloudflare 7.3.0 LogpushJob: excludes DDoS attack traffic from logs)", () => {
  const yaml = (dataset: string, value: string) =>
    `version: 1\nzones:\n  - zone_id: ${Z}\n    logs:\n      logpush_jobs:\n        - name: j\n          ` +
    `dataset: ${dataset}\n          destination_conf: https://logs.example.com/in\n          ` +
    `filter_attack_traffic: ${value}\n`;

  it("is a key of the file for the three datasets it applies to, refused on any other", () => {
    for (const dataset of ["http_requests", "firewall_events", "network_analytics_logs"]) {
      const { desired } = parseConfigText(yaml(dataset, "true"), "z.yaml", {});
      expect(desired.zones[0]!.logs?.logpush_jobs?.[0]?.filter_attack_traffic, dataset).toBe(true);
    }
    let err: unknown;
    try {
      parseConfigText(yaml("dns_logs", "false"), "z.yaml", {});
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toContain(
      "/zones/0/logs/logpush_jobs/0/filter_attack_traffic  filter_attack_traffic applies only to the datasets " +
        "http_requests, firewall_events, network_analytics_logs, not dns_logs: remove it from this job",
    );
    expect(() => parseConfigText(yaml("http_requests", '"yes"'), "z.yaml", {})).toThrow(ConfigError);
  });

  it("reads an absent or null value as false, and plans a PUT (or a POST) only when the file states it", () => {
    expect(normalizeLiveJob({ id: 1, ...createBody(job()) }).filter_attack_traffic).toBe(false);
    expect(normalizeLiveJob({ id: 1, ...createBody(job()), filter_attack_traffic: null }).filter_attack_traffic).toBe(
      false,
    );
    const l = live("3", job());
    expect(logpushJobs.diff(zone([job()]), [{ ...l, filter_attack_traffic: true }]).changes).toEqual([]);
    const on = logpushJobs.diff(zone([job({ filter_attack_traffic: true })]), [l]).changes;
    expect(on).toHaveLength(1);
    expect(on[0]!.fields).toEqual([{ field: "filter_attack_traffic", before: false, after: true }]);
    expect(on[0]!.operations[0]!.body).toEqual({ name: "http-to-r2", enabled: true, filter_attack_traffic: true });
    const off = logpushJobs.diff(zone([job({ filter_attack_traffic: false })]), [
      { ...l, filter_attack_traffic: true },
    ]);
    expect(off.changes[0]!.operations[0]!.body).toMatchObject({ filter_attack_traffic: false });
    expect(logpushJobs.diff(zone([job({ filter_attack_traffic: false })]), [l]).changes).toEqual([]);
    const created = logpushJobs.diff(zone([job({ filter_attack_traffic: true })]), []).changes[0]!;
    expect(created.operations[0]!.body).toMatchObject({ filter_attack_traffic: true });
  });

  it("a pinned job whose name differs is renamed with its PUT; one whose answer states no dataset stops the zone", () => {
    const l = live("9", job({ name: "old-name" }));
    const renamed = logpushJobs.diff(zone([job({ id: "9" })]), [l]);
    expect(renamed.errors).toEqual([]);
    expect(renamed.changes[0]!.fields).toEqual([{ field: "name", before: "old-name", after: "http-to-r2" }]);
    expect(renamed.changes[0]!.operations[0]!.body).toEqual({ name: "http-to-r2", enabled: true });
    const unstated = logpushJobs.diff(zone([job({ id: "9" })]), [{ ...l, dataset: null }]);
    expect(unstated.changes).toEqual([]);
    expect(unstated.errors).toEqual([
      'Logpush job "http-to-r2" pins id 9, whose dataset the API did not state, so zoneform cannot tell ' +
        `whether it is http_requests (a dataset cannot change in place); check the job (GET zones/${Z}/logpush/` +
        "jobs/9) and plan again; nothing in this zone is changed.",
    ]);
  });
});
