// Issue 15, "malformed answers are coerced, then acted on": a Page Shield policy whose description is
// null or a number made apply delete and re-create the policy; a policy without `id` made a `PUT
// …/policies/undefined`; a Logpush job whose name is a number made a duplicate job. Each kind now
// checks the shape of what it reads: the zone fails with "the API answered …, expected …" and
// "nothing was changed", exit 1, and no write at all.
import { beforeEach, describe, expect, it } from "vitest";
import { TestEmulator, ZONE, writeConfig } from "../helpers/cli.js";
import { changingWrites, envelope, expectFailure, runBuilt, useHostileProxy } from "./helpers.js";

const emu = TestEmulator.perFile();
const hostile = useHostileProxy(emu);

const Z = ZONE.com;
const POLICIES = `zones/${Z}/page_shield/policies`;
const JOBS = `zones/${Z}/logpush/jobs`;

const CHECKOUT = {
  description: "Checkout",
  action: "log",
  expression: 'http.request.uri.path contains "/checkout"',
  value: "script-src 'self'",
  enabled: true,
};
const JOB = {
  name: "http-to-https",
  dataset: "http_requests",
  destination_conf: "https://logs.example.com/ingest",
  enabled: true,
  output_options: { field_names: ["RayID"] },
};

const CONFIG = `version: 1
zones:
  - zone_id: ${Z}
    name: example.com
    page_shield:
      policies:
        - { description: Checkout, action: log, expression: 'http.request.uri.path contains "/checkout"', value: "script-src 'self'" }
    logs:
      logpush_jobs:
        - { name: http-to-https, dataset: http_requests, destination_conf: "https://logs.example.com/ingest", output_options: { field_names: [RayID] } }
`;

/** The list at `path` as the API answers it, with its first item changed by `spoil`. */
function spoilFirstItem(path: string, spoil: (item: Record<string, unknown>) => void): void {
  hostile.proxy.spoil = async (req, res, forward) => {
    if (req.method !== "GET" || req.path !== path) return false;
    const real = JSON.parse((await forward()).body.toString("utf8")) as { result: Array<Record<string, unknown>> };
    spoil(real.result[0]!);
    res.writeHead(200, { "content-type": "application/json" }).end(envelope(real.result));
    return true;
  };
}

let jobId: string;
let config: string;

beforeEach(async () => {
  await emu.api("POST", POLICIES, CHECKOUT);
  jobId = String((await emu.api<{ id: number }>("POST", JOBS, JOB)).id);
  config = await writeConfig(CONFIG);
  // The control: with the real answers the zone is as the file says.
  const control = await runBuilt(["plan", "-c", config, "--detailed-exitcode", "--api-url", hostile.proxy.url]);
  expect(control.code, control.stdout + control.stderr).toBe(0);
  await emu.clearRequests();
});

/** plan and apply fail the zone with exactly this reason, exit 1, and nothing is written. */
async function expectRefused(kind: string, reason: string): Promise<void> {
  for (const command of [["plan"], ["apply", "--auto-approve"]]) {
    const r = await runBuilt([...command, "-c", config, "--api-url", hostile.proxy.url], { deadlineMs: 10_000 });
    expectFailure(r, 1);
    expect(r.stderr).toContain(
      `Error: 1 zone could not be planned; nothing was changed:\n  [example.com] reading ${kind}: ` +
        `${reason}; nothing was changed\n`,
    );
    expect(r.stderr).not.toContain("undefined");
  }
  expect(hostile.proxy.log.some((l) => l.spoiled)).toBe(true);
  expect(changingWrites(await emu.calls())).toEqual([]);
  // Still one policy and one job: nothing deleted, re-created or duplicated.
  expect(await emu.api<unknown[]>("GET", POLICIES)).toHaveLength(1);
  expect(await emu.api<unknown[]>("GET", JOBS)).toHaveLength(1);
}

describe("malformed items in a list the API answers", () => {
  it("a Page Shield policy whose description is null fails the zone (no delete and re-create)", async () => {
    spoilFirstItem(POLICIES, (p) => (p.description = null));
    await expectRefused(
      "page_shield_policy",
      "the API answered a Page Shield policy with description null, expected a string",
    );
  }, 15_000);

  it("a Page Shield policy whose description is a number fails the zone (no delete and re-create)", async () => {
    spoilFirstItem(POLICIES, (p) => (p.description = 42));
    await expectRefused(
      "page_shield_policy",
      "the API answered a Page Shield policy with description 42, expected a string",
    );
  }, 15_000);

  it("a Page Shield policy without an id fails the zone (no PUT …/policies/undefined)", async () => {
    spoilFirstItem(POLICIES, (p) => {
      delete p.id;
      p.value = "script-src 'none'"; // a difference that would otherwise be written with a PUT to the policy's id
    });
    await expectRefused(
      "page_shield_policy",
      "the API answered a Page Shield policy with id missing, expected a policy id",
    );
  }, 15_000);

  it("a Logpush job whose name is a number fails the zone (no duplicate job, no delete)", async () => {
    spoilFirstItem(JOBS, (j) => (j.name = 42));
    await expectRefused("logpush_job", `the API answered Logpush job ${jobId} with name 42, expected a string or null`);
  }, 15_000);

  it("a Logpush job without an id fails the zone (no PUT …/jobs/undefined)", async () => {
    spoilFirstItem(JOBS, (j) => {
      delete j.id;
      j.enabled = false; // a difference that would otherwise be written with a PUT to the job's id
    });
    await expectRefused(
      "logpush_job",
      "the API answered Logpush job with id missing, expected a job id (a whole number)",
    );
  }, 15_000);
});

describe("a malformed answer to the check before a create", () => {
  it("stops the zone: it is not taken as 'nothing there', and nothing is created", async () => {
    const withNew = await writeConfig(
      CONFIG.replace(
        "    logs:",
        `        - { description: Payment, action: log, expression: 'http.request.uri.path contains ` +
          `"/pay"', value: "script-src 'self'" }\n    logs:`,
      ),
    );
    // The plan's read of the policies is the real one; the apply's check before the create (the next
    // read of that list) answers an object where the list should be.
    let reads = 0;
    hostile.proxy.spoil = (req, res) => {
      if (req.method !== "GET" || req.path !== POLICIES || ++reads < 2) return false;
      res.writeHead(200, { "content-type": "application/json" }).end(envelope({ policies: [] }));
      return true;
    };
    const r = await runBuilt(["apply", "--auto-approve", "-c", withNew, "--api-url", hostile.proxy.url], {
      deadlineMs: 10_000,
    });
    expectFailure(r, 1);
    // The check reads the whole list with the client's strict list reader (its wording).
    expect(r.stderr).toContain(`GET ${POLICIES}: expected a list in the answer's "result", got object`);
    expect(reads).toBe(2);
    expect(changingWrites(await emu.calls())).toEqual([]);
    expect(await emu.api<unknown[]>("GET", POLICIES)).toHaveLength(1);
  }, 15_000);
});
