// Logpush jobs end to end against the emulator: plan → apply → plan with no changes, with the exact
// calls from the emulator's request log: create, update of each field, filters equal by meaning,
// replacement (make before break), prune, the ownership challenge flow and destination checks.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { TestEmulator, ZONE, runCli, writeConfig, type LoggedRequest, writesCheckedFirst } from "../helpers/cli.js";

const emu = TestEmulator.perFile();

const Z = ZONE.com;
const JOBS = `zones/${Z}/logpush/jobs`;
const R2 =
  "r2://logs/http/{DATE}?account-id=0123456789abcdef0123456789abcdef&access-key-id=${env:R2_KEY_ID}&secret-access-key=${env:R2_SECRET}";
const S3_BASE = "s3://audit-logs/zone/{DATE}?region=eu-west-1";
const S3 = `${S3_BASE}&access-key-id=\${env:AWS_KEY_ID}&secret-access-key=\${env:AWS_SECRET}`;
const baseEnv = {
  R2_KEY_ID: "r2-key-id-0001",
  R2_SECRET: "r2-secret-0001",
  AWS_KEY_ID: "AKIA0000EXAMPLE",
  AWS_SECRET: "aws-secret-0001",
};

/** The values of the env references filled in: what the API stores. */
const filled = (dest: string, env: Record<string, string> = baseEnv) =>
  dest.replace(/\$\{env:(\w+)\}/g, (_, n: string) => env[n]!);

const FILTER = `
filter:
  where:
    and:
      - { key: ClientRequestHost, operator: eq, value: example.com }
      - or:
          - { key: ClientRequestPath, operator: contains, value: /api }
          - { key: EdgeResponseStatus, operator: geq, value: 500 }`;
const FILTER_JSON =
  '{"where":{"and":[{"key":"ClientRequestHost","operator":"eq","value":"example.com"},{"or":[{"key":"ClientRequestPath","operator":"contains","value":"/api"},{"key":"EdgeResponseStatus","operator":"geq","value":500}]}]}}';

const indent = (text: string, n: number) =>
  text
    .split("\n")
    .map((l) => (l.trim() ? " ".repeat(n) + l : l))
    .join("\n");

/** A config of example.com with the given `logs:` body. */
function config(logs: string): Promise<string> {
  return writeConfig(
    `version: 1\nzones:\n  - zone_id: ${Z}\n    name: example.com\n    logs:\n${indent(logs.replace(/^\n/, ""), 6)}\n`,
  );
}

function r2Job(extra = "", name = "http-to-r2"): string {
  return (
    `- name: ${name}\n  dataset: http_requests\n  destination_conf: ` +
    `"${R2}"\n${indent(extra.replace(/^\n/, ""), 2)}`
  );
}

const jobs = (...items: string[]) => `logpush_jobs:\n${items.map((i) => indent(i, 2)).join("\n")}`;

async function converge(cfg: string, env: Record<string, string> = baseEnv) {
  const plan1 = await runCli(emu, ["plan", "-c", cfg, "--detailed-exitcode"], { env });
  expect(plan1.code, (await readFile(cfg, "utf8")) + plan1.stdout + plan1.stderr).toBe(2);
  await emu.clearRequests();
  const apply = await runCli(emu, ["apply", "-c", cfg, "--auto-approve"], { env });
  expect(apply.code, apply.stdout + apply.stderr).toBe(0);
  const log = await emu.requests();
  const writes = writesCheckedFirst(log)
    .filter((r) => !r.path.includes("/validate"))
    .map(call);
  const plan2 = await runCli(emu, ["plan", "-c", cfg, "--detailed-exitcode"], { env });
  expect(plan2.code, plan2.stdout + plan2.stderr).toBe(0);
  expect(plan2.stdout).toContain("No changes.");
  return { plan1, apply, writes, log };
}

const call = (r: LoggedRequest) => `${r.method} ${r.path.replace(/^\/client\/v4\//, "")}`;
const liveJobs = () => emu.api<Array<Record<string, unknown>>>("GET", JOBS);
const token = (destination: string) =>
  emu
    .admin<{ token: string }>("GET", `/ownership/${Z}?destination=${encodeURIComponent(destination)}`)
    .then((r) => r.token);
