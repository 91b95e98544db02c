// The emulator's Logpush API over real HTTP: jobs, the ownership challenge flow, destination checks,
// filter limits, output_options replacement on PUT and dataset fields.
import { describe, expect, it } from "vitest";
import { useEmulator, ZONE, type TestEmulator } from "../helpers/cli.js";

const L = `zones/${ZONE.com}/logpush`;
const S3 = "s3://logs/http/{DATE}?region=us-east-1&access-key-id=AKIA&secret-access-key=SECRET";
const HTTPS = "https://collector.example.com/logs?header_Authorization=Bearer%20x";

const getEmu = useEmulator();

async function challengeFor(emu: TestEmulator, destination: string, zone: string = ZONE.com): Promise<string> {
  const res = await emu.call("POST", `zones/${zone}/logpush/ownership`, { destination_conf: destination });
  expect(res.status).toBe(200);
  expect(res.body.result).toMatchObject({ valid: true, message: "" });
  const token = await emu.callAdmin("GET", `ownership/${zone}?destination=${encodeURIComponent(destination)}`);
  return token.body.token as string;
}

async function createJob(emu: TestEmulator, body: Record<string, unknown> = {}) {
  const res = await emu.call("POST", `${L}/jobs`, {
    name: "http-to-collector",
    dataset: "http_requests",
    destination_conf: HTTPS,
    ...body,
  });
  expect(res.status, JSON.stringify(res.body.errors)).toBe(200);
  return res.body.result as Record<string, any>;
}

