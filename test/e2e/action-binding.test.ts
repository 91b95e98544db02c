// The Action's apply takes the plan reviewed on the merged pull request and nothing else: one test per
// way someone with push access (and no right to approve) tried to get another plan applied. Each runs
// the Action as a runner does (test/helpers/action-runner.ts) against the emulator and the GitHub
// stand-in, and asserts the Cloudflare writes (from the emulator's request log: the reviewed plan's, or
// none), the GitHub calls, and what the comment, the summary, the outputs and the annotations say.
import { readFile, writeFile } from "node:fs/promises";
import { basename, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  MARKER_LINE,
  actingCommands,
  planWrites,
  runAction,
  workspaceWith,
  type ActionRun,
} from "../helpers/action-runner.js";
import { TestEmulator, ZONE, runCli, tempDir } from "../helpers/cli.js";
import { ACTIONS_BOT, GitHubStandIn } from "../helpers/github-standin.js";

const emu = TestEmulator.perFile();
const REPO = "octo/zones";
const GH_TOKEN = "ghs_standintoken0123456789";
const gh = new GitHubStandIn(REPO);
gh.tokens.set(GH_TOKEN, ACTIONS_BOT);
beforeAll(() => gh.start());
afterAll(() => gh.close());

const HEAD = "a".repeat(40);
const MERGE = "b".repeat(40);
const RUN = 4242;
const APP = "app.globex-com.example";

interface ZoneOptions {
  name?: string;
  value?: string;
  prune?: boolean;
  hostnames?: string;
}
const config = (o: ZoneOptions = {}) => `version: 1
zones:
  - zone_id: ${ZONE.com}
    name: ${JSON.stringify(o.name ?? "example.com")}
    page_shield:
      enabled: true${o.prune ? "\n      prune: true" : ""}
      policies:
        - description: Checkout allow-list
          action: allow
          expression: http.request.uri.path contains "/checkout"
          value: ${o.value ?? "script-src 'self' https://js.stripe.com"}
${o.hostnames ?? ""}`;

const run = (workspace: string, event: string, payload: object, env: Record<string, string> = {}) =>
  runAction({ emu, gh, token: GH_TOKEN, workspace, event, payload, inputs: { config: "zoneform.yaml" }, env });
const planOnPullRequest = async (yaml: string, pr = 7, head = HEAD) => {
  const ws = await workspaceWith({ "zoneform.yaml": yaml });
  const r = await run(ws, "pull_request", { pull_request: { number: pr, head: { sha: head } } });
  expect(r.code, r.log).toBe(0);
  return { run: r, text: await readFile(r.outputs["plan-path"]!, "utf8") };
};
const applyAfterMerge = async (yaml: string) =>
  run(
    await workspaceWith({ "zoneform.yaml": yaml }),
    "push",
    { after: MERGE },
    {
      GITHUB_SHA: MERGE,
      GITHUB_REF: "refs/heads/main",
    },
  );

/** A plan the attacker made on their own (another configuration), its file text and digest. */
async function attackerPlan(yaml: string): Promise<{ text: string; digest: string }> {
  const dir = await tempDir("zoneform-attacker-");
  await writeFile(join(dir, "evil.yaml"), yaml);
  const made = await runCli(emu, ["plan", "-c", join(dir, "evil.yaml"), "--out", join(dir, "evil.json")]);
  expect(made.code, made.stderr).toBe(0);
  const text = await readFile(join(dir, "evil.json"), "utf8");
  return { text, digest: (JSON.parse(text) as { digest: string }).digest };
}
const EVIL = config({ value: "script-src * 'unsafe-inline'" });

function errorsOf(r: ActionRun): string[] {
  return r.commands.filter((c) => c.command === "error").map((c) => c.data);
}

/** A refusal: exit 1, one ::error:: saying `why`, the summary saying it and that nothing was sent, no writes. */
async function expectRefused(r: ActionRun, why: RegExp): Promise<void> {
  expect(r.code, r.log).toBe(1);
  expect(errorsOf(r)).toEqual([expect.stringMatching(why)]);
  expect(r.summary).toContain("### zoneform apply refused");
  expect(r.summary).toContain("Nothing was sent to Cloudflare.");
  expect(r.outputs.applied).toBe("false");
  expect(r.outputs.digest).toBeUndefined();
  expect(await emu.calls({ writesOnly: true })).toEqual([]);
  for (const c of actingCommands(r.commands)) expect(c.command).toBe("error");
}

