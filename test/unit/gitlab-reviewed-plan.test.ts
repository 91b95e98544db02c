// The GitLab recipe's note script (examples/ci/gitlab-reviewed-plan.mjs), its pure parts directly: the
// marker read from line 1 only and strictly, whose notes are the token's user's (by author id, never a
// system note, never by name or text), which merge request was merged as the commit, which note's
// marker is the reviewed one, what makes the job the one that planned it, the digest read as a JSON
// value; and its GitLab client against a hostile server on 127.0.0.1 (answers too large, endless
// pages and redirects, a redirect to plain http). test/soak/gitlab-recipe.test.ts runs the recipe's
// jobs with it against the emulator and a GitLab stand-in.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
// @ts-expect-error: a plain .mjs example script, without types
import * as script from "../../examples/ci/gitlab-reviewed-plan.mjs";

const s = script as Record<string, any>;
const HEAD = "a".repeat(40);
const DIGEST = `sha256:${"1".repeat(64)}`;
const ME = { id: 77, username: "project_42_bot" };
const line = (what: string, job = "9001", head = HEAD) => `<!-- zoneform:plan v2 ${what} head=${head} job=${job} -->`;
const note = (id: number, body: string, author: unknown = { id: 77, username: "project_42_bot" }, system = false) => ({
  id,
  body,
  author,
  system,
});

describe("the marker", () => {
  it("is read from line 1 only, exactly as written", () => {
    expect(s.readMarker(`${line(`digest=${DIGEST}`)}\nbody`)).toEqual({
      kind: "plan",
      digest: DIGEST,
      head: HEAD,
      job: "9001",
    });
    expect(s.readMarker(line("failed"))).toEqual({ kind: "failed", head: HEAD, job: "9001" });
    for (const bad of [
      `text\n${line(`digest=${DIGEST}`)}`, // line 2
      ` ${line(`digest=${DIGEST}`)}`,
      `${line(`digest=${DIGEST}`)} `,
      `${line(`digest=${DIGEST}`)}\r\nbody`,
      line(`digest=${DIGEST.toUpperCase()}`),
      line(`digest=${DIGEST.slice(0, -1)}`),
      line(`digest=${DIGEST}`, "0"),
      line(`digest=${DIGEST}`, "1".repeat(17)),
      line(`digest=${DIGEST}`, "9001", "A".repeat(40)),
      line(`digest=${DIGEST} run=5`),
      `<!-- zoneform:plan v2 digest=${DIGEST} head=${HEAD} run=9001 -->`, // the Action's, of a GitHub run
      "<!-- zoneform plan -->",
    ])
      expect(s.readMarker(bad), bad).toBeUndefined();
    expect(s.readMarker(undefined)).toBeUndefined();
    expect(s.readMarker({ body: line("failed") })).toBeUndefined();
  });

  it("is written only with values of its shape, and reads back as written", () => {
    const m = { kind: "plan", digest: DIGEST, head: HEAD, job: "123" };
    expect(s.readMarker(s.markerLine(m))).toEqual(m);
    expect(() => s.markerLine({ ...m, digest: "sha256:x" })).toThrow(/not sha256/);
    expect(() => s.markerLine({ ...m, head: `${HEAD}\n` })).toThrow(/not a commit sha/);
    expect(() => s.markerLine({ ...m, job: "12 -->" })).toThrow(/not a job id/);
  });
});

describe("whose notes are the token's user's", () => {
  it("by the author's id (a number), never a system note, never by name", () => {
    const notes = [
      note(5, line(`digest=${DIGEST}`), { id: 13, username: "project_42_bot" }), // the name, another user
      note(4, line(`digest=${DIGEST}`), { id: "77", username: "x" }), // the id as a string
      note(3, line(`digest=${DIGEST}`), ME, true), // a system note
      note(2, line(`digest=${DIGEST}`), null),
      note(9, line("failed")),
      note(8, `hello\n${line(`digest=${DIGEST}`)}`),
      note(7, line(`digest=${DIGEST}`)),
    ];
    expect(s.ownMarkedNotes(notes, ME).map((o: { note: { id: number } }) => o.note.id)).toEqual([7, 9]);
  });

  it("the plan job updates its own marked note, else its own note of the earlier recipe, else makes one", () => {
    const legacy = note(3, "<!-- zoneform plan -->\nold");
    const others = note(2, "<!-- zoneform plan -->\nold", { id: 13 });
    expect(s.noteToUpdate([note(6, line("failed")), legacy, others], ME)?.id).toBe(6);
    expect(s.noteToUpdate([legacy, others], ME)?.id).toBe(3);
    expect(s.noteToUpdate([others, note(4, line("failed"), { id: 13 })], ME)).toBeUndefined();
  });
});