const seedJob = (body: Record<string, unknown>) =>
  emu.api<{ id: number }>("POST", JOBS, { enabled: true, dataset: "http_requests", ...body });

describe("logpush jobs end to end", () => {
  it(
    "creates a job with its filter as a JSON string and only the output_options the file sets, reading " +
      "with one list call",
    async () => {
      const cfg = await config(
        jobs(
          r2Job(
            `${FILTER}\noutput_options:\n  field_names: [RayID, ClientIP, EdgeStartTimestamp]\n  ` +
              `timestamp_format: rfc3339\n  sample_rate: 0.5\nmax_upload_records: 5000`,
          ),
        ),
      );
      await emu.clearRequests();
      const { plan1, apply, writes, log } = await converge(cfg);
      expect(plan1.stdout).toContain('+ logpush_job "http-to-r2"');
      expect(plan1.stdout).toContain("Plan: 1 to create, 0 to update, 0 to replace, 0 to delete.");
      expect(apply.stdout).toContain("1 created");
      // Plan reads the jobs, checks the fields the filter and field_names name, then the destination; apply
      // checks no job of that name appeared meanwhile, then creates it.
      expect(log.map(call)).toEqual([
        `GET ${JOBS}`,
        `GET zones/${Z}/logpush/datasets/http_requests/fields`,
        `POST zones/${Z}/logpush/validate/destination`,
        `GET ${JOBS}`,
        `POST ${JOBS}`,
      ]);
      expect(writes).toEqual([`POST ${JOBS}`]);
      const post = log.find((r) => r.method === "POST" && r.path.endsWith("/logpush/jobs"))!;
      expect(post.body).toEqual({
        name: "http-to-r2",
        dataset: "http_requests",
        destination_conf: filled(R2),
        enabled: true,
        filter: FILTER_JSON,
        max_upload_records: 5000,
        output_options: {
          field_names: ["RayID", "ClientIP", "EdgeStartTimestamp"],
          timestamp_format: "rfc3339",
          sample_rate: 0.5,
        },
      });
      const [job] = await liveJobs();
      expect(job).toMatchObject({ name: "http-to-r2", filter: FILTER_JSON, enabled: true });

      await emu.clearRequests();
      await runCli(emu, ["plan", "-c", cfg], { env: baseEnv });
      expect((await emu.requests()).map(call)).toEqual([`GET ${JOBS}`]);
    },
  );

  it("updates each field in place with one PUT carrying every field the file manages", async () => {
    const start = r2Job(
      `enabled: true\n${FILTER}\noutput_options:\n  field_names: [RayID, ClientIP]\n  sample_rate: ` +
        `0.5\nmax_upload_bytes: 5000000`,
    );
    await converge(await config(jobs(start)));
    const { id } = ((await liveJobs()) as Array<{ id: number }>)[0]!;
    // What the file manages on the job, as each PUT must carry it (the destination only when it changes).
    const managed: Record<string, unknown> = {
      name: "http-to-r2",
      enabled: true,
      filter: FILTER_JSON,
      output_options: { field_names: ["RayID", "ClientIP"], sample_rate: 0.5 },
      max_upload_bytes: 5_000_000,
    };
    // Each step changes one field of the previous one.
    const steps: Array<[string, (cfg: string) => string, Record<string, unknown>]> = [
      ["enabled", (c) => c.replace("enabled: true", "enabled: false"), { enabled: false }],
      ["filter", (c) => c.replace("value: /api", "value: /v2"), { filter: FILTER_JSON.replace("/api", "/v2") }],
      [
        "output_options.field_names",
        (c) => c.replace("[RayID, ClientIP]", "[RayID, ClientIP, ClientRequestHost]"),
        { output_options: { field_names: ["RayID", "ClientIP", "ClientRequestHost"], sample_rate: 0.5 } },
      ],
      [
        "output_options.sample_rate",
        (c) => c.replace("sample_rate: 0.5", "sample_rate: 1"),
        { output_options: { field_names: ["RayID", "ClientIP", "ClientRequestHost"], sample_rate: 1 } },
      ],
      [
        "max_upload_bytes",
        (c) => c.replace("max_upload_bytes: 5000000", "max_upload_bytes: 10000000"),
        { max_upload_bytes: 10_000_000 },
      ],
      [
        "max_upload_interval_seconds",
        (c) => `${c}\n  max_upload_interval_seconds: 60`,
        { max_upload_interval_seconds: 60 },
      ],
      [
        "destination_conf",
        (c) => c.replace("logs/http/", "logs/web/"),
        { destination_conf: filled(R2).replace("logs/http/", "logs/web/") },
      ],
      ["filter", (c) => c.replace(/\n {2}filter:(\n {4}.*)+/, ""), { filter: "" }],
      ["filter_attack_traffic", (c) => `${c}\n  filter_attack_traffic: true`, { filter_attack_traffic: true }],
    ];
    let current = start;
    for (const [field, change, delta] of steps) {
      current = change(current);
      const { plan1, writes, log } = await converge(await config(jobs(current)));
      expect(plan1.stdout, field).toContain(
        field === "filter" && delta.filter === "" ? '- filter: "ClientRequestHost eq' : `~ ${field}`,
      );
      if (field === "filter" && delta.filter !== "")
        expect(plan1.stdout).toContain('ClientRequestPath contains [-"/api"-]{+"/v2"+}');
      expect(plan1.stdout).toContain("Plan: 0 to create, 1 to update, 0 to replace, 0 to delete.");
      expect(writes, field).toEqual([`PUT ${JOBS}/${id}`]);
      const put = log.find((r) => r.method === "PUT")!;
      // The whole of what the file manages, the change in it; never "filter": null.
      const { destination_conf, ...rest } = delta;
      Object.assign(managed, rest);
      expect(put.body, field).toEqual({ ...managed, ...(destination_conf ? { destination_conf } : {}) });
      // A removed filter is sent as "" once; with no filter on either side, none is sent.
      if (managed.filter === "") delete managed.filter;
    }
    expect((await liveJobs())[0]!.filter ?? null).toBeNull();
    expect((await liveJobs())[0]!.filter_attack_traffic).toBe(true);
    // export writes it, and the exported file plans nothing.
    const exported = await runCli(emu, ["export", "--zone", Z, "--sections", "logpush"], { env: baseEnv });
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stdout).toContain("filter_attack_traffic: true\n");
    const replan = await runCli(emu, ["plan", "-c", await writeConfig(exported.stdout), "--detailed-exitcode"], {
      env: {
        ...baseEnv,
        ZONEFORM_HTTP_TO_R2_ACCESS_KEY_ID: "r2-key-id-0001",
        ZONEFORM_HTTP_TO_R2_SECRET_ACCESS_KEY: "r2-secret-0001",
      },
    });
    expect(replan.code, replan.stdout + replan.stderr).toBe(0);
  });

  it("never shows a change for filters and options equal by meaning", async () => {
    // Seeded as another tool would: keys in another order, spaces, and every output option spelled out.
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
    await seedJob({
      name: "a",
      destination_conf: filled(R2),
      filter: reordered,
      output_options: { field_names: ["RayID"], output_type: "ndjson", record_prefix: "{", "CVE-2021-4428": false },
    });
    await seedJob({ name: "b", destination_conf: filled(R2), filter: '{"where":{}}' });
    await seedJob({ name: "c", destination_conf: filled(R2) });
    const cfg = await config(
      jobs(
        r2Job(`${FILTER}\noutput_options:\n  field_names: [RayID]`, "a"),
        r2Job("filter: { where: {} }", "b"),
        r2Job("", "c"),
      ),
    );
    const plan = await runCli(emu, ["plan", "-c", cfg, "--detailed-exitcode"], { env: baseEnv });
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
    expect(plan.stdout).toContain("No changes.");
  });

  it(
    "a changed dataset names another job: the new one is created before the old one is deleted, and prune: " +
      "false keeps the old",
    async () => {
      await converge(await config(jobs(r2Job(""))));
      const moved = jobs(r2Job("").replace("dataset: http_requests", "dataset: firewall_events"));
      // Without prune the job of the other dataset is not the file's: it stays.
      const kept = await converge(await config(`prune: false\n${moved}`));
      expect(kept.plan1.stdout).toContain("Plan: 1 to create, 0 to update, 0 to replace, 0 to delete.");
      expect(kept.writes).toEqual([`POST ${JOBS}`]);
      expect((await liveJobs()).map((j) => j.dataset).sort()).toEqual(["firewall_events", "http_requests"]);
      // With prune (the default) the old one goes, after the new one is made.
      await emu.reset();
      await converge(await config(jobs(r2Job(""))));
      const { id: first } = ((await liveJobs()) as Array<{ id: number }>)[0]!;
      const { plan1, writes } = await converge(await config(moved));
      expect(plan1.stdout).toContain('+ logpush_job "http-to-r2"');
      expect(plan1.stdout).toContain('- logpush_job "http-to-r2"');
      expect(plan1.stdout).toContain("Plan: 1 to create, 0 to update, 0 to replace, 1 to delete.");
      expect(writes).toEqual([`POST ${JOBS}`, `DELETE ${JOBS}/${first}`]);
      const live = await liveJobs();
      expect(live).toHaveLength(1);
      expect(live[0]).toMatchObject({ name: "http-to-r2", dataset: "firewall_events" });
      expect(live[0]!.id).not.toBe(first);
    },
  );

  it(
    "deletes unlisted jobs and, of two jobs of one name and dataset, the one the file does not pin; keeps " +
      "unlisted ones with prune: false",
    async () => {
      const other = await seedJob({ name: "hand-made", destination_conf: filled(R2) });
      const dup1 = await seedJob({ name: "http-to-r2", destination_conf: filled(R2), enabled: false });
      const dup2 = await seedJob({ name: "http-to-r2", destination_conf: filled(R2) });
      // Unpinned, the entry matches both: the zone stops, nothing is written.
      await emu.clearRequests();
      const refused = await runCli(emu, ["plan", "-c", await config(jobs(r2Job(""))), "--detailed-exitcode"], {
        env: baseEnv,
      });
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain(`matches 2 live Logpush jobs: id ${dup1.id} `);
      expect(await emu.calls({ writesOnly: true })).toEqual([]);
      const { writes } = await converge(await config(jobs(`- id: ${dup2.id}\n${r2Job("").replace(/^- /, "  ")}`)));
      expect(writes.sort()).toEqual([`DELETE ${JOBS}/${dup1.id}`, `DELETE ${JOBS}/${other.id}`].sort());
      expect((await liveJobs()).map((j) => j.id)).toEqual([dup2.id]);

      await seedJob({ name: "kept", destination_conf: filled(R2) });
      const keep = await runCli(
        emu,
        ["plan", "-c", await config(`prune: false\n${jobs(r2Job(""))}`), "--detailed-exitcode"],
        { env: baseEnv },
      );
      expect(keep.code, keep.stdout).toBe(0);
      await emu.clearRequests();
      const { writes: all } = await converge(await config("logpush_jobs: []"));
      expect(all.sort()).toEqual(
        [`DELETE ${JOBS}/${dup2.id}`, expect.stringMatching(new RegExp(`^DELETE ${JOBS}/\\d+$`))].sort(),
      );
      expect(await liveJobs()).toEqual([]);
    },
  );

  it("keeps the live output_options when the file does not manage them: the PUT does not carry them", async () => {
    await seedJob({
      name: "http-to-r2",
      destination_conf: filled(R2),
      output_options: { field_names: ["RayID"], sample_rate: 0.25 },
    });
    const { writes, log } = await converge(await config(jobs(r2Job("enabled: false"))));
    expect(writes).toEqual([expect.stringMatching(/^PUT /)]);
    expect(log.find((r) => r.method === "PUT")!.body).toEqual({ name: "http-to-r2", enabled: false });
    expect((await liveJobs())[0]!.output_options).toMatchObject({ field_names: ["RayID"], sample_rate: 0.25 });
  });
});