describe("a fake digest line in data steers nothing", () => {
  const hostile = (digest: string) => `Plan digest: \`${digest}\``;
  const cases: Array<[string, (fake: string) => Promise<string>]> = [
    [
      "a zone name in the pull request's own file, hidden in an HTML comment",
      async (fake) => config({ name: `<!-- ${hostile(fake)} -->` }),
    ],
    [
      "a live Page Shield policy's description",
      async (fake) => {
        await emu.api("POST", `zones/${ZONE.com}/page_shield/policies`, {
          description: hostile(fake),
          action: "allow",
          expression: "true",
          value: "script-src 'self'",
          enabled: true,
        });
        return config({ prune: true });
      },
    ],
    [
      "a custom hostname certificate's issuer",
      async (fake) => {
        const state = await emu.admin<{ zones: Array<{ id: string; custom_hostnames: Array<Record<string, any>> }> }>(
          "GET",
          "/state",
        );
        const h = state.zones.find((z) => z.id === ZONE.com)!.custom_hostnames.find((x) => x.hostname === APP)!;
        h.ssl = { ...h.ssl, certificate_authority: null, certificates: [{ id: "c1", issuer: hostile(fake) }] };
        await emu.admin("PUT", "/state", state);
        return config({
          hostnames: `    custom_hostnames:\n      - hostname: ${APP}\n        certificate_authority: ""\n`,
        });
      },
    ],
  ];

  it.each(cases)(
    "%s: the comment's marker has the real digest, and the apply takes the reviewed plan, not the attacker's " +
      "artifact of the same name",
    async (_where, plant) => {
      gh.reset();
      const evil = await attackerPlan(EVIL);
      const yaml = await plant(evil.digest);
      await emu.clearRequests();
      const { run: planned, text } = await planOnPullRequest(yaml);
      const digest = planned.outputs.digest!;
      expect(digest).not.toBe(evil.digest);
      const comment = gh.commentsOn(7).find((c) => c.user.login === "github-actions[bot]")!;
      const [line1, ...rest] = comment.body.split("\n");
      expect(MARKER_LINE.exec(line1!)?.slice(1)).toEqual([digest, HEAD, String(RUN)]);
      // The hostile text is there, as data, below line 1; no line of it is a marker or an HTML comment.
      expect(rest.join("\n")).toContain(evil.digest);
      expect(rest.some((l) => l.includes("<!-- Plan digest") || l.includes("<!-- zoneform:plan"))).toBe(false);

      // The attacker's run on the same commit (a push to the branch) uploads their plan under the same
      // name, later than the pull request's run.
      gh.addRun(RUN, HEAD);
      gh.upload(RUN, basename(planned.outputs["plan-path"]!), text, { at: "2025-06-01T12:00:00Z" });
      gh.addRun(5000, HEAD, { event: "push" });
      const theirs = gh.upload(5000, basename(planned.outputs["plan-path"]!), evil.text, {
        at: "2025-06-01T13:00:00Z",
      });
      gh.merged(7, HEAD, MERGE);
      gh.calls = [];
      await emu.clearRequests();
      const applied = await applyAfterMerge(yaml);
      expect(applied.code, applied.log).toBe(0);
      expect(applied.outputs).toMatchObject({ applied: "true", digest });
      expect((await emu.calls({ writesOnly: true })).sort()).toEqual(planWrites(text));
      expect(applied.summary).toContain(`, \`${digest}\`: `);
      expect(applied.summary.split("\n").find((l) => l.startsWith("Applied "))).not.toContain(evil.digest);
      expect(gh.paths()).not.toContain(`GET /repos/${REPO}/actions/artifacts`);
      expect(gh.paths()).not.toContain(`GET /repos/${REPO}/actions/artifacts/${theirs.id}/zip`);
      expect(gh.paths().some((p) => p.includes("/runs/5000"))).toBe(false);
    },
  );
});

