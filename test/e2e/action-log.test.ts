// The Action's log and files obey no data. What the zoneform CLI prints (live descriptions, values of
// the file, messages quoting them) reaches the job's log only between ::stop-commands::<token> and
// ::<token>::, so that no `::set-output`, `::add-mask::`, `::stop-commands::` or `##[error]` in it acts;
// the Action's own ::error:: messages keep data inside them. The runner's reading of the log is
// test/helpers/action-runner.ts runnerCommands. And the files the Action writes (the plan, the
// downloaded plan, the drift, the SARIF) never go through a symbolic link a checkout holds.
import { lstat, mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { actingCommands, runAction, workspaceWith, type ActionRun } from "../helpers/action-runner.js";
import { TestEmulator, ZONE, tempDir } from "../helpers/cli.js";
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

const config = (extra = "") => `version: 1
zones:
  - zone_id: ${ZONE.com}
    name: example.com
    page_shield:
      enabled: true
      prune: true
      policies:
        - description: Checkout allow-list
          action: allow
          expression: http.request.uri.path contains "/checkout"
          value: script-src 'self' https://js.stripe.com
${extra}`;

/** Workflow commands, each where the runner would act on it: at a line's start, or `##[` anywhere. */
const INJECTED = [
  "::set-output name=has-changes::false",
  "::add-mask::hunter2",
  "::stop-commands::pwned",
  "::pwned::",
  "##[error]injected error",
  "##[set-output name=digest;]sha256:0000",
  "::error::injected%0Asecond line",
];

const planOn = (workspace: string, env: Record<string, string> = {}) =>
  runAction({
    emu,
    gh,
    token: GH_TOKEN,
    workspace,
    event: "pull_request",
    payload: { pull_request: { number: 7, head: { sha: HEAD } } },
    inputs: { config: "zoneform.yaml" },
    env,
  });

/** Every line of the log that starts (after spaces) with `::`: the Action's own or inside a fence. */
function fencesHold(r: ActionRun): void {
  const stops = r.commands.filter((c) => c.command === "stop-commands");
  const tokens = stops.map((c) => c.data);
  expect(new Set(tokens).size).toBe(tokens.length); // a fresh token per block
  for (const token of tokens) {
    expect(token).toMatch(/^zoneform-[0-9a-f]{32}$/);
    expect(r.commands.filter((c) => c.command === token)).toHaveLength(1); // each block closed once, by the Action
  }
}

describe("the log obeys no data", () => {
  it("workflow commands in live descriptions, wrapped onto a line's start, act on nothing", async () => {
    gh.reset();
    for (const [i, text] of INJECTED.entries())
      await emu.api("POST", `zones/${ZONE.com}/page_shield/policies`, {
        description: `x ${text} ${"y".repeat(i)} ${text}`,
        action: "allow",
        expression: "true",
        value: "script-src 'self'",
        enabled: true,
      });
    await emu.clearRequests();
    // COLUMNS: the CLI wraps its lines, so that some injected command starts one.
    const r = await planOn(await workspaceWith({ "zoneform.yaml": config() }), { COLUMNS: "40" });
    expect(r.code, r.log).toBe(0);
    expect(await emu.calls({ writesOnly: true })).toEqual([]);
    // The attack reached the log as it would act: at the start of a line, and ##[ inside one.
    const lines = r.log.split("\n");
    for (const start of ["::set-output", "::add-mask::", "::stop-commands::pwned"])
      expect(
        lines.some((l) => l.trimStart().startsWith(start)),
        start,
      ).toBe(true);
    expect(r.log).toContain("##[error]injected error");
    // The runner acts on none of it: no output, mask, annotation or early end of a block.
    expect(actingCommands(r.commands)).toEqual([]);
    fencesHold(r);
    expect(Object.keys(r.outputs).sort()).toEqual(["digest", "has-changes", "mode", "plan-path"]);
    expect(r.outputs["has-changes"]).toBe("true");
    expect(r.outputs.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    // The comment shows the descriptions as data.
    const comment = gh.commentsOn(7)[0]!.body;
    expect(comment).toContain("hunter2");
    expect(comment.split("\n").filter((l) => l.startsWith("<!--"))).toEqual([
      `<!-- zoneform:plan v2 digest=${r.outputs.digest} head=${HEAD} run=4242 -->`,
      "<!-- zoneform plan -->", // the renderer's own first line
    ]);
  });

  it("data in the Action's own ::error:: message stays inside it", async () => {
    gh.reset();
    const key = "::set-output name=has-changes::false%0A::add-mask::hunter2 ##[error]x";
    const ws = await workspaceWith({ "zoneform.yaml": config(`    ${JSON.stringify(key)}: 1\n`) });
    const r = await planOn(ws);
    expect(r.code).toBe(1);
    const acting = actingCommands(r.commands);
    expect(acting.map((c) => c.command)).toEqual(["error"]);
    expect(acting[0]!.data).toMatch(/^zoneform validate failed \(exit 3\): /);
    expect(acting[0]!.data).toContain(key); // as it is: the %0A not read as a line break
    fencesHold(r);
    expect(r.outputs["has-changes"]).toBeUndefined();
    // The failure comment: the marker, then the message as data in a code block.
    const comment = gh.commentsOn(7)[0]!.body;
    expect(comment.split("\n")[0]).toBe(`<!-- zoneform:plan v2 failed head=${HEAD} run=4242 -->`);
    expect(comment).toContain(key);
    expect(await emu.calls()).toEqual([]);
  });
});

describe("no file is written through a symbolic link", () => {
  async function outside(): Promise<{ dir: string; victim: (name: string) => Promise<string> }> {
    const dir = await tempDir("zoneform-outside-");
    return {
      dir,
      victim: async (name) => {
        await writeFile(join(dir, name), "precious\n");
        return join(dir, name);
      },
    };
  }
  const isLink = async (p: string) => (await lstat(p)).isSymbolicLink();

  it("schedule: committed links at the drift and SARIF paths are replaced, their targets untouched", async () => {
    gh.reset();
    const out = await outside();
    const ws = await workspaceWith({ "zoneform.yaml": config() });
    await symlink(await out.victim("bashrc"), join(ws, "zoneform-drift.json"));
    await symlink(await out.victim("profile"), join(ws, "zoneform-audit.sarif"));
    const r = await runAction({ emu, gh, token: GH_TOKEN, workspace: ws, event: "schedule", payload: {} });
    expect(r.outputs["drift-path"]).toBe(join(ws, "zoneform-drift.json"));
    expect(r.outputs["sarif-path"]).toBe(join(ws, "zoneform-audit.sarif"));
    expect(await readFile(join(out.dir, "bashrc"), "utf8")).toBe("precious\n");
    expect(await readFile(join(out.dir, "profile"), "utf8")).toBe("precious\n");
    expect(await isLink(join(ws, "zoneform-drift.json"))).toBe(false);
    expect(JSON.parse(await readFile(join(ws, "zoneform-drift.json"), "utf8"))).toHaveProperty("zones");
    expect(JSON.parse(await readFile(join(ws, "zoneform-audit.sarif"), "utf8"))).toHaveProperty("version", "2.1.0");
  });

  it("schedule: a path through a linked folder is refused, nothing written there", async () => {
    gh.reset();
    const out = await outside();
    const ws = await workspaceWith({ "zoneform.yaml": config() });
    await symlink(out.dir, join(ws, "reports"));
    await emu.clearRequests();
    const r = await runAction({
      emu,
      gh,
      token: GH_TOKEN,
      workspace: ws,
      event: "schedule",
      payload: {},
      inputs: { "drift-path": "reports/drift.json", "sarif-path": "reports/audit.sarif" },
    });
    expect(r.code).toBe(1);
    const errors = r.commands.filter((c) => c.command === "error").map((c) => c.data);
    expect(errors).toEqual([
      `drift-path ${join(ws, "reports/drift.json")}: ${join(ws, "reports")} is a symbolic link; the Action writes ` +
        "no file through one (name a path without links)",
      `sarif-path ${join(ws, "reports/audit.sarif")}: ${join(ws, "reports")} is a symbolic link; the Action ` +
        "writes no file through one (name a path without links)",
    ]);
    await expect(lstat(join(out.dir, "drift.json"))).rejects.toThrow();
    await expect(lstat(join(out.dir, "audit.sarif"))).rejects.toThrow();
    expect(await emu.calls()).toEqual([]); // refused before the CLI ran
  });

  it("plan and apply: a committed link at the plan's path is replaced, its target untouched", async () => {
    gh.reset();
    const out = await outside();
    const name = `zoneform-plan-${HEAD}.json`;
    const pr = await workspaceWith({ "zoneform.yaml": config() });
    await symlink(await out.victim("pr-target"), join(pr, name));
    const planned = await planOn(pr);
    expect(planned.code, planned.log).toBe(0);
    expect(await isLink(join(pr, name))).toBe(false);
    expect(await readFile(join(out.dir, "pr-target"), "utf8")).toBe("precious\n");

    gh.addRun(4242, HEAD);
    gh.upload(4242, name, await readFile(join(pr, name), "utf8"));
    gh.merged(7, HEAD, MERGE);
    const main = await workspaceWith({ "zoneform.yaml": config() });
    await mkdir(join(main, "sub"));
    await symlink(await out.victim("main-target"), join(main, name));
    const applied = await runAction({
      emu,
      gh,
      token: GH_TOKEN,
      workspace: main,
      event: "push",
      payload: {},
      inputs: { config: "zoneform.yaml" },
      env: { GITHUB_SHA: MERGE, GITHUB_REF: "refs/heads/main" },
    });
    expect(applied.code, applied.log).toBe(0);
    expect(await isLink(join(main, name))).toBe(false);
    expect(await readFile(join(out.dir, "main-target"), "utf8")).toBe("precious\n");
    expect(await readFile(join(main, name), "utf8")).toBe(await readFile(join(pr, name), "utf8"));
  });
});