describe("ownership challenge", () => {
  const s3Job = (dest = S3, challenge = true) =>
    `- name: http-to-s3\n  dataset: http_requests\n  destination_conf: ` +
    `"${dest}"\n${challenge ? "  ownership_challenge: ${env:LOGPUSH_CHALLENGE}\n" : ""}`;

  it("stops the plan without a challenge, requests one, and converges with it; a new destination asks again", async () => {
    const without = await config(jobs(s3Job(S3, false)));
    await emu.clearRequests();
    const refused = await runCli(emu, ["plan", "-c", without], { env: baseEnv });
    expect(refused.code).toBe(1);
    const cmd = `zoneform logpush challenge --zone ${Z} --destination '${S3_BASE}'`;
    expect(refused.stdout + refused.stderr).toContain(cmd);
    expect(refused.stderr).toContain("ownership_challenge: ${env:LOGPUSH_CHALLENGE}");
    expect(await emu.calls({ writesOnly: true })).toEqual([]);

    await emu.clearRequests();
    const challenge = await runCli(emu, ["logpush", "challenge", "--zone", Z, "--destination", S3_BASE]);
    expect(challenge.code, challenge.stderr).toBe(0);
    expect(challenge.stdout).toMatch(/^filename: zone\/ownership-challenge-[0-9a-f]{8}\.txt$/m);
    expect(challenge.stdout).toContain(
      "in audit-logs; put it in an env var and reference it as ownership_challenge: ${env:NAME}",
    );
    expect(await emu.calls()).toEqual([`POST zones/${Z}/logpush/ownership`]);
    expect((await emu.requests())[0]!.body).toEqual({ destination_conf: S3_BASE });

    const env = { ...baseEnv, LOGPUSH_CHALLENGE: await token(S3_BASE) };
    const withToken = await config(jobs(s3Job()));
    await emu.clearRequests();
    const { log } = await converge(withToken, env);
    // The destination and the token are checked at once: in either order.
    expect(log.map(call)).toEqual([
      `GET ${JOBS}`,
      expect.any(String),
      expect.any(String),
      `GET ${JOBS}`,
      `POST ${JOBS}`,
    ]);
    expect(log.slice(1, 3).map(call).sort()).toEqual([
      `POST zones/${Z}/logpush/ownership/validate`,
      `POST zones/${Z}/logpush/validate/destination`,
    ]);
    expect((log[4]!.body as Record<string, unknown>).ownership_challenge).toBe(env.LOGPUSH_CHALLENGE);

    // A new path in the same bucket is a new destination: the plan asks for its challenge again.
    const moved = S3.replace("zone/{DATE}", "zone2/{DATE}");
    const again = await runCli(emu, ["plan", "-c", await config(jobs(s3Job(moved, false)))], { env });
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`--destination '${S3_BASE.replace("zone/", "zone2/")}'`);
    const env2 = { ...env, LOGPUSH_CHALLENGE: await token(S3_BASE.replace("zone/", "zone2/")) };
    const { writes, log: log2 } = await converge(await config(jobs(s3Job(moved))), env2);
    expect(writes).toEqual([expect.stringMatching(new RegExp(`^PUT ${JOBS}/\\d+$`))]);
    expect(log2.find((r) => r.method === "PUT")!.body).toMatchObject({
      ownership_challenge: env2.LOGPUSH_CHALLENGE,
      destination_conf: filled(moved),
    });
  });

  it("reports a stale ownership token at plan time, before anything is written", async () => {
    const env = { ...baseEnv, LOGPUSH_CHALLENGE: "0".repeat(64) };
    await emu.clearRequests();
    const plan = await runCli(emu, ["apply", "-c", await config(jobs(s3Job())), "--auto-approve"], { env });
    expect(plan.code).toBe(1);
    expect(plan.stderr).toContain(
      "the ownership_challenge is not the token Cloudflare wrote for s3://audit-logs/zone/{DATE}?region=eu-west-1",
    );
    expect((await emu.calls({ writesOnly: true })).sort()).toEqual([
      `POST zones/${Z}/logpush/ownership/validate`,
      `POST zones/${Z}/logpush/validate/destination`,
    ]);
  });

  it("refuses the challenge command for destinations that need none", async () => {
    const r = await runCli(emu, ["logpush", "challenge", "--zone", Z, "--destination", "r2://logs/x"]);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain("r2 destinations need no ownership challenge");
  });
});

