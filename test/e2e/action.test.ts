// The GitHub Action (action.yml) run as a runner runs it (test/helpers/action-runner.ts), against the
// emulator and the GitHub stand-in (test/helpers/github-standin.ts). The loop: a pull request's plan
// (one comment, created then updated, its first line the marker naming digest, head and run), the
// merge applying exactly that plan (found through the merged pull request, the Action's own comment,
// the run it names and that run's artifact), a re-run saying "Already applied", a plan made stale by a
// change by hand refused with nothing written and a new plan shown, and the scheduled drift and audit.
// The attacks on that chain are in action-binding.test.ts; the log and the files in action-log.test.ts.
import { cp, mkdir, readFile, writeFile } from "node:fs/promises";
import { basename, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { actingCommands, runAction, type ActionRun } from "../helpers/action-runner.js";
import { TestEmulator, ZONE, tempDir } from "../helpers/cli.js";
import { ACTIONS_BOT, GitHubStandIn } from "../helpers/github-standin.js";

const emu = TestEmulator.perFile();
const REPO = "octo/zones";
const GH_TOKEN = "ghs_standintoken0123456789";
const gh = new GitHubStandIn(REPO);
gh.tokens.set(GH_TOKEN, ACTIONS_BOT);
beforeAll(() => gh.start());
afterAll(() => gh.close());

const config = (value: string) => `version: 1
zones:
  - zone_id: ${ZONE.com}
    name: example.com
    page_shield:
      enabled: true
      policies:
        - description: Checkout allow-list
          action: allow
          expression: http.request.uri.path contains "/checkout"
          value: ${value}
`;
const VALUE = "script-src 'self' https://js.stripe.com";

async function workspaceWith(yaml: string): Promise<string> {
  const ws = await tempDir("zoneform-action-ws-");
  await mkdir(join(ws, "zones"));
  await writeFile(join(ws, "zones/example.yaml"), yaml);
  return ws;
}

const run = (workspace: string, event: string, payload: object, extra: { env?: Record<string, string> } = {}) =>
  runAction({ emu, gh, token: GH_TOKEN, workspace, event, payload, inputs: { config: "zones/" }, ...extra });

const prEvent = (number: number, sha: string) => ({ pull_request: { number, head: { sha } } });
const pushEnv = (merge: string) => ({ env: { GITHUB_SHA: merge, GITHUB_REF: "refs/heads/main" } });
const MARKER = /^<!-- zoneform:plan v2 digest=(sha256:[0-9a-f]{64}) head=([0-9a-f]{40}) run=(\d+) -->\n/;

/** The annotations and outputs the runner would act on: only the Action's own. */
function ownCommandsOnly(r: ActionRun): void {
  for (const c of actingCommands(r.commands)) expect(["error", "notice", "warning"]).toContain(c.command);
}

describe("the Action as a runner runs it", () => {
  it(
    "pull request: plans with no write, one comment (marker on line 1) created then updated; merge: applies " +
      "exactly that plan from the run's artifact; a re-run says Already applied",
    async () => {
      gh.reset();
      const HEAD = "a".repeat(40);
      const MERGE = "b".repeat(40);
      // A person pasted the marker of the Action's earlier versions: never the Action's to edit.
      gh.addComment(7, "<!-- zoneform plan -->\nnot the bot's: a person pasted the marker", {
        login: "someone",
        type: "User",
      });
      const ws = await workspaceWith(config(VALUE));
      await emu.clearRequests();

      const first = await run(ws, "pull_request", prEvent(7, HEAD));
      expect(first.code, first.log).toBe(0);
      expect(await emu.calls({ writesOnly: true })).toEqual([]);
      expect(first.outputs).toMatchObject({ mode: "plan", "has-changes": "true" });
      expect(first.outputs.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
      expect(first.outputs["plan-path"]).toBe(join(ws, `zoneform-plan-${HEAD}.json`));
      expect(first.summary).toContain(`Plan digest: \`${first.outputs.digest}\``);
      expect(first.summary).toContain("Checkout allow-list");
      expect(first.summary).toContain(`Pull request #7, head \`${HEAD}\`, [run 4242]`);
      expect(gh.paths()).toEqual([
        `GET /repos/${REPO}/issues/7/comments`,
        "GET /user",
        `POST /repos/${REPO}/issues/7/comments`,
      ]);
      const mine = gh.commentsOn(7).filter((c) => c.user.login === "github-actions[bot]");
      expect(mine).toHaveLength(1);
      expect(MARKER.exec(mine[0]!.body)?.slice(1)).toEqual([first.outputs.digest, HEAD, "4242"]);
      expect(mine[0]!.body).toContain(`Plan digest: \`${first.outputs.digest}\``);
      expect(mine[0]!.body).toContain(`the plan is saved as the artifact \`zoneform-plan-${HEAD}.json\` of that run`);
      ownCommandsOnly(first);

      gh.calls = [];
      const second = await run(ws, "pull_request", prEvent(7, HEAD));
      expect(second.code, second.log).toBe(0);
      expect(second.outputs.digest).toBe(first.outputs.digest); // the same files and zones: the same digest
      expect(gh.paths()).toEqual([
        `GET /repos/${REPO}/issues/7/comments`,
        "GET /user",
        `PATCH /repos/${REPO}/issues/comments/${mine[0]!.id}`,
      ]);
      expect(gh.commentsOn(7)).toHaveLength(2);
      expect(gh.commentsOn(7)[0]!.body).toBe("<!-- zoneform plan -->\nnot the bot's: a person pasted the marker");
      expect(await emu.calls({ writesOnly: true })).toEqual([]);

      // The workflow uploads the plan from run 4242 (actions/upload-artifact, archive: false: the file's
      // name is the artifact's); the pull request is merged as MERGE.
      const planText = await readFile(second.outputs["plan-path"]!, "utf8");
      gh.addRun(4242, HEAD);
      const artifact = gh.upload(4242, basename(second.outputs["plan-path"]!), planText);
      gh.merged(7, HEAD, MERGE);

      // The apply job: a fresh checkout of main, without the plan file.
      const main = await workspaceWith(config(VALUE));
      gh.calls = [];
      await emu.clearRequests();
      const applied = await run(main, "push", { after: MERGE }, pushEnv(MERGE));
      expect(applied.code, applied.log).toBe(0);
      expect(applied.outputs).toMatchObject({ mode: "apply", applied: "true", digest: second.outputs.digest });
      expect(await emu.calls({ writesOnly: true })).toEqual([
        `PUT zones/${ZONE.com}/page_shield`,
        `POST zones/${ZONE.com}/page_shield/policies`,
      ]);
      expect(applied.summary).toContain(
        `Applied the plan reviewed on #7 (head \`${HEAD}\`, [run 4242](https://github.example/${REPO}/actions/runs/` +
          `4242)), \`${second.outputs.digest}\`: 1 to create, 1 to update, 0 to replace, 0 to delete, as reviewed.`,
      );
      expect(applied.summary).toContain("Apply complete! Resources: 1 created, 1 updated, 0 replaced, 0 deleted.");
      expect(gh.paths()).toEqual([
        `GET /repos/${REPO}/commits/${MERGE}/pulls`,
        "GET /user",
        `GET /repos/${REPO}/issues/7/comments`,
        `GET /repos/${REPO}/actions/runs/4242`,
        `GET /repos/${REPO}/actions/runs/4242/artifacts`,
        `GET /repos/${REPO}/actions/artifacts/${artifact.id}/zip`,
        `GET /blob/${artifact.id}`,
      ]);
      expect(await readFile(join(main, `zoneform-plan-${HEAD}.json`), "utf8")).toBe(planText);
      expect(applied.log).toContain(
        `-c ${join(main, "zones")} --expect-digest ${second.outputs.digest} --auto-approve`,
      );
      ownCommandsOnly(applied);

      // Re-running the finished apply job: the plan is stale (its changes are live), the files match.
      await emu.clearRequests();
      const again = await run(await workspaceWith(config(VALUE)), "push", { after: MERGE }, pushEnv(MERGE));
      expect(again.code, again.log).toBe(0);
      expect(again.outputs).toMatchObject({ "already-applied": "true", applied: "false" });
      expect(again.commands.filter((c) => c.command === "notice").map((c) => c.data)).toEqual([
        expect.stringMatching(/^Already applied: the zones already match the files at b{40}/),
      ]);
      expect(again.summary).toContain("Already applied");
      expect(again.summary).toContain("was not applied again");
      expect(await emu.calls({ writesOnly: true })).toEqual([]);
    },
  );

  it("merge: a plan made stale by a change by hand since the review is refused with nothing written, and a new plan is shown", async () => {
    gh.reset();
    const head = "c".repeat(40);
    const merge = "d".repeat(40);
    const ws = await workspaceWith(config(VALUE));
    const planned = await run(ws, "pull_request", prEvent(8, head));
    expect(planned.code, planned.log).toBe(0);
    gh.addRun(4242, head);
    gh.upload(4242, basename(planned.outputs["plan-path"]!), await readFile(planned.outputs["plan-path"]!, "utf8"));
    gh.merged(8, head, merge);

    // Someone turns Page Shield on by hand after the review.
    await emu.api("PUT", `zones/${ZONE.com}/page_shield`, { enabled: true });
    await emu.clearRequests();
    const main = await workspaceWith(config(VALUE));
    const refused = await run(main, "push", {}, pushEnv(merge));
    expect(refused.code).toBe(1);
    expect(await emu.calls({ writesOnly: true })).toEqual([]);
    const errors = refused.commands.filter((c) => c.command === "error").map((c) => c.data);
    expect(errors).toEqual([
      expect.stringMatching(/^zoneform apply refused the plan reviewed on #8 \(head c{40}, run 4242\) \(exit 1\)/),
    ]);
    expect(refused.summary).toContain("page_shield_settings/settings changed since the plan was made");
    expect(refused.summary).toContain("A new plan of what is left");
    expect(refused.outputs.applied).toBe("false");
    expect(refused.outputs["new-plan-path"]).toBe(join(main, "zoneform-new-plan.json"));
    expect(refused.outputs["new-digest"]).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(refused.outputs["new-digest"]).not.toBe(planned.outputs.digest);
    expect(refused.summary).toContain(`Plan digest: \`${refused.outputs["new-digest"]}\``);

    // A person reviews the new plan and runs the apply by hand with its digest and file.
    const byHand = await workspaceWith(config(VALUE));
    await cp(refused.outputs["new-plan-path"]!, join(byHand, "reviewed.json"));
    await emu.clearRequests();
    gh.calls = [];
    const dispatched = await runAction({
      emu,
      gh,
      token: GH_TOKEN,
      workspace: byHand,
      event: "workflow_dispatch",
      payload: {},
      inputs: {
        config: "zones/",
        mode: "apply",
        digest: refused.outputs["new-digest"]!,
        "plan-path": "reviewed.json",
        zone: ZONE.com,
      },
      env: { GITHUB_SHA: merge, GITHUB_REF: "refs/heads/main" },
    });
    expect(dispatched.code, dispatched.log).toBe(0);
    expect(dispatched.outputs.applied).toBe("true");
    expect(dispatched.summary).toContain(
      "Applied the plan a person reviewed, named by the inputs `digest` and `plan-path`, " +
        `\`${refused.outputs["new-digest"]}\`: its ` +
        `changes to the zone \`${ZONE.com}\` only (the input zone).`,
    );
    expect(gh.calls).toEqual([]);
    expect(await emu.calls({ writesOnly: true })).toEqual([`POST zones/${ZONE.com}/page_shield/policies`]);
  });

  it("schedule: drift then audit, read-only; the drift fails the step and is saved; the audit's SARIF is saved for code scanning", async () => {
    gh.reset();
    const ws = await workspaceWith(config("script-src 'self'"));
    await emu.clearRequests();
    const r = await run(ws, "schedule", { schedule: "17 3 * * *" });
    expect(r.code).toBe(1);
    expect(r.outputs.mode).toBe("drift,audit");
    expect(r.outputs["has-drift"]).toBe("true");
    expect(r.commands.filter((c) => c.command === "error").map((c) => c.data)).toContain(
      "drift: the zones no longer match the files (the job summary shows how)",
    );
    const drift = JSON.parse(await readFile(r.outputs["drift-path"]!, "utf8")) as { zones: unknown[] };
    expect(drift.zones).toHaveLength(1);
    expect(r.summary).toContain("### zoneform drift");
    expect(r.summary).toContain("Checkout allow-list");
    expect(r.outputs["has-findings"], r.log).toMatch(/^(true|false)$/);
    // audit -c audits every zone of the configuration itself (each with its account's token).
    expect(r.log).toContain(`$ zoneform audit -c ${join(ws, "zones")} --format sarif`);
    expect(r.log).not.toContain('"format_version"'); // the JSON and SARIF stay out of the log
    const sarif = JSON.parse(await readFile(r.outputs["sarif-path"]!, "utf8")) as { version: string };
    expect(sarif.version).toBe("2.1.0");
    expect(await emu.calls({ writesOnly: true })).toEqual([]);
    expect(gh.calls).toEqual([]);
  });

  it("no mode for the event: says which to set, nothing called", async () => {
    gh.reset();
    await emu.clearRequests();
    const r = await run(await workspaceWith(config("script-src 'self'")), "workflow_dispatch", {});
    expect(r.code).toBe(1);
    expect(r.commands.filter((c) => c.command === "error").map((c) => c.data)).toEqual([
      'no mode for the event "workflow_dispatch": set the input mode (plan, apply, drift, audit)',
    ]);
    expect(gh.calls).toEqual([]);
    expect(await emu.calls()).toEqual([]);
  });
});