describe("logpush jobs", () => {
  it("creates an S3 job after the ownership challenge and lists it", async () => {
    const emu = getEmu();
    const token = await challengeFor(emu, S3);
    expect(token).toMatch(/^[0-9a-f]{64}$/);
    const job = await createJob(emu, {
      destination_conf: S3,
      ownership_challenge: token,
      enabled: true,
      output_options: {
        field_names: ["RayID", "EdgeStartTimestamp", "ClientIP"],
        timestamp_format: "rfc3339",
        sample_rate: 0.1,
      },
    });
    expect(Number.isInteger(job.id)).toBe(true);
    expect(job).toMatchObject({
      dataset: "http_requests",
      enabled: true,
      kind: "",
      error_message: null,
      last_complete: null,
      last_error: null,
    });
    expect(job).not.toHaveProperty("filter");
    expect(job.ownership_challenge).toBeUndefined();
    // Only the options that were set: no defaults filled in.
    expect(job.output_options).toEqual({
      field_names: ["RayID", "EdgeStartTimestamp", "ClientIP"],
      timestamp_format: "rfc3339",
      sample_rate: 0.1,
    });
    const list = await emu.call("GET", `${L}/jobs`);
    expect(list.body.result.map((j: { id: number }) => j.id)).toEqual([job.id]);
    expect(list.body.result_info).toBeUndefined();
    expect((await emu.call("GET", `${L}/jobs/${job.id}`)).body.result).toEqual(job);
  });

  it("refuses a storage destination without a valid ownership challenge", async () => {
    const emu = getEmu();
    const missing = await emu.call("POST", `${L}/jobs`, { dataset: "http_requests", destination_conf: S3 });
    expect(missing.status).toBe(400);
    expect(missing.body.errors[0].message).toMatch(/ownership_challenge is required/);
    const wrong = await emu.call("POST", `${L}/jobs`, {
      dataset: "http_requests",
      destination_conf: S3,
      ownership_challenge: "0".repeat(64),
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.errors[0].message).toMatch(/not valid/);
    // A token is bound to its zone.
    const other = await challengeFor(emu, S3, ZONE.net);
    expect(
      (
        await emu.call("POST", `${L}/jobs`, {
          dataset: "http_requests",
          destination_conf: S3,
          ownership_challenge: other,
        })
      ).status,
    ).toBe(400);
  });

  it("validates ownership tokens", async () => {
    const emu = getEmu();
    const token = await challengeFor(emu, S3);
    const ok = await emu.call("POST", `${L}/ownership/validate`, { destination_conf: S3, ownership_challenge: token });
    expect(ok.body.result).toEqual({ valid: true });
    const bad = await emu.call("POST", `${L}/ownership/validate`, {
      destination_conf: S3,
      ownership_challenge: "nope",
    });
    expect(bad.body.result).toEqual({ valid: false });
  });

  it("rejects invalid fields with a pointer each", async () => {
    const emu = getEmu();
    const res = await emu.call("POST", `${L}/jobs`, {
      name: "bad name!",
      destination_conf: HTTPS,
      max_upload_bytes: 10,
      max_upload_interval_seconds: 301,
      max_upload_records: 999,
      kind: "instant",
      output_options: { timestamp_format: "iso", field_names: ["RayId"] },
    });
    expect(res.status).toBe(400);
    const pointers = res.body.errors.map((e: { source: { pointer: string } }) => e.source.pointer).sort();
    expect(pointers).toEqual([
      "/dataset",
      "/kind",
      "/max_upload_bytes",
      "/max_upload_interval_seconds",
      "/max_upload_records",
      "/name",
      "/output_options/timestamp_format",
    ]);
    const typo = await emu.call("POST", `${L}/jobs`, {
      dataset: "http_requests",
      destination_conf: HTTPS,
      output_options: { field_names: ["RayId"] },
    });
    expect(typo.status).toBe(400);
    expect(typo.body.errors[0]).toMatchObject({ source: { pointer: "/output_options/field_names" } });
    expect(typo.body.errors[0].message).toMatch(/RayId/);
    const unknown = await emu.call("POST", `${L}/jobs`, {
      dataset: "http_requests",
      destination_conf: HTTPS,
      destination: "x",
    });
    expect(unknown.status).toBe(400);
  });

  it("accepts 0 to disable the upload limits and the edge kind for http_requests", async () => {
    const job = await createJob(getEmu(), {
      kind: "edge",
      max_upload_bytes: 0,
      max_upload_records: 0,
      max_upload_interval_seconds: 30,
    });
    expect(job).toMatchObject({ kind: "edge", max_upload_bytes: 0, max_upload_interval_seconds: 30 });
  });

  it("rejects unknown schemes, over-long and unreachable destinations", async () => {
    const emu = getEmu();
    for (const destination_conf of [
      "ftp://host/x",
      `https://h.example.com/${"a".repeat(4100)}`,
      "https://invalid-host.example.com/x",
      "not a url",
    ]) {
      const res = await emu.call("POST", `${L}/jobs`, { dataset: "http_requests", destination_conf });
      expect(res.status, destination_conf.slice(0, 40)).toBe(400);
    }
  });

  it("stores a PUT's output_options as sent, and keeps them on a PUT that does not carry them", async () => {
    const emu = getEmu();
    const job = await createJob(emu, {
      output_options: { field_names: ["RayID"], timestamp_format: "rfc3339", sample_rate: 0.1, "CVE-2021-44228": true },
    });
    const res = await emu.call("PUT", `${L}/jobs/${job.id}`, {
      output_options: { field_names: ["RayID", "ClientIP"] },
    });
    expect(res.status).toBe(200);
    expect(res.body.result.output_options).toEqual({ field_names: ["RayID", "ClientIP"] });
    const keep = await emu.call("PUT", `${L}/jobs/${job.id}`, { enabled: true });
    expect(keep.body.result.output_options).toEqual(res.body.result.output_options);
    expect(keep.body.result.enabled).toBe(true);
  });

  it(
    "stores filter_attack_traffic once sent, as a boolean, and refuses true on a dataset it does not apply " +
      "to (cloudflare 7.3.0: http_requests, firewall_events, network_analytics_logs)",
    async () => {
      const emu = getEmu();
      const plain = await createJob(emu);
      expect(plain).not.toHaveProperty("filter_attack_traffic");
      const on = await createJob(emu, { filter_attack_traffic: true });
      expect(on.filter_attack_traffic).toBe(true);
      const off = await emu.call("PUT", `${L}/jobs/${on.id}`, { filter_attack_traffic: false });
      expect(off.body.result).toMatchObject({ filter_attack_traffic: false, name: "http-to-collector" });
      const firewall = await createJob(emu, { dataset: "firewall_events", filter_attack_traffic: true });
      expect(firewall.filter_attack_traffic).toBe(true);
      const wrong = await emu.call("POST", `${L}/jobs`, {
        dataset: "dns_logs",
        destination_conf: HTTPS,
        filter_attack_traffic: true,
      });
      expect(wrong.status).toBe(400);
      expect(wrong.body.errors[0]).toMatchObject({ source: { pointer: "/filter_attack_traffic" } });
      const text = await emu.call("PUT", `${L}/jobs/${plain.id}`, { filter_attack_traffic: "true" });
      expect(text.status).toBe(400);
    },
  );

  it("keeps dataset and kind immutable and asks for ownership when the destination moves to storage", async () => {
    const emu = getEmu();
    const job = await createJob(emu);
    expect((await emu.call("PUT", `${L}/jobs/${job.id}`, { dataset: "firewall_events" })).status).toBe(400);
    expect((await emu.call("PUT", `${L}/jobs/${job.id}`, { kind: "edge" })).status).toBe(400);
    expect((await emu.call("PUT", `${L}/jobs/${job.id}`, { dataset: "http_requests", kind: "" })).status).toBe(200);
    const gs = "gs://bucket/logs";
    expect((await emu.call("PUT", `${L}/jobs/${job.id}`, { destination_conf: gs })).status).toBe(400);
    const token = await challengeFor(emu, gs);
    const moved = await emu.call("PUT", `${L}/jobs/${job.id}`, { destination_conf: gs, ownership_challenge: token });
    expect(moved.body.result.destination_conf).toBe(gs);
  });

  it("deletes a job with 200 and result {}; unknown ids are 404, malformed ones 400", async () => {
    const emu = getEmu();
    const job = await createJob(emu);
    const del = await emu.call("DELETE", `${L}/jobs/${job.id}`);
    expect(del.status).toBe(200);
    expect(del.body.result).toEqual({});
    expect((await emu.call("GET", `${L}/jobs/${job.id}`)).status).toBe(404);
    expect((await emu.call("GET", `${L}/jobs/abc`)).status).toBe(400);
  });

  it("numbers jobs account-wide", async () => {
    const emu = getEmu();
    const a = await createJob(emu);
    const b = await emu.call("POST", `zones/${ZONE.net}/logpush/jobs`, {
      dataset: "http_requests",
      destination_conf: HTTPS,
    });
    expect(b.body.result.id).toBe(a.id + 1);
  });
});

describe("logpush filters", () => {
  const create = (filter: unknown) =>
    getEmu().call("POST", `${L}/jobs`, { dataset: "http_requests", destination_conf: HTTPS, filter });
  const leaf = (i: number) => ({ key: "ClientRequestPath", operator: "contains", value: `/p${i}` });

  it("stores a valid nested filter as compact JSON", async () => {
    const filter = {
      where: {
        and: [
          { key: "ClientRequestHost", operator: "eq", value: "example.com" },
          { or: [leaf(1), { key: "EdgeResponseStatus", operator: "geq", value: 500 }] },
        ],
      },
    };
    const res = await create(JSON.stringify(filter, null, 2));
    expect(res.status).toBe(200);
    expect(res.body.result.filter).toBe(JSON.stringify(filter));
    expect((await create('{"where":{}}')).status).toBe(200);
  });

  it("rejects filters that do not parse, lack where, or break the operator rules", async () => {
    for (const [filter, message] of [
      ["{where", /not valid JSON/],
      ['{"and":[]}', /"where"/],
      [{ where: {} }, /JSON string/],
      [JSON.stringify({ where: { and: [{ key: "ClientIP", operator: "in", value: "1.1.1.1" }] } }), /array/],
      [JSON.stringify({ where: { and: [{ key: "ClientIP", operator: "like", value: "1" }] } }), /operator/],
      [JSON.stringify({ where: { and: [{ key: "ClientIp", operator: "eq", value: "1" }] } }), /not a field/],
    ] as const) {
      const res = await create(filter);
      expect(res.status, String(filter)).toBe(400);
      expect(res.body.errors[0].message).toMatch(message);
    }
  });

  it("enforces 30 operators and 1000 bytes", async () => {
    // Every comparison and every and/or group counts; nesting reaches the limit within 1000 bytes.
    const nested = (leaves: number, groups: number) => {
      let node: unknown = { and: Array.from({ length: leaves }, () => ({ key: "JA4", operator: "eq", value: 1 })) };
      for (let i = 1; i < groups; i++) node = { [i % 2 ? "or" : "and"]: [node] };
      return JSON.stringify({ where: node });
    };
    expect(nested(19, 11).length).toBeLessThan(1000);
    expect((await create(nested(19, 11))).status).toBe(200);
    const tooMany = await create(nested(20, 11));
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.errors[0].message).toMatch(/31 operators; the limit is 30/);
    const long = JSON.stringify({
      where: { and: [{ key: "ClientRequestPath", operator: "eq", value: "x".repeat(1000) }] },
    });
    const tooLong = await create(long);
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.errors[0].message).toMatch(/limit is 1000 bytes/);
  });
});