describe("the comment is the Action's own", () => {
  it("another bot's comment with the marker is neither edited by the plan nor read by the apply", async () => {
    gh.reset();
    const evil = await attackerPlan(EVIL);
    const other = { login: "helpful-app[bot]", type: "Bot" };
    const forged = gh.addComment(
      7,
      `<!-- zoneform:plan v2 digest=${evil.digest} head=${HEAD} run=5000 -->\nLGTM`,
      other,
    );
    gh.addComment(7, `<!-- zoneform:plan v2 digest=${evil.digest} head=${HEAD} run=5000 -->\nme too`, {
      login: "mallory",
      type: "User",
    });
    gh.addRun(5000, HEAD);
    gh.upload(5000, `zoneform-plan-${HEAD}.json`, evil.text);
    gh.merged(7, HEAD, MERGE);

    // Before any plan of the Action's: the apply finds no comment of its own, and reads no run.
    await emu.clearRequests();
    const early = await applyAfterMerge(config());
    await expectRefused(
      early,
      /^#7 has no plan comment by github-actions\[bot\] .*comments by other accounts are never read/,
    );
    expect(gh.paths().some((p) => p.includes("/actions/"))).toBe(false);

    // The plan makes its own comment beside them, and edits neither.
    gh.calls = [];
    const { run: planned, text } = await planOnPullRequest(config());
    expect(gh.paths()).toContain(`POST /repos/${REPO}/issues/7/comments`);
    expect(gh.paths().some((p) => p.startsWith("PATCH"))).toBe(false);
    expect(gh.commentsOn(7).find((c) => c.id === forged.id)!.body).toContain("LGTM");
    gh.addRun(RUN, HEAD);
    gh.upload(RUN, `zoneform-plan-${HEAD}.json`, text);

    gh.calls = [];
    await emu.clearRequests();
    const applied = await applyAfterMerge(config());
    expect(applied.code, applied.log).toBe(0);
    expect(applied.outputs.digest).toBe(planned.outputs.digest);
    expect((await emu.calls({ writesOnly: true })).sort()).toEqual(planWrites(text));
    expect(gh.paths().some((p) => p.includes("/runs/5000"))).toBe(false);
  });

  it("with a token that may read GET /user, the comments are that account's", async () => {
    gh.reset();
    const PAT = "github_pat_standin";
    gh.tokens.set(PAT, { login: "zoneform-ci", type: "User", readsUser: true });
    // The job's bot wrote a comment with the marker earlier: not this token's, so not edited.
    const bots = gh.addComment(7, `<!-- zoneform:plan v2 failed head=${HEAD} run=1 -->\nold`, {
      login: "github-actions[bot]",
      type: "Bot",
    });
    const ws = await workspaceWith({ "zoneform.yaml": config() });
    const r = await runAction({
      emu,
      gh,
      token: PAT,
      workspace: ws,
      event: "pull_request",
      payload: { pull_request: { number: 7, head: { sha: HEAD } } },
      inputs: { config: "zoneform.yaml" },
    });
    expect(r.code, r.log).toBe(0);
    expect(gh.commentsOn(7).map((c) => c.user.login)).toEqual(["github-actions[bot]", "zoneform-ci"]);
    expect(gh.commentsOn(7).find((c) => c.id === bots.id)!.body).toContain("old");
  });
});