describe("the merge request merged as the commit", () => {
  const sha = "b".repeat(40);
  const mr = (o: Record<string, unknown> = {}) => ({
    iid: 7,
    project_id: 42,
    state: "merged",
    target_branch: "main",
    sha: HEAD,
    merge_commit_sha: sha,
    squash_commit_sha: null,
    ...o,
  });
  const at = { sha, branch: "main", project: 42 };

  it("is the one merged into the branch of this project whose merge or squash commit it is", () => {
    expect(s.mergedRequest([mr({ iid: 3, state: "opened" }), mr()], at).iid).toBe(7);
    expect(s.mergedRequest([mr({ merge_commit_sha: null, squash_commit_sha: sha })], at).iid).toBe(7);
    for (const other of [
      { state: "opened" },
      { state: "closed" },
      { target_branch: "release" },
      { project_id: 43 },
      { merge_commit_sha: null }, // a fast-forward merge: the commit is its head
    ])
      expect(() => s.mergedRequest([mr(other)], at), JSON.stringify(other)).toThrow(
        /is not the merge commit \(or squash commit\) of a merge request merged into main/,
      );
    expect(() => s.mergedRequest([mr(), mr({ iid: 8 })], at)).toThrow(/of !7, !8: which one's plan/);
    expect(() => s.mergedRequest([mr({ sha: null })], at)).toThrow(/GitLab gave no head commit/);
  });

  it("its reviewed marker: the user's own note for the head it was merged at, one of them, not failed", () => {
    const merged = { iid: 7, sha: HEAD };
    const plan = line(`digest=${DIGEST}`);
    expect(s.reviewedMarker([note(1, plan), note(2, plan)], ME, merged)).toMatchObject({ digest: DIGEST });
    expect(() => s.reviewedMarker([note(1, plan, { id: 13 })], ME, merged)).toThrow(
      /!7 has no plan note by "project_42_bot" \(user 77;.*notes by other users are never read/,
    );
    expect(() => s.reviewedMarker([note(1, line(`digest=${DIGEST}`, "1", "c".repeat(40)))], ME, merged)).toThrow(
      /is for c{40}, not for a{40}, the head !7 was merged at/,
    );
    expect(() => s.reviewedMarker([note(1, plan), note(2, line(`digest=${DIGEST}`, "9002"))], ME, merged)).toThrow(
      /!7 has 2 different plan notes .* \(1, 2\)/,
    );
    expect(() => s.reviewedMarker([note(1, line("failed"))], ME, merged)).toThrow(/failed \(job 9001\)/);
  });
});

describe("the job the marker names", () => {
  const job = { id: 9001, status: "success", pipeline: { id: 55 } };
  const pipeline = { id: 55, project_id: 42, source: "merge_request_event", sha: HEAD };
  const want = { jobId: "9001", head: HEAD, project: 42, iid: 7 };

  it("is a successful job of a merge_request_event pipeline of the head in this project", () => {
    expect(() => s.checkJob(job, pipeline, want)).not.toThrow();
    expect(() =>
      s.checkJob(
        { id: 9002, status: "failed", pipeline: { id: 56 } },
        { id: 55, project_id: 43, source: "push", sha: "c".repeat(40) },
        want,
      ),
    ).toThrow(
      "the plan note on !7 names job 9001, which is not the job that planned it: GitLab answered with job 9002; its " +
        'status is "failed"; its pipeline is 56; its pipeline belongs to project 43; its pipeline\'s source is ' +
        `"push"; its pipeline's commit is "${"c".repeat(40)}"; expected a successful job of a merge_request_event ` +
        `pipeline of ${HEAD} in project 42. Nothing is applied.`,
    );
    expect(() => s.checkJob(job, { ...pipeline, source: "web" }, want)).toThrow(/source is "web"/);
  });
});

describe("the digest", () => {
  it("is the JSON value zoneform show --format json gives, nothing else", () => {
    expect(s.digestOf(JSON.stringify({ format: 3, digest: DIGEST }))).toBe(DIGEST);
    expect(() => s.digestOf(`Plan digest: ${DIGEST}`)).toThrow(/not JSON/);
    expect(() => s.digestOf(JSON.stringify({ plan: { digest: DIGEST } }))).toThrow(/no digest/);
    expect(() => s.digestOf(JSON.stringify({ digest: `${DIGEST}\n` }))).toThrow(/no digest/);
  });

  it("values GitLab gave are shown quoted, without control or bidirectional characters, and short", () => {
    expect(s.shown("a\u202eb\u001b[2Jc\u0085")).toBe('"a\\u202eb\\u001b[2Jc\\u0085"');
    expect(s.shown("x".repeat(500))).toHaveLength(201);
    expect(s.shown(undefined)).toBe("(none)");
  });
});

describe("run", () => {
  const env = { CI_API_V4_URL: "https://gitlab.example/api/v4", ZONEFORM_GITLAB_TOKEN: "t", CI_PROJECT_ID: "42" };

  it("refuses what the recipe does not do, before any request", async () => {
    await expect(s.run(["notes"], env)).rejects.toThrow(/^usage: /);
    await expect(s.run(["digest", "x"], env)).rejects.toThrow(/^usage: /);
    await expect(s.run(["digest"], env, { stdin: async () => "{}" })).rejects.toThrow(/no digest/);
    expect(await s.run(["digest"], env, { stdin: async () => JSON.stringify({ digest: DIGEST }) })).toBe(`${DIGEST}\n`);
    await expect(
      s.run(["note", DIGEST, "plan.md", "plan.json"], { ...env, CI_PIPELINE_SOURCE: "push" }),
    ).rejects.toThrow(/CI_PIPELINE_SOURCE is "push": the plan note is a merge request's/);
    const mr = { ...env, CI_PIPELINE_SOURCE: "merge_request_event", CI_COMMIT_SHA: HEAD, CI_JOB_ID: "1" };
    await expect(s.run(["failed", "apply", "1"], { ...mr, CI_MERGE_REQUEST_IID: "7" })).rejects.toThrow(
      /the step is validate or plan/,
    );
    await expect(s.run(["reviewed", "../plan.json", "out.json"], env)).rejects.toThrow(/not a relative path/);
    await expect(
      s.run(["reviewed", "plan.json", "out.json"], { ...env, CI_API_V4_URL: "http://gitlab.example/api/v4" }),
    ).rejects.toThrow(/the token goes over https only/);
    await expect(s.run(["reviewed", "plan.json", "out.json"], { ...env, ZONEFORM_GITLAB_TOKEN: "" })).rejects.toThrow(
      /ZONEFORM_GITLAB_TOKEN "" is not set/,
    );
  });
});

describe("the GitLab client against a hostile server", () => {
  let server: Server;
  let base = "";
  let answer: (path: string) => { status: number; headers?: Record<string, string>; body?: string | Buffer };
  const seen: Array<{ path: string; token: unknown }> = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push({ path: req.url!, token: req.headers["private-token"] });
      const a = answer(req.url!);
      res.writeHead(a.status, { "content-type": "application/json", ...a.headers });
      res.end(a.body ?? "");
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));
  const api = () => s.gitlab({ CI_API_V4_URL: `${base}/api/v4`, ZONEFORM_GITLAB_TOKEN: "secret", CI_PROJECT_ID: "42" });

  it("says which call got no answer, as a refusal of the job, not an internal error", async () => {
    const gone = createServer();
    await new Promise<void>((r) => gone.listen(0, "127.0.0.1", r));
    const port = (gone.address() as AddressInfo).port;
    await new Promise<void>((r) => gone.close(() => r()));
    const env = { CI_API_V4_URL: `http://127.0.0.1:${port}/api/v4`, ZONEFORM_GITLAB_TOKEN: "x", CI_PROJECT_ID: "42" };
    const err = await s
      .gitlab(env)
      .user()
      .catch((e: Error) => e);
    expect(err).toBeInstanceOf(s.Stop);
    expect(err.message).toBe("GitLab API GET /api/v4/user: fetch failed (ECONNREFUSED)");
  });

  it("reads no answer past its bound", async () => {
    answer = () => ({ status: 200, body: Buffer.alloc(17 * 1024 * 1024, 0x20) });
    await expect(api().get("jobs/1")).rejects.toThrow(
      /GET \/api\/v4\/projects\/42\/jobs\/1: the answer is .*more than 16777216/,
    );
    answer = () => ({ status: 200, body: "{}" });
    await expect(api().download("jobs/1/artifacts/plan.json", 1)).rejects.toThrow(/more than 1 bytes/);
  });

  it("stops an endless list and an answer that is no list, and decides nothing on part of one", async () => {
    answer = () => ({ status: 200, headers: { "x-next-page": "2" }, body: "[{}]" });
    await expect(api().list("merge_requests/7/notes")).rejects.toThrow(/more than 10000 items; nothing is decided/);
    answer = () => ({ status: 200, body: '{"message":"x"}' });
    await expect(api().list("merge_requests/7/notes")).rejects.toThrow(/the answer is not a list/);
  });

  it("follows a download's redirects a few times, never to plain http elsewhere, never a JSON call's", async () => {
    seen.length = 0;
    answer = () => ({ status: 302, headers: { location: `${base}/again` } });
    await expect(api().download("jobs/1/artifacts/plan.json", 100)).rejects.toThrow(/HTTP 302, no download to follow/);
    expect(seen).toHaveLength(4);
    answer = () => ({ status: 302, headers: { location: "http://storage.example/plan.json" } });
    await expect(api().download("jobs/1/artifacts/plan.json", 100)).rejects.toThrow(
      /redirected to "http:\/\/storage.example", not https/,
    );
    answer = () => ({ status: 302, headers: { location: `${base}/elsewhere` } });
    await expect(api().get("jobs/1")).rejects.toThrow(/jobs\/1: HTTP 302/);
    answer = () => ({ status: 403, body: '{"message":"403 Forbidden \\u001b[2J"}' });
    await expect(api().user()).rejects.toThrow('GitLab API GET /api/v4/user: HTTP 403 "403 Forbidden \\u001b[2J"');
    expect(seen.every((x) => x.token === "secret")).toBe(true); // one origin here: GitLab's
  });
});