describe("destination checks and datasets", () => {
  it("reports invalid and unreachable destinations without failing the call", async () => {
    const emu = getEmu();
    const check = async (destination_conf: string) =>
      (await emu.call("POST", `${L}/validate/destination`, { destination_conf })).body.result;
    expect(await check(HTTPS)).toEqual({ valid: true, message: "" });
    expect((await check("s3://invalid-bucket/logs")).valid).toBe(false);
    expect((await check("ftp://x/y")).message).toMatch(/not supported/);
  });

  it("says whether a job already pushes to a destination", async () => {
    const emu = getEmu();
    const exists = async () =>
      (await emu.call("POST", `${L}/validate/destination/exists`, { destination_conf: HTTPS })).body.result;
    expect(await exists()).toEqual({ exists: false });
    await createJob(emu);
    expect(await exists()).toEqual({ exists: true });
  });

  it("lists the fields of http_requests and rejects unknown datasets", async () => {
    const emu = getEmu();
    const res = await emu.call("GET", `${L}/datasets/http_requests/fields`);
    expect(res.status).toBe(200);
    for (const f of [
      "RayID",
      "EdgeStartTimestamp",
      "ClientIP",
      "ClientRequestHost",
      "ClientRequestPath",
      "EdgeResponseStatus",
      "RequestHeaders",
      "ResponseHeaders",
      "Cookies",
    ]) {
      expect(typeof res.body.result[f]).toBe("string");
    }
    expect(Object.keys((await emu.call("GET", `${L}/datasets/firewall_events/fields`)).body.result)).toContain(
      "Action",
    );
    expect((await emu.call("GET", `${L}/datasets/nope/fields`)).status).toBe(400);
  });
});
