// The environment the Action gives the zoneform CLI is an allow-list (src/action/cli-env.ts): a pull
// request's file that references a runner variable (`${env:ACTIONS_RUNTIME_TOKEN}` in a Logpush
// destination, `${env:GITHUB_TOKEN}` in a description, the Action's own input INPUT_GITHUB-TOKEN) fails
// the plan at once with one line naming the variable and the file, and no request carrying the value
// reaches the emulator or the GitHub stand-in; a file referencing a variable of its own plans and
// applies; an unreferenced variable of the job (SOME_OTHER_SECRET) is not in the CLI's environment, as
// the in-process run below sees it (the CLI's entry wrapped, src/cli/index.ts main).
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { basename, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { runAction as runActionInProcess } from "../../src/action/main.js";
import type { CliIO } from "../../src/cli/index.js";
import { runAction, type ActionRun } from "../helpers/action-runner.js";
import { TestEmulator, TOKEN, ZONE, tempDir } from "../helpers/cli.js";
import { ACTIONS_BOT, GitHubStandIn } from "../helpers/github-standin.js";

/** The environment of each zoneform command the Action ran in this process, as the CLI got it. */
const cliEnvs = vi.hoisted(() => [] as Array<Record<string, string | undefined>>);
vi.mock("../../src/cli/index.js", async (importOriginal) => {
  const real = await importOriginal<typeof import("../../src/cli/index.js")>();
  return {
    ...real,
    main: (args: string[], io: CliIO) => {
      cliEnvs.push({ ...io.env });
      return real.main(args, io);
    },
  };
});

const emu = TestEmulator.perFile();
const REPO = "octo/zones";
const GH_TOKEN = "ghs_standintoken0123456789";
const gh = new GitHubStandIn(REPO);
gh.tokens.set(GH_TOKEN, ACTIONS_BOT);
beforeAll(() => gh.start());
afterAll(() => gh.close());

const HEAD = "a".repeat(40);
const MERGE = "b".repeat(40);

/** The runner's secrets: its runtime token, the job's token in GITHUB_TOKEN, and one the files never name. */
const SECRETS = {
  ACTIONS_RUNTIME_TOKEN: "actions-runtime-token-5f0e1d2c",
  GITHUB_TOKEN: GH_TOKEN,
  SOME_OTHER_SECRET: "some-other-secret-9a8b7c",
};
/** A variable of the workflow's own, which a file may reference. */
const SCRIPT_HOST = "https://js.stripe.com";

const pageShield = (value: string, description = "Checkout allow-list") => `version: 1
zones:
  - zone_id: ${ZONE.com}
    name: example.com
    page_shield:
      enabled: true
      policies:
        - description: ${JSON.stringify(description)}
          action: allow
          expression: http.request.uri.path contains "/checkout"
          value: ${value}
`;
const logpush = (destination: string) => `version: 1
zones:
  - zone_id: ${ZONE.org}
    name: example.org
    logs:
      logpush_jobs:
        - name: http-to-https
          dataset: http_requests
          destination_conf: ${JSON.stringify(destination)}
`;

async function workspaceWith(files: Record<string, string>): Promise<string> {
  const ws = await tempDir("zoneform-action-env-ws-");
  await mkdir(join(ws, "zones"));
  for (const [name, text] of Object.entries(files)) await writeFile(join(ws, "zones", name), text);
  return ws;
}

const run = (workspace: string, event: string, payload: object, env: Record<string, string> = {}) =>
  runAction({
    emu,
    gh,
    token: GH_TOKEN,
    workspace,
    event,
    payload,
    inputs: { config: "zones/" },
    env: { ...SECRETS, SCRIPT_HOST, ...env },
  });
const prEvent = { pull_request: { number: 7, head: { sha: HEAD } } };

const errors = (r: ActionRun) => r.commands.filter((c) => c.command === "error").map((c) => c.data);
const RULE =
  "runner variables (GITHUB_*, ACTIONS_*, RUNNER_*, INPUT_*) and the github-token are never passed to zoneform; " +
  "give the value a variable of its own in the step's env:";

/** Every request the emulator and the GitHub stand-in got, and every comment, hold none of the values. */
async function noValueSent(values: string[]): Promise<void> {
  const sent = JSON.stringify([await emu.requests(), gh.calls, gh.comments]);
  for (const v of values) expect(sent.includes(v), `a request carried ${v.slice(0, 8)}…`).toBe(false);
}

describe("the Action gives zoneform an allow-listed environment", () => {
  it("a pull request's file referencing runner variables fails the plan at once, naming each and its file", async () => {
    gh.reset();
    await emu.clearRequests();
    const ws = await workspaceWith({
      "logs.yaml": logpush("https://logs.example.net/ingest?header_Authorization=${env:ACTIONS_RUNTIME_TOKEN}"),
      "shop.yaml": pageShield(
        "script-src 'self' ${env:SCRIPT_HOST}",
        "token ${env:GITHUB_TOKEN} and ${env:INPUT_GITHUB-TOKEN}",
      ),
    });
    const r = await run(ws, "pull_request", prEvent);
    expect(r.code, r.log).toBe(1);
    expect(errors(r)).toEqual([
      "zoneform plan was not run: ${env:ACTIONS_RUNTIME_TOKEN} in zones/logs.yaml (a runner variable), " +
        "${env:GITHUB_TOKEN} in zones/shop.yaml (a runner variable), ${env:INPUT_GITHUB-TOKEN} in zones/shop.yaml " +
        `(a runner variable): ${RULE}`,
    ]);
    expect(r.log).not.toContain("$ zoneform"); // no command ran
    expect(await emu.requests()).toEqual([]);
    // The pull request is told, in the Action's failed comment: nothing can be applied from this commit.
    expect(gh.paths()).toEqual([
      `GET /repos/${REPO}/issues/7/comments`,
      "GET /user",
      `POST /repos/${REPO}/issues/7/comments`,
    ]);
    const [comment] = gh.commentsOn(7);
    expect(comment!.body).toMatch(/^<!-- zoneform:plan v2 failed head=a{40} run=4242 -->\n### zoneform plan failed/);
    expect(comment!.body).toContain("${env:ACTIONS_RUNTIME_TOKEN} in zones/logs.yaml");
    await noValueSent(Object.values(SECRETS));
    for (const v of Object.values(SECRETS)) expect(r.log + r.summary).not.toContain(v);
  });

  it("so does a variable that holds the github-token, whatever its name, and a drift says so too", async () => {
    gh.reset();
    await emu.clearRequests();
    const ws = await workspaceWith({ "shop.yaml": pageShield("script-src 'self' ${env:GH_PAT}") });
    const planned = await run(ws, "pull_request", prEvent, { GH_PAT: GH_TOKEN });
    expect(errors(planned)).toEqual([
      `zoneform plan was not run: \${env:GH_PAT} in zones/shop.yaml (it holds the Action's github-token): ${RULE}`,
    ]);
    const drift = await run(ws, "schedule", {}, { GH_PAT: GH_TOKEN, INPUT_MODE: "drift" });
    expect(drift.code, drift.log).toBe(1);
    expect(errors(drift)).toEqual([`\${env:GH_PAT} in zones/shop.yaml (it holds the Action's github-token): ${RULE}`]);
    expect(await emu.requests()).toEqual([]);
    await noValueSent([GH_TOKEN]);
  });

  it("a file referencing a variable of its own plans and applies, with its value", async () => {
    gh.reset();
    const files = { "shop.yaml": pageShield("script-src 'self' ${env:SCRIPT_HOST}") };
    const planned = await run(await workspaceWith(files), "pull_request", prEvent);
    expect(planned.code, planned.log).toBe(0);
    expect(planned.outputs["has-changes"]).toBe("true");
    gh.addRun(4242, HEAD);
    const planPath = planned.outputs["plan-path"]!;
    gh.upload(4242, basename(planPath), await readFile(planPath, "utf8"));
    gh.merged(7, HEAD, MERGE);

    await emu.clearRequests();
    const applied = await run(
      await workspaceWith(files),
      "push",
      { after: MERGE },
      {
        GITHUB_SHA: MERGE,
        GITHUB_REF: "refs/heads/main",
      },
    );
    expect(applied.code, applied.log).toBe(0);
    expect(applied.outputs.applied).toBe("true");
    const sent = (await emu.requests()).filter((q) => q.method === "POST" && q.path.endsWith("/page_shield/policies"));
    expect(sent.map((q) => (q.body as { value: string }).value)).toEqual([`script-src 'self' ${SCRIPT_HOST}`]);
    await noValueSent(Object.values(SECRETS));
  });

  it("an unreferenced variable of the job, and every runner variable, are not in the CLI's environment", async () => {
    gh.reset();
    const ws = await workspaceWith({ "shop.yaml": pageShield("script-src 'self' ${env:SCRIPT_HOST}") });
    const home = await tempDir("zoneform-action-env-runner-");
    const file = (name: string, text = "") => writeFile(join(home, name), text).then(() => join(home, name));
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? "",
      HOME: home,
      ...SECRETS,
      SCRIPT_HOST,
      "INPUT_GITHUB-TOKEN": GH_TOKEN,
      INPUT_CONFIG: "zones/",
      GITHUB_EVENT_NAME: "pull_request",
      GITHUB_EVENT_PATH: await file("event.json", JSON.stringify(prEvent)),
      GITHUB_OUTPUT: await file("output"),
      GITHUB_STEP_SUMMARY: await file("summary.md"),
      GITHUB_REPOSITORY: REPO,
      GITHUB_API_URL: gh.url,
      GITHUB_RUN_ID: "4242",
      GITHUB_WORKSPACE: ws,
      RUNNER_TEMP: home,
      CLOUDFLARE_API_TOKEN: TOKEN,
      CLOUDFLARE_API_BASE_URL: emu.url,
      ...(emu.now ? { ZONEFORM_NOW: emu.now } : {}),
      ZONEFORM_LOCK_DIR: home,
    };
    cliEnvs.length = 0;
    let log = "";
    const code = await runActionInProcess(env, ws, (t) => (log += t));
    expect(code, log).toBe(0);
    expect(cliEnvs).toHaveLength(2); // validate, plan
    for (const seen of cliEnvs)
      expect(seen).toEqual({
        NO_COLOR: "1",
        PATH: env.PATH,
        HOME: home,
        SCRIPT_HOST,
        CLOUDFLARE_API_TOKEN: TOKEN,
        CLOUDFLARE_API_BASE_URL: emu.url,
        ...(emu.now ? { ZONEFORM_NOW: emu.now } : {}),
        ZONEFORM_LOCK_DIR: home,
      });
  });
});