describe("log fields checked against the dataset", () => {
  const FW = `zones/${Z}/logpush/datasets/firewall_events/fields`;
  const VALIDATE = `POST zones/${Z}/logpush/validate/destination`;
  const fwJob = (filterKey: string, fields: string) =>
    r2Job(
      `filter:\n  where:\n    or:\n      - { key: Action, operator: eq, value: block }\n      - and:\n          - ` +
        `{ key: ${filterKey}, operator: eq, value: example.com }\n          - { key: RayID, operator: eq, value: x }\n` +
        `output_options:\n  field_names: [${fields}]`,
      "fw-to-r2",
    ).replace("dataset: http_requests", "dataset: firewall_events");

  it(
    "stops the plan on a filter key and a field name the dataset lacks, naming each with close matches; " +
      "apply writes nothing",
    async () => {
      const cfg = await config(jobs(fwJob("ClientRequestHost", "RayID, ClientIp")));
      const valid = await runCli(emu, ["validate", "-c", cfg], { env: baseEnv });
      expect(valid.code, valid.stderr).toBe(0);
      await emu.clearRequests();
      const plan = await runCli(emu, ["plan", "-c", cfg, "--detailed-exitcode"], { env: baseEnv });
      expect(plan.code, plan.stdout + plan.stderr).toBe(1);
      const tail = `; the API would refuse the job at apply (GET ${FW} lists the dataset's fields); nothing was changed`;
      expect(plan.stderr).toContain(
        `logpush job "fw-to-r2": the filter names "ClientRequestHost", which dataset firewall_events does not ` +
          `have (did you mean ClientRequestHTTPHost, ClientRequestPath, ClientRefererHost?)${tail}`,
      );
      expect(plan.stderr).toContain(
        `logpush job "fw-to-r2": output_options.field_names names "ClientIp", which dataset firewall_events ` +
          `does not have (did you mean ClientIP?)${tail}`,
      );
      // The destination holds the access keys: it is checked at apply, never before the review.
      expect(await emu.calls()).toEqual([`GET ${JOBS}`, `GET ${FW}`]);
      await emu.clearRequests();
      const apply = await runCli(emu, ["apply", "-c", cfg, "--auto-approve"], { env: baseEnv });
      expect(apply.code, apply.stdout + apply.stderr).toBe(1);
      expect(apply.stderr).toContain('the filter names "ClientRequestHost"');
      expect(await emu.calls()).toEqual([`GET ${JOBS}`, `GET ${FW}`]);
      expect(await liveJobs()).toEqual([]);
    },
  );

  it("creates a job whose fields the dataset has, reading them once in the plan; a filter change reads them again", async () => {
    const cfg = await config(jobs(fwJob("ClientRequestHTTPHost", "RayID, ClientIP, Action")));
    await emu.clearRequests();
    const plan = await runCli(emu, ["plan", "-c", cfg, "--detailed-exitcode"], { env: baseEnv });
    expect(plan.code, plan.stdout + plan.stderr).toBe(2);
    expect(plan.stdout).toContain("Cloudflare checks this destination at apply");
    expect(await emu.calls()).toEqual([`GET ${JOBS}`, `GET ${FW}`]);
    const { writes, log } = await converge(cfg);
    expect(log.map(call)).toEqual([`GET ${JOBS}`, `GET ${FW}`, VALIDATE, `GET ${JOBS}`, `POST ${JOBS}`]);
    expect(writes).toEqual([`POST ${JOBS}`]);
    expect(await liveJobs()).toEqual([
      expect.objectContaining({ name: "fw-to-r2", dataset: "firewall_events", output_options: expect.anything() }),
    ]);

    // A filter change alone: the fields are read again, the unchanged destination is not checked.
    const changed = await config(jobs(fwJob("ClientRequestPath", "RayID, ClientIP, Action")));
    await emu.clearRequests();
    const { writes: put, log: log2 } = await converge(changed);
    expect(log2.map(call)).toEqual([
      `GET ${JOBS}`,
      `GET ${FW}`,
      expect.stringMatching(new RegExp(`^PUT ${JOBS}/\\d+$`)),
    ]);
    expect(put).toHaveLength(1);
    // And a typo in the changed filter stops the update.
    await emu.clearRequests();
    const bad = await runCli(
      emu,
      ["plan", "-c", await config(jobs(fwJob("ClientRequestPth", "RayID, ClientIP, Action")))],
      {
        env: baseEnv,
      },
    );
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain(
      'the filter names "ClientRequestPth", which dataset firewall_events does not have (did you mean ClientRequestPath',
    );
    expect(await emu.calls()).toEqual([`GET ${JOBS}`, `GET ${FW}`]);
  });
});