describe("the artifact is the one of the run the marker names", () => {
  /** The pull request's plan run, made once: every scenario starts from the same seed and file. */
  let reviewed: { text: string; comments: typeof gh.comments } | undefined;
  /** The pull request planned, merged; `setup` changes what GitHub holds before the apply. */
  async function scenario(setup: (text: string) => void): Promise<ActionRun> {
    if (!reviewed) {
      gh.reset();
      const { text } = await planOnPullRequest(config());
      reviewed = { text, comments: structuredClone(gh.comments) };
    }
    gh.reset();
    gh.comments = structuredClone(reviewed.comments);
    const { text } = reviewed;
    gh.merged(7, HEAD, MERGE);
    setup(text);
    gh.calls = [];
    await emu.clearRequests();
    return applyAfterMerge(config());
  }

  it("an artifact of the same name uploaded by another run of the same commit is not taken", async () => {
    const r = await scenario((text) => {
      gh.addRun(RUN, HEAD); // the pull request's run uploaded nothing
      gh.addRun(5000, HEAD);
      gh.upload(5000, `zoneform-plan-${HEAD}.json`, text);
    });
    await expectRefused(r, new RegExp(`^run ${RUN} has no artifact zoneform-plan-${HEAD}\\.json: `));
    expect(gh.paths().some((p) => p.includes("/runs/5000") || p.endsWith("/zip"))).toBe(false);
  });

  it("an expired artifact is not taken", async () => {
    const r = await scenario((text) => {
      gh.addRun(RUN, HEAD);
      gh.upload(RUN, `zoneform-plan-${HEAD}.json`, text, { expired: true });
    });
    await expectRefused(r, /has no artifact zoneform-plan-a{40}\.json that has not expired/);
  });

  it("the marker's head is not the head the pull request was merged at: refused", async () => {
    const r = await scenario((text) => {
      const newer = "e".repeat(40);
      gh.pulls[0]!.head.sha = newer; // a later push whose plan never finished
      gh.addRun(RUN, HEAD);
      gh.upload(RUN, `zoneform-plan-${HEAD}.json`, text);
    });
    await expectRefused(r, /^the plan comment on #7 is for a{40}, not for e{40}, the head #7 was merged at/);
    expect(gh.paths().some((p) => p.includes("/actions/"))).toBe(false);
  });

  it.each<[string, { head?: string; event?: string; headRepo?: string }, RegExp]>([
    ["whose head commit differs", { head: "f".repeat(40) }, /its head commit is "f{40}"/],
    ["of another event (a push)", { event: "push" }, /its event is "push"/],
    ["of pull_request_target", { event: "pull_request_target" }, /its event is "pull_request_target"/],
    ["of a fork", { headRepo: "mallory/zones" }, /its head repository is "mallory\/zones" \(a fork's run\)/],
  ])("a run %s: refused, saying which run it expected", async (_what, run, why) => {
    const r = await scenario((text) => {
      gh.addRun(RUN, run.head ?? HEAD, { event: run.event, headRepo: run.headRepo });
      gh.upload(RUN, `zoneform-plan-${HEAD}.json`, text);
    });
    await expectRefused(r, why);
    expect(errorsOf(r)[0]).toContain(
      `expected run ${RUN} of ${REPO}: a pull_request run of ${HEAD}, in ${REPO} itself`,
    );
    expect(gh.paths().some((p) => p.includes("/artifacts"))).toBe(false);
  });

  it("a run GitHub does not know: refused", async () => {
    const r = await scenario(() => undefined);
    await expectRefused(r, new RegExp(`names run ${RUN}, which could not be read \\(.*HTTP 404`));
  });

  it("a plan file whose digest is not the marker's: refused, nothing written", async () => {
    const evil = await attackerPlan(EVIL);
    const r = await scenario(() => {
      gh.addRun(RUN, HEAD);
      gh.upload(RUN, `zoneform-plan-${HEAD}.json`, evil.text);
    });
    await expectRefused(
      r,
      new RegExp(
        `^the plan file zoneform-plan-${HEAD}\\.json \\(the artifact of run ${RUN}\\) hashes to ${evil.digest}, ` +
          "not to sha256:",
      ),
    );
  });

  it("a plan edited inside (its recorded digest no longer its content): refused", async () => {
    const r = await scenario((text) => {
      gh.addRun(RUN, HEAD);
      gh.upload(RUN, `zoneform-plan-${HEAD}.json`, text.replace("https://js.stripe.com", "https://evil.example"));
    });
    await expectRefused(r, /was changed after it was made/);
  });

  it("a token without actions: read: refused, saying which permission docs/ci.md lists", async () => {
    const r = await scenario((text) => {
      gh.addRun(RUN, HEAD);
      gh.upload(RUN, `zoneform-plan-${HEAD}.json`, text);
      gh.denied = [/^\/actions\//];
    });
    await expectRefused(
      r,
      new RegExp(
        `names run ${RUN}, which could not be read \\(GitHub API GET repos/${REPO}/actions/runs/${RUN}: HTTP 403 ` +
          `"Resource not accessible by integration" \\(does the workflow grant the permissions docs/ci.md lists\\?\\)\\)`,
      ),
    );
  });

  it("no pull request was merged as the pushed commit: refused, nothing read", async () => {
    gh.reset();
    gh.calls = [];
    await emu.clearRequests();
    const r = await applyAfterMerge(config());
    await expectRefused(r, /^b{40} is not the merge commit of a pull request into main: /);
    expect(gh.paths()).toEqual([`GET /repos/${REPO}/commits/${MERGE}/pulls`]);
  });
});

describe("the plan's desired state is the merged files'", () => {
  it("a merged configuration other than the reviewed one: apply refuses, nothing written, a new plan shown", async () => {
    gh.reset();
    const { run: planned, text } = await planOnPullRequest(config());
    gh.addRun(RUN, HEAD);
    gh.upload(RUN, `zoneform-plan-${HEAD}.json`, text);
    gh.merged(7, HEAD, MERGE);
    await emu.clearRequests();
    // main holds something else than what the pull request planned (pushed to main meanwhile).
    const r = await applyAfterMerge(config({ value: "script-src 'self' https://other.example" }));
    expect(r.code, r.log).toBe(1);
    expect(await emu.calls({ writesOnly: true })).toEqual([]);
    expect(r.log).toContain(`-c ${join(r.outputs["plan-path"]!, "..", "zoneform.yaml")}`);
    expect(errorsOf(r)).toEqual([
      expect.stringMatching(/^zoneform apply refused the plan reviewed on #7 .*\(exit 1\)/),
    ]);
    expect(r.outputs.applied).toBe("false");
    expect(r.outputs.digest).toBe(planned.outputs.digest);
    expect(r.outputs["new-digest"]).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(r.outputs["new-digest"]).not.toBe(planned.outputs.digest);
    expect(r.summary).toContain("was not made from the configuration"); // apply's message, in a code block
    expect(r.summary).toContain("A new plan of what is left");
    expect(r.summary).toContain("https://other.example");
  });
});
