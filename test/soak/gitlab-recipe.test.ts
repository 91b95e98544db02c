// The GitLab recipe's plan and apply jobs (examples/ci/gitlab-ci.yml) run as written: each job's
// script, taken from the recipe, runs in bash in a project folder of its own, with the job's
// `variables:`, GitLab's CI_* variables, and a zoneform "installed" in a global npm prefix of its own
// (bin/zoneform the built CLI, lib/node_modules/zoneform this checkout, so that `npm root --global`
// finds examples/ci/gitlab-reviewed-plan.mjs as in the image), against the emulator and a stand-in for
// GitLab's API (test/helpers/gitlab-standin.ts). Each test is a way someone who can post a note or
// push a branch tried to get another plan applied, or the good path: the Cloudflare writes are
// asserted from the emulator's request log (the reviewed plan's, or none), and the GitLab calls from
// the stand-in's. The evidence job runs the same way, week after week: it starts from the artifact of its
// last run (the artifacts-by-ref API with the job token), and starts a record from nothing only on the
// run marked first.
import { spawn } from "node:child_process";
import { mkdir, readdir, readFile, symlink, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { planWrites } from "../helpers/action-runner.js";
import { TOKEN, TestEmulator, ZONE, runCli, tempDir } from "../helpers/cli.js";
import { GitLabStandIn, zipArchive } from "../helpers/gitlab-standin.js";
import { gitlabJob } from "../helpers/recipes.js";

const ROOT = resolve(import.meta.dirname, "../..");
const emu = TestEmulator.perFile();
const PROJECT = 42;
const GL_TOKEN = "glpat-standin-0123456789";
const BOT = { id: 77, username: "project_42_bot_5f1c", bot: true };
const MALLORY = { id: 13, username: "mallory" };
const gl = new GitLabStandIn(PROJECT);
gl.tokens.set(GL_TOKEN, BOT);

const HEAD = "a".repeat(40);
const MERGE = "b".repeat(40);
const IID = 7;
const JOB = 9001;
/** The marker the note script writes on line 1 of its note. */
const MARKER = /^<!-- zoneform:plan v2 (?:digest=(sha256:[0-9a-f]{64})|failed) head=([0-9a-f]{40}) job=(\d+) -->$/;

let prefix = "";
beforeAll(async () => {
  await gl.start();
  // zoneform as `npm install --global` lays it out: the package's folder, and its bin on PATH.
  prefix = await tempDir("zoneform-gitlab-prefix-");
  await mkdir(join(prefix, "lib/node_modules"), { recursive: true });
  await mkdir(join(prefix, "bin"));
  await symlink(ROOT, join(prefix, "lib/node_modules/zoneform"));
  await symlink(join(ROOT, "dist/cli/zoneform.js"), join(prefix, "bin/zoneform"));
});
afterAll(() => gl.close());

interface ZoneOptions {
  name?: string;
  value?: string;
}
const config = (o: ZoneOptions = {}) => `version: 1
zones:
  - zone_id: ${ZONE.com}
    name: ${JSON.stringify(o.name ?? "example.com")}
    page_shield:
      enabled: true
      policies:
        - description: Checkout allow-list
          action: allow
          expression: http.request.uri.path contains "/checkout"
          value: ${o.value ?? "script-src 'self' https://js.stripe.com"}
`;
const EVIL = config({ value: "script-src * 'unsafe-inline'" });

interface JobRun {
  code: number;
  stdout: string;
  stderr: string;
  dir: string;
}

/** A checkout of the project: zones/zoneform.yaml. */
async function checkout(yaml: string): Promise<string> {
  const dir = await tempDir("zoneform-gitlab-project-");
  await mkdir(join(dir, "zones"));
  await writeFile(join(dir, "zones/zoneform.yaml"), yaml);
  return dir;
}

/** Runs the recipe's job `name` in `dir` with GitLab's variables `ci`, as the runner does (one bash). */
async function runJob(name: "plan" | "apply" | "evidence", dir: string, ci: Record<string, string>): Promise<JobRun> {
  const job = gitlabJob(name);
  const home = await tempDir("zoneform-gitlab-home-");
  const env: Record<string, string> = {
    PATH: `${join(prefix, "bin")}:${dirname(process.execPath)}:/usr/bin:/bin`,
    HOME: home,
    npm_config_prefix: prefix,
    npm_config_update_notifier: "false",
    NO_COLOR: "1",
    CLOUDFLARE_API_BASE_URL: emu.url,
    CLOUDFLARE_API_TOKEN_READ: TOKEN,
    CLOUDFLARE_API_TOKEN_EDIT: TOKEN,
    ZONEFORM_NOW: emu.now!,
    CI_API_V4_URL: gl.apiUrl,
    CI_PROJECT_ID: String(PROJECT),
    CI_PROJECT_DIR: dir,
    CI_DEFAULT_BRANCH: "main",
    ZONEFORM_GITLAB_TOKEN: GL_TOKEN,
    ...ci,
  };
  for (const [k, v] of Object.entries(job.variables)) env[k] = v.replace(/\$(\w+)/g, (_, n: string) => env[n] ?? "");
  const child = spawn("bash", ["-c", job.script], { cwd: dir, env, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (c: Buffer) => (stdout += c.toString("utf8")));
  child.stderr.on("data", (c: Buffer) => (stderr += c.toString("utf8")));
  const code = await new Promise<number>((r) => child.on("close", (c) => r(c ?? -1)));
  return { code, stdout, stderr, dir };
}

/** The merge request pipeline's plan job at `head`; when it succeeds, its job and artifacts are GitLab's. */
async function planJob(yaml: string, opts: { head?: string; job?: number; ci?: Record<string, string> } = {}) {
  const head = opts.head ?? HEAD;
  const job = opts.job ?? JOB;
  const run = await runJob("plan", await checkout(yaml), {
    CI_PIPELINE_SOURCE: "merge_request_event",
    CI_MERGE_REQUEST_EVENT_TYPE: "detached",
    CI_MERGE_REQUEST_IID: String(IID),
    CI_COMMIT_SHA: head,
    CI_JOB_ID: String(job),
    CI_JOB_URL: `https://gitlab.example/group/zones/-/jobs/${job}`,
    ...opts.ci,
  });
  let text = "";
  if (run.code === 0) {
    text = await readFile(join(run.dir, "plan.json"), "utf8");
    gl.addJob(job, head, {
      artifacts: { "plan.json": text, "plan.md": await readFile(join(run.dir, "plan.md"), "utf8") },
    });
  } else gl.addJob(job, head, { jobStatus: "failed" });
  return { run, text };
}

/** The apply job of the push of MERGE to main, in a checkout of main holding `yaml`. */
async function applyJob(yaml: string): Promise<JobRun> {
  return runJob("apply", await checkout(yaml), {
    CI_PIPELINE_SOURCE: "push",
    CI_COMMIT_SHA: MERGE,
    CI_COMMIT_BRANCH: "main",
  });
}

/** A plan the attacker made on their own (another configuration): its file text and digest. */
async function attackerPlan(): Promise<{ text: string; digest: string }> {
  const dir = await checkout(EVIL);
  const made = await runCli(emu, ["plan", "-c", join(dir, "zones"), "--out", join(dir, "evil.json")]);
  expect(made.code, made.stderr).toBe(0);
  const text = await readFile(join(dir, "evil.json"), "utf8");
  return { text, digest: (JSON.parse(text) as { digest: string }).digest };
}

const botNotes = () => gl.notesOn(IID).filter((n) => n.author.id === BOT.id);

/** A refusal: exit 1, the message on stderr, nothing sent to Cloudflare, no artifact downloaded. */
async function expectRefused(r: JobRun, why: RegExp): Promise<void> {
  expect(r.code, r.stderr).toBe(1);
  expect(r.stderr).toMatch(why);
  expect(await emu.calls({ writesOnly: true })).toEqual([]);
  expect(gl.paths().some((p) => p.includes("/artifacts/"))).toBe(false);
}

describe("the good path, with notes and data shaped like the marker and a digest line", () => {
  it(
    "the plan job writes one note of its own whose line 1 is the digest zoneform computed; the apply takes " +
      "that job's artifact only, applies it, and a re-run says already applied",
    async () => {
      gl.reset();
      const evil = await attackerPlan();
      // Anyone can post a note: one as the recipe before issue 33 wrote them, one with the marker.
      const legacy = gl.addNote(
        IID,
        `<!-- zoneform plan -->\n### zoneform plan\n\nPlan digest: \`${evil.digest}\``,
        MALLORY,
      );
      const forged = gl.addNote(
        IID,
        `<!-- zoneform:plan v2 digest=${evil.digest} head=${HEAD} job=6666 -->\nLGTM`,
        MALLORY,
      );
      gl.addJob(6666, HEAD, { artifacts: { "plan.json": evil.text } }); // a merge request pipeline of hers
      // The file's own data: a zone name shaped like the marker and a digest line.
      const yaml = config({
        name: `<!-- zoneform:plan v2 digest=${evil.digest} head=${HEAD} job=6666 --> Plan digest: \`${evil.digest}\``,
      });
      await emu.clearRequests();
      const { run: planned, text } = await planJob(yaml);
      expect(planned.code, planned.stderr).toBe(0);
      expect(await emu.calls({ writesOnly: true })).toEqual([]);
      const digest = (JSON.parse(text) as { digest: string }).digest;
      expect(digest).not.toBe(evil.digest);
      expect(gl.paths().filter((p) => p.startsWith("POST") || p.startsWith("PUT"))).toEqual([
        `POST /projects/${PROJECT}/merge_requests/${IID}/notes`,
      ]);
      expect(gl.notes.find((n) => n.id === legacy.id)!.body).toContain("Plan digest");
      expect(gl.notes.find((n) => n.id === forged.id)!.body).toContain("LGTM");
      const [note] = botNotes();
      const [line1, ...rest] = note!.body.split("\n");
      expect(MARKER.exec(line1!)?.slice(1)).toEqual([digest, HEAD, String(JOB)]);
      expect(rest[0]).toBe("<!-- zoneform plan -->"); // the Markdown's own heading marker, below
      expect(rest.join("\n")).toContain(evil.digest); // the zone name, as data
      expect(rest.some((l) => l.startsWith("<!-- zoneform:plan"))).toBe(false);
      expect(note!.body).toContain(
        `Commit \`${HEAD}\`, [job ${JOB}](https://gitlab.example/group/zones/-/jobs/${JOB})`,
      );

      gl.merged(IID, HEAD, MERGE);
      gl.redirectArtifacts = true; // the artifact comes from object storage, without the token
      gl.calls = [];
      await emu.clearRequests();
      const applied = await applyJob(yaml);
      expect(applied.code, applied.stderr).toBe(0);
      expect((await emu.calls({ writesOnly: true })).sort()).toEqual(planWrites(text));
      expect(gl.paths()).toEqual([
        `GET /projects/${PROJECT}/repository/commits/${MERGE}/merge_requests`,
        "GET /user",
        `GET /projects/${PROJECT}/merge_requests/${IID}/notes`,
        `GET /projects/${PROJECT}/jobs/${JOB}`,
        `GET /projects/${PROJECT}/pipelines/${JOB + 100_000}`,
        `GET /projects/${PROJECT}/jobs/${JOB}/artifacts/plan.json`,
        `GET storage:/artifacts/${JOB}/plan.json`,
      ]);
      expect(applied.stderr).toContain(`digest ${digest}, the artifact plan.json of job ${JOB}`);
      const again = await runCli(emu, ["plan", "-c", join(applied.dir, "zones"), "--detailed-exitcode"]);
      expect(again.code, again.stdout).toBe(0);

      // A re-run of the finished apply job: the reviewed plan is stale now, and nothing is left to do.
      await emu.clearRequests();
      const rerun = await applyJob(yaml);
      expect(rerun.code, rerun.stderr).toBe(0);
      expect(rerun.stdout).toContain("Already applied: the zones match the files on main");
      expect(await emu.calls({ writesOnly: true })).toEqual([]);
    },
  );
});

describe("the note is the token's user's own", () => {
  it("notes by others, with the marker or the old heading and digest line, are never read by the apply", async () => {
    gl.reset();
    const evil = await attackerPlan();
    gl.addNote(IID, `<!-- zoneform plan -->\nPlan digest: \`${evil.digest}\``, MALLORY);
    gl.addNote(IID, `<!-- zoneform:plan v2 digest=${evil.digest} head=${HEAD} job=6666 -->\nLGTM`, MALLORY);
    // A system note "by" the bot's user is no note of its own either.
    gl.addNote(IID, `<!-- zoneform:plan v2 digest=${evil.digest} head=${HEAD} job=6666 -->`, BOT, true);
    gl.addJob(6666, HEAD, { artifacts: { "plan.json": evil.text } });
    gl.merged(IID, HEAD, MERGE);
    await emu.clearRequests();
    const r = await applyJob(config());
    await expectRefused(
      r,
      /^gitlab-reviewed-plan: !7 has no plan note by "project_42_bot_5f1c" \(user 77; .*notes by other users are never read/m,
    );
    expect(gl.paths().some((p) => p.includes("/jobs/"))).toBe(false);
  });

  it("the plan job updates its one note in place, a failed plan says so there, and the apply refuses it", async () => {
    gl.reset();
    // The note of this recipe's earlier versions, by the same user: updated, not doubled.
    const earlier = gl.addNote(IID, "<!-- zoneform plan -->\n### zoneform plan\n\nold", BOT);
    const mallorys = gl.addNote(IID, "<!-- zoneform plan -->\nmine", MALLORY);
    const first = await planJob(config());
    expect(first.run.code, first.run.stderr).toBe(0);
    expect(botNotes().map((n) => n.id)).toEqual([earlier.id]);
    expect(MARKER.exec(botNotes()[0]!.body.split("\n")[0]!)?.[2]).toBe(HEAD);

    const HEAD2 = "c".repeat(40);
    const second = await planJob("version: 1\nzones: [", { head: HEAD2, job: JOB + 1 });
    expect(second.run.code).toBe(3);
    expect(botNotes().map((n) => n.id)).toEqual([earlier.id]);
    const body = botNotes()[0]!.body;
    expect(body.split("\n")[0]).toBe(`<!-- zoneform:plan v2 failed head=${HEAD2} job=${JOB + 1} -->`);
    expect(body).toContain("`zoneform validate` failed (exit 3)");
    expect(gl.notes.find((n) => n.id === mallorys.id)!.body).toBe("<!-- zoneform plan -->\nmine");
    expect(gl.paths().filter((p) => p.startsWith("PUT"))).toEqual([
      `PUT /projects/${PROJECT}/merge_requests/${IID}/notes/${earlier.id}`,
      `PUT /projects/${PROJECT}/merge_requests/${IID}/notes/${earlier.id}`,
    ]);

    gl.merged(IID, HEAD2, MERGE);
    gl.calls = [];
    await emu.clearRequests();
    await expectRefused(await applyJob(config()), /the plan of !7 at c{40} failed \(job 9002\): nothing was reviewed/);

    // Merged at a head whose plan never finished: the note is for another commit.
    gl.mergeRequests = [];
    gl.merged(IID, "d".repeat(40), MERGE);
    gl.calls = [];
    await expectRefused(
      await applyJob(config()),
      /the plan note on !7 is for c{40}, not for d{40}, the head !7 was merged at/,
    );
  });
});

describe("the job is the one the marker names, a merge request pipeline's of the head, in this project", () => {
  const cases: Array<[string, () => void, RegExp]> = [
    ["a push pipeline's job", () => gl.addJob(JOB, HEAD, { source: "push" }), /its pipeline's source is "push"/],
    ["a job of another commit", () => gl.addJob(JOB, "e".repeat(40)), /its pipeline's commit is "e{40}"/],
    ["a job of another project", () => gl.addJob(JOB, HEAD, { project_id: 43 }), /belongs to project 43/],
    ["a job that failed", () => gl.addJob(JOB, HEAD, { jobStatus: "failed" }), /its status is "failed"/],
    [
      "a job GitLab no longer has",
      () => {
        gl.jobs = [];
      },
      /names job 9001, which could not be read \(GitLab API GET \/api\/v4\/projects\/42\/jobs\/9001: HTTP 404/,
    ],
  ];

  it.each(cases)("%s is refused before anything is downloaded", async (_what, change, why) => {
    gl.reset();
    const { run } = await planJob(config());
    expect(run.code, run.stderr).toBe(0);
    gl.merged(IID, HEAD, MERGE);
    const artifacts = gl.jobs[0]!.artifacts;
    change();
    for (const j of gl.jobs) j.artifacts = artifacts;
    gl.calls = [];
    await emu.clearRequests();
    const r = await applyJob(config());
    await expectRefused(r, why);
    if (gl.jobs.length > 0) expect(r.stderr).toMatch(/which is not the job that planned it: .*Nothing is applied\./);
  });

  it("the named job's artifact is another plan: the digest zoneform computes differs, nothing is applied", async () => {
    gl.reset();
    const evil = await attackerPlan();
    const { run, text } = await planJob(config());
    expect(run.code, run.stderr).toBe(0);
    gl.merged(IID, HEAD, MERGE);
    gl.jobs[0]!.artifacts["plan.json"] = evil.text;
    await emu.clearRequests();
    const r = await applyJob(config());
    expect(r.code, r.stderr).toBe(1);
    const digest = (JSON.parse(text) as { digest: string }).digest;
    expect(r.stdout).toContain(
      `The plan job's artifact hashes to ${evil.digest}, not to ${digest}, the digest of the reviewed note:\n` +
        "it is not the reviewed plan. Nothing is applied.",
    );
    expect(await emu.calls({ writesOnly: true })).toEqual([]);

    // An artifact edited after it was made (its digest field kept): show refuses it.
    const edited = text.replace("https://js.stripe.com", "https://evil.example");
    expect(edited).not.toBe(text);
    gl.jobs[0]!.artifacts["plan.json"] = edited;
    const tampered = await applyJob(config());
    expect(tampered.code).toBe(1);
    expect(tampered.stdout).not.toContain("Applying");
    expect(await emu.calls({ writesOnly: true })).toEqual([]);
  });
});

describe("the last link: apply -c the merged files", () => {
  it("a reviewed plan not of the files main holds is refused, and the new plan is shown for a person", async () => {
    gl.reset();
    const { run } = await planJob(config());
    expect(run.code, run.stderr).toBe(0);
    gl.merged(IID, HEAD, MERGE);
    await emu.clearRequests();
    // main holds other files than the merge request planned (another change merged in between).
    const r = await applyJob(config({ value: "script-src 'self' https://js.stripe.com https://www.paypal.com" }));
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toContain("then run\na pipeline on main with the variable ZONEFORM_DIGEST set to its digest.");
    expect(r.stdout).toContain("https://www.paypal.com");
    expect(await emu.calls({ writesOnly: true })).toEqual([]);
  });

  it("a merged results pipeline's plan job refuses to write a note the apply could not bind", async () => {
    gl.reset();
    const { run } = await planJob(config(), { ci: { CI_MERGE_REQUEST_EVENT_TYPE: "merged_result" } });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/CI_MERGE_REQUEST_EVENT_TYPE is "merged_result": in a merged results pipeline/);
    expect(gl.notes).toEqual([]);
  });
});

describe("the evidence job: the period kept as its artifact, each run starting from the last one's", () => {
  const JOB_TOKEN = "glcbt-standin-job-token";
  const RECORD = /^zoneform-audit-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}Z-\d{3}\.json$/;
  const QUERY = "job=evidence&search_recent_successful_pipelines=true";
  const DOWNLOAD = `GET /projects/${PROJECT}/jobs/artifacts/main/download?${QUERY}`;
  gl.jobTokens.add(JOB_TOKEN);
  let nextJob = 30_000;

  /** The weekly schedule's evidence job on main at `now`, in a fresh checkout; `mark` is ZONEFORM_EVIDENCE. */
  const evidenceJob = async (now: string, mark = "weekly") =>
    runJob("evidence", await checkout(config()), {
      CI_PIPELINE_SOURCE: "schedule",
      CI_COMMIT_BRANCH: "main",
      CI_COMMIT_SHA: MERGE,
      CI_JOB_NAME: "evidence",
      CI_JOB_ID: String(nextJob),
      CI_JOB_TOKEN: JOB_TOKEN,
      ZONEFORM_EVIDENCE: mark,
      ZONEFORM_NOW: now,
    });

  const records = async (dir: string) => (await readdir(join(dir, "evidence"))).filter((n) => RECORD.test(n)).sort();

  /** What GitLab keeps of a finished job: its evidence/, zipped, in a successful schedule pipeline of main. */
  async function kept(run: JobRun): Promise<number> {
    const files: Record<string, Buffer> = {};
    for (const name of await records(run.dir))
      files[`evidence/${name}`] = await readFile(join(run.dir, "evidence", name));
    const id = nextJob++;
    gl.addJob(id, MERGE, { name: "evidence", ref: "main", source: "schedule", archive: zipArchive(files) });
    return id;
  }

  it("the first run starts the record; the next ones start from the last artifact, through a redirect", async () => {
    gl.reset();
    const first = await evidenceJob("2026-11-25T12:00:00Z", "first");
    // The zone has findings: exit 2, which the job's allow_failure turns into a warning.
    expect(first.code, first.stderr).toBe(2);
    expect(first.stdout).toContain("No record yet (HTTP 404), and ZONEFORM_EVIDENCE is first: this run starts one.");
    expect(first.stdout).toContain("**RECORD COMPLETE: 1 run from 2026-11-25T12:00:00.000Z");
    expect(await records(first.dir)).toHaveLength(1);
    const firstJob = await kept(first);
    // A newer successful pipeline of main without the job (the nightly drift's): GitLab looks further back.
    gl.addJob(nextJob++, MERGE, { name: "drift", ref: "main", source: "schedule" });

    gl.redirectArtifacts = true;
    gl.calls = [];
    const second = await evidenceJob("2026-12-01T12:00:00Z");
    expect(second.code, second.stderr).toBe(2);
    expect(gl.paths()).toEqual([DOWNLOAD.replace(/\?.*$/, ""), `GET storage:/archives/${firstJob}`]);
    expect(gl.calls[0]).toBe(DOWNLOAD);
    const names = await records(second.dir);
    expect(names).toEqual([...(await records(first.dir)), expect.stringMatching(/^zoneform-audit-2026-12-01T/)]);
    const latest = JSON.parse(await readFile(join(second.dir, "evidence", names[1]!), "utf8")) as {
      evidence: { previous: { file: string } };
    };
    expect(latest.evidence.previous.file).toBe(names[0]);
    expect(second.stdout).toContain("**RECORD COMPLETE: 2 runs from 2026-11-25T12:00:00.000Z");
    await kept(second);

    // Nineteen days later: the period shows the gap, and the job warns (exit 2) with the record kept.
    const late = await evidenceJob("2026-12-20T12:00:00Z");
    expect(late.code, late.stderr).toBe(2);
    expect(await records(late.dir)).toHaveLength(3);
    expect(late.stdout).toContain("**RECORD INCOMPLETE: 3 runs from 2026-11-25T12:00:00.000Z");
    expect(late.stdout).toContain("2026-12-01T12:00:00.000Z → 2026-12-20T12:00:00.000Z: 19 days");
  });

  it("a 404 on a run not marked first, another answer, or a record on a run marked first: no audit", async () => {
    gl.reset();
    await emu.clearRequests();
    const missing = await evidenceJob("2026-11-25T12:00:00Z");
    expect(missing.code, missing.stderr).toBe(1);
    expect(missing.stdout).toContain("No artifact of evidence on main (HTTP 404): not in the pipelines GitLab looked");
    gl.artifactsStatus = 500;
    const failing = await evidenceJob("2026-11-25T12:00:00Z", "first");
    expect(failing.code, failing.stderr).toBe(1);
    expect(failing.stdout).toContain("The last run's artifact could not be read (HTTP 500): nothing is recorded.");
    gl.artifactsStatus = undefined;
    gl.addJob(nextJob++, MERGE, {
      name: "evidence",
      ref: "main",
      source: "schedule",
      archive: zipArchive({ "evidence/zoneform-audit-2026-11-18T12-00-00Z-001.json": "{}" }),
    });
    const again = await evidenceJob("2026-11-25T12:00:00Z", "first");
    expect(again.code, again.stderr).toBe(1);
    expect(again.stdout).toContain("ZONEFORM_EVIDENCE is first, but a run of this job kept a record already");
    for (const r of [missing, failing, again]) await expect(readdir(join(r.dir, "evidence"))).rejects.toThrow();
    expect(await emu.calls()).toEqual([]);
  });
});