describe("destination checks and filter limits", () => {
  it("checks a destination that holds a secret at apply: one the API finds invalid stops it with nothing written", async () => {
    const cfg = await config(jobs(r2Job("").replace("r2://logs/", "r2://invalid-bucket/")));
    await emu.clearRequests();
    const plan = await runCli(emu, ["plan", "-c", cfg], { env: baseEnv });
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain("Cloudflare checks this destination at apply, before anything is written");
    expect(await emu.calls({ writesOnly: true })).toEqual([]);
    const apply = await runCli(emu, ["apply", "-c", cfg, "--auto-approve"], { env: baseEnv });
    expect(apply.code).toBe(1);
    expect(apply.stderr).toMatch(
      /logpush job "http-to-r2": the destination r2:\/\/invalid-bucket\/http\/\{DATE\}\?account-id=\w+&access-key-id=\(sensitive\)&secret-access-key=\(sensitive\) is not valid: .*could not be reached/,
    );
    expect(apply.stderr).toContain("nothing was written");
    expect((await emu.calls({ writesOnly: true })).filter((c) => !c.includes("/validate"))).toEqual([]);
  });

  it("rejects a filter over 30 operators or 1000 bytes before any call", async () => {
    const leaves = Array.from(
      { length: 31 },
      (_, i) => `      - { key: ClientRequestPath, operator: eq, value: /p${i} }`,
    ).join("\n");
    const tooMany = await config(jobs(r2Job(`filter:\n  where:\n    or:\n${leaves.replace(/^ {6}/gm, "      ")}`)));
    const long = await config(
      jobs(r2Job(`filter:\n  where: { key: ClientRequestPath, operator: eq, value: /${"x".repeat(1000)} }`)),
    );
    await emu.clearRequests();
    for (const [cfg, text] of [
      [tooMany, "operators"],
      [long, "bytes"],
    ] as const) {
      for (const cmd of ["validate", "plan"]) {
        const r = await runCli(emu, [cmd, "-c", cfg], { env: baseEnv });
        expect(r.code, r.stderr).toBe(3);
        expect(r.stderr).toContain(text);
      }
    }
    expect(await emu.calls()).toEqual([]);
  });
});

