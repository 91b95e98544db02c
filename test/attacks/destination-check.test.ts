// Issue 15, "malformed answers": `{}` (success, an empty result object) from
// `POST zones/{z}/logpush/validate/destination` was taken for "valid", and the job was created. A
// destination check counts only with the documented answer (`{valid: true|false, message}`); anything
// else fails the zone, saying what the API answered and what was expected, and nothing is written.
//
// Before the fix (src/resources/logpush-jobs.ts `check`, which tested only `res && res.valid === false`)
// `{}`, a null result and `valid: "yes"` passed as valid, and `{}` from ownership/validate as a matching
// token: plan exited 0 showing the create, apply exited 0 after `POST …/logpush/jobs`.
import { describe, expect, it } from "vitest";
import { ACCOUNT, TestEmulator, ZONE, writeConfig } from "../helpers/cli.js";
import { changingWrites, envelope, expectFailure, runBuilt, useHostileProxy } from "./helpers.js";

const emu = TestEmulator.perFile();
const hostile = useHostileProxy(emu);

const Z = ZONE.com;
const JOBS = `zones/${Z}/logpush/jobs`;
const VALIDATE = `zones/${Z}/logpush/validate/destination`;
const OWNERSHIP = `zones/${Z}/logpush/ownership/validate`;

const jobConfig = (job: string) => `version: 1
account_id: ${ACCOUNT}
zones:
  - zone_id: ${Z}
    name: example.com
    logs:
      logpush_jobs:
        - ${job}
`;
const HTTPS_JOB =
  `{ name: http-to-https, dataset: http_requests, destination_conf: ` +
  `"https://logs.example.com/ingest", output_options: { field_names: [RayID] } }`;

/** The zone error for a check answered without a boolean `valid`. */
const answered = (check: string, got: string) =>
  `the API answered POST logpush/${check} with ${got}, expected {"valid": true|false}; the destination was ` +
  `not confirmed and nothing was changed`;

/** Answers `path` (a POST) with `result` in a successful envelope, without asking the emulator. */
function answerPost(path: string, result: unknown) {
  hostile.proxy.spoil = (req, res) => {
    if (req.method !== "POST" || req.path !== path) return false;
    res.writeHead(200, { "content-type": "application/json" }).end(envelope(result));
    return true;
  };
}

/** plan and apply both fail the zone with exit 1 and exactly this message for the job; no job is created. */
async function expectRefused(
  config: string,
  job: string,
  reason: string,
  env: Record<string, string> = {},
): Promise<void> {
  for (const command of [["plan"], ["apply", "--auto-approve"]]) {
    const r = await runBuilt([...command, "-c", config, "--api-url", hostile.proxy.url], { deadlineMs: 10_000, env });
    expectFailure(r, 1);
    expect(r.stderr).toContain("Error: 1 zone could not be planned; nothing was changed:\n");
    expect(r.stderr).toContain(`\n  [example.com] logpush job "${job}": ${reason}\n`);
  }
  expect(hostile.proxy.log.some((l) => l.spoiled)).toBe(true);
  expect(changingWrites(await emu.calls())).toEqual([]);
  expect(hostile.proxy.seen("POST", new RegExp(`^${JOBS}$`))).toBe(0);
}

/** A check that waits for apply (its body holds a secret): the plan says so, apply fails with nothing written. */
async function expectRefusedAtApply(config: string, job: string, reason: string, env: Record<string, string>) {
  const plan = await runBuilt(["plan", "-c", config, "--api-url", hostile.proxy.url], { deadlineMs: 10_000, env });
  expect(plan.code, plan.stderr).toBe(0);
  expect(plan.stdout).toContain("Cloudflare checks this destination at apply");
  const r = await runBuilt(["apply", "-c", config, "--auto-approve", "--api-url", hostile.proxy.url], {
    deadlineMs: 10_000,
    env,
  });
  expectFailure(r, 1);
  expect(r.stderr).toContain(
    "Error: Cloudflare's checks that waited for apply found 1 problem(s); nothing was written:\n",
  );
  expect(r.stderr).toContain(`\n  [example.com] logpush job "${job}": ${reason}\n`);
  expect(hostile.proxy.log.some((l) => l.spoiled)).toBe(true);
  expect(changingWrites(await emu.calls())).toEqual([]);
  expect(hostile.proxy.seen("POST", new RegExp(`^${JOBS}$`))).toBe(0);
}

describe("a destination check answered without the documented fields", () => {
  it("the real answer {valid: true} lets apply create the job (the control)", async () => {
    const config = await writeConfig(jobConfig(HTTPS_JOB));
    const r = await runBuilt(["apply", "-c", config, "--auto-approve", "--api-url", hostile.proxy.url], {
      deadlineMs: 10_000,
    });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(changingWrites(await emu.calls())).toEqual([`POST ${JOBS}`]);
  }, 15_000);

  it('{} from validate/destination is not "valid": plan and apply fail the zone with exit 1 and ' +
    "create no job", async () => {
    answerPost(VALIDATE, {});
    await expectRefused(
      await writeConfig(jobConfig(HTTPS_JOB)),
      "http-to-https",
      answered("validate/destination", "{}"),
    );
  }, 15_000);

  it('a null result from validate/destination is not "valid" either', async () => {
    answerPost(VALIDATE, null);
    await expectRefused(
      await writeConfig(jobConfig(HTTPS_JOB)),
      "http-to-https",
      answered("validate/destination", "null"),
    );
  }, 15_000);

  it('valid: "yes" (a string) from validate/destination is not "valid"', async () => {
    answerPost(VALIDATE, { valid: "yes", message: "" });
    await expectRefused(
      await writeConfig(jobConfig(HTTPS_JOB)),
      "http-to-https",
      answered("validate/destination", '{"valid":"yes","message":""}'),
    );
  }, 15_000);

  it("{} from ownership/validate is not a matching token: apply fails with exit 1 and no job is created", async () => {
    const destination = "s3://attack-logs/zone/{DATE}?region=eu-west-1";
    const { token } = await emu.admin<{ token: string }>(
      "GET",
      `/ownership/${Z}?destination=${encodeURIComponent(destination)}`,
    );
    const config = await writeConfig(
      jobConfig(
        `{ name: http-to-s3, dataset: http_requests, destination_conf: "${destination}", ` +
          `ownership_challenge: "\${env:LOGPUSH_CHALLENGE}" }`,
      ),
    );
    const env = { LOGPUSH_CHALLENGE: token };
    // The token is a secret: both checks wait for apply, after the review.
    answerPost(OWNERSHIP, {});
    await expectRefusedAtApply(config, "http-to-s3", answered("ownership/validate", "{}"), env);
  }, 15_000);
});
