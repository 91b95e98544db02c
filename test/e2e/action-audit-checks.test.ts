// The Action's plan comment shows what audit checks (the script inventory, never written to Cloudflare) as
// its diff with the pull request's base commit, read with git: a new page URL is seen before the default
// branch's audit fetches it. Without a readable base, the comment says so and lists what audit fetches.
import { execFileSync } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runAction } from "../helpers/action-runner.js";
import { TestEmulator, ZONE, tempDir } from "../helpers/cli.js";
import { ACTIONS_BOT, GitHubStandIn } from "../helpers/github-standin.js";

const emu = TestEmulator.perFile();
const REPO = "octo/zones";
const GH_TOKEN = "ghs_standintoken0123456789";
const gh = new GitHubStandIn(REPO);
gh.tokens.set(GH_TOKEN, ACTIONS_BOT);
beforeAll(() => gh.start());
afterAll(() => gh.close());

const config = (urls: string[]) => `version: 1
zones:
  - zone_id: ${ZONE.com}
    name: example.com
    page_shield:
      script_inventory:
        pages: ["example.com/checkout*"]
        authorized:
          - { url: "https://js.stripe.com/v3/", justification: "Payments", owner: "payments-team" }
        headers:
          urls: [${urls.map((u) => `"${u}"`).join(", ")}]
          pinned: { referrer-policy: no-referrer }
`;

const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", ["-C", cwd, "-c", "user.name=t", "-c", "user.email=t@t", ...args], { encoding: "utf8" }).trim();

/** A checkout whose base commit has the base configuration and whose work tree has the pull request's. */
async function checkout(): Promise<{ ws: string; base: string }> {
  const ws = await tempDir("zoneform-action-git-");
  await mkdir(join(ws, "zones"));
  git(ws, "init", "-q");
  await writeFile(join(ws, "zones/example.yaml"), config(["https://example.com/checkout"]));
  git(ws, "add", ".");
  git(ws, "commit", "-q", "-m", "base");
  const base = git(ws, "rev-parse", "HEAD");
  await writeFile(
    join(ws, "zones/example.yaml"),
    config(["https://example.com/checkout", "https://169.254.169.254/latest/meta-data/"]),
  );
  return { ws, base };
}

const HEAD = "c".repeat(40);
const run = (ws: string, base: string) =>
  runAction({
    emu,
    gh,
    token: GH_TOKEN,
    workspace: ws,
    event: "pull_request",
    payload: { pull_request: { number: 9, head: { sha: HEAD }, base: { sha: base } } },
    inputs: { config: "zones/" },
  });

describe("the plan comment and what audit checks", () => {
  it("shows a page URL the pull request adds, as a diff with the base commit", async () => {
    gh.reset();
    const { ws, base } = await checkout();
    const r = await run(ws, base);
    expect(r.code, r.log).toBe(0);
    const body = gh.commentsOn(9).find((c) => c.user.login === "github-actions[bot]")!.body;
    expect(body).toContain("**What audit checks changes in 1 zone**");
    expect(body).toContain('+     page fetched for its headers: "https://169.254.169.254/latest/meta-data/"');
    expect(body).not.toContain("**No changes.**");
    expect(await emu.calls({ writesOnly: true })).toEqual([]);
  });

  it("says when the base cannot be read, and lists the pages audit fetches", async () => {
    gh.reset();
    const { ws } = await checkout();
    const r = await run(ws, "d".repeat(40));
    expect(r.code, r.log).toBe(0);
    const body = gh.commentsOn(9).find((c) => c.user.login === "github-actions[bot]")!.body;
    expect(body).toContain("The base branch's configuration could not be read");
    expect(body).toContain("pages it fetches:");
    expect(body).toContain("https://169.254.169.254/latest/meta-data/");
  });
});