describe("examples/logpush-to-storage/zoneform.yaml", () => {
  it("validates, creates its custom fields and jobs, and re-plans with no changes", async () => {
    const io = "10213f9a67f24716c174364bbdb458e2";
    await emu.admin("POST", "/zones", { name: "example.io", plan: "enterprise" });
    const cfg = join(process.cwd(), "examples", "logpush-to-storage", "zoneform.yaml");
    const { token: challenge } = await emu.admin<{ token: string }>(
      "GET",
      `/ownership/${io}?destination=${encodeURIComponent("s3://example-io-logs/http/{DATE}")}`,
    );
    const env = {
      AWS_KEY_ID: "AKIAEXAMPLE",
      AWS_SECRET: "s3cr3t-value",
      DATADOG_API_KEY: "dd-key-value",
      LOGPUSH_CHALLENGE: challenge,
    };
    const validate = await runCli(emu, ["validate", "-c", cfg], { env });
    expect(validate.code, validate.stderr).toBe(0);
    expect(validate.stderr).toBe("");
    await emu.clearRequests();
    const { writes } = await converge(cfg, env);
    expect(writes).toEqual([
      `POST zones/${io}/rulesets`,
      `POST zones/${io}/logpush/jobs`,
      `POST zones/${io}/logpush/jobs`,
      `POST zones/${io}/logpush/jobs`,
    ]);
    const live = await emu.api<Array<Record<string, unknown>>>("GET", `zones/${io}/logpush/jobs`);
    expect(live.map((j) => [j.name, j.enabled])).toEqual([
      ["http-to-s3", true],
      ["errors-to-s3", false],
      ["firewall-to-datadog", true],
    ]);
  });
});
