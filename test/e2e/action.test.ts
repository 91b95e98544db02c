// The GitHub Action (action.yml) run as a runner runs it: `node dist-action/index.js` with the INPUT_*
// and GITHUB_* variables, an event file, the summary and output files, against the emulator and a
// stand-in for GitHub's REST API on 127.0.0.1 that records the calls. The loop: a pull request's plan
// (one comment, created then updated), the merge applying exactly that plan (found from the merged
// pull request's comment and artifact), a re-run saying "already applied", and a plan made stale by
// a change by hand refused with nothing written.
import { spawn } from "node:child_process";
import { cp, mkdir, readFile, writeFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { basename, join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { COMMENT_MARKER } from "../../src/plan/render/markdown.js";
import { TestEmulator, TOKEN, ZONE, tempDir } from "../helpers/cli.js";

const ROOT = resolve(import.meta.dirname, "../..");
const ENTRY = join(ROOT, "dist-action/index.js");
const emu = TestEmulator.perFile();
const REPO = "octo/zones";
const GH_TOKEN = "ghs_standintoken0123456789";

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

// --- the stand-in for GitHub's REST API -----------------------------------------------------------------

interface StoredComment {
  id: number;
  body: string;
  user: { login: string; type: string };
}

class GitHubStandIn {
  calls: string[] = [];
  comments: StoredComment[] = [
    {
      id: 11,
      body: `${COMMENT_MARKER}\nnot the bot's: a person pasted the marker`,
      user: { login: "someone", type: "User" },
    },
  ];
  pulls: Array<{
    number: number;
    merged_at: string | null;
    head: { sha: string };
    base: { ref: string };
    merge: string;
  }> = [];
  artifacts: Array<{ id: number; name: string; text: string }> = [];
  private nextId = 100;
  private server?: Server;
  url = "";

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      void this.handle(req).then(
        ({ status, body, headers }) => {
          res.writeHead(status, { "content-type": "application/json", ...headers });
          res.end(typeof body === "string" ? body : JSON.stringify(body));
        },
        (err: Error) => {
          res.writeHead(500);
          res.end(err.message);
        },
      );
    });
    await new Promise<void>((r) => this.server!.listen(0, "127.0.0.1", r));
    this.url = `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
  }

  close = () => new Promise<void>((r) => this.server?.close(() => r()));

  /** The comment calls, as `METHOD path` (the listing's paging left out). */
  commentCalls(): string[] {
    return this.calls.filter((c) => c.includes("/comments")).map((c) => c.replace(/\?.*$/, ""));
  }

  private async handle(
    req: IncomingMessage,
  ): Promise<{ status: number; body: unknown; headers?: Record<string, string> }> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const input = chunks.length ? JSON.parse(Buffer.concat(chunks).toString("utf8")) : undefined;
    const url = new URL(req.url!, this.url);
    const path = url.pathname;
    this.calls.push(`${req.method} ${path}${url.search}`);
    if (path.startsWith("/blob/")) {
      // The signed download URL: no token may come along.
      if (req.headers.authorization) return { status: 400, body: { message: "a token was sent to the blob store" } };
      const artifact = this.artifacts.find((a) => a.id === Number(path.slice(6)));
      return artifact
        ? { status: 200, body: artifact.text, headers: { "content-type": "application/octet-stream" } }
        : { status: 404, body: {} };
    }
    if (req.headers.authorization !== `Bearer ${GH_TOKEN}`)
      return { status: 401, body: { message: "Bad credentials" } };
    const base = `/repos/${REPO}`;
    let m: RegExpExecArray | null;
    if ((m = new RegExp(`^${base}/issues/(\\d+)/comments$`).exec(path))) {
      if (req.method === "GET") return { status: 200, body: url.searchParams.get("page") === "1" ? this.comments : [] };
      const made = { id: this.nextId++, body: String(input.body), user: { login: "github-actions[bot]", type: "Bot" } };
      this.comments.push(made);
      return { status: 201, body: made };
    }
    if ((m = new RegExp(`^${base}/issues/comments/(\\d+)$`).exec(path)) && req.method === "PATCH") {
      const c = this.comments.find((x) => x.id === Number(m![1]));
      if (!c) return { status: 404, body: { message: "Not Found" } };
      c.body = String(input.body);
      return { status: 200, body: c };
    }
    if ((m = new RegExp(`^${base}/commits/([0-9a-f]+)/pulls$`).exec(path))) {
      return {
        status: 200,
        body: url.searchParams.get("page") === "1" ? this.pulls.filter((p) => p.merge === m![1]) : [],
      };
    }
    if (path === `${base}/actions/artifacts`) {
      const list = this.artifacts.filter((a) => a.name === url.searchParams.get("name"));
      return {
        status: 200,
        body: {
          total_count: list.length,
          artifacts: list.map((a) => ({ id: a.id, name: a.name, expired: false, created_at: "2025-06-01T12:00:00Z" })),
        },
      };
    }
    if ((m = new RegExp(`^${base}/actions/artifacts/(\\d+)/zip$`).exec(path))) {
      return { status: 302, body: "", headers: { location: `${this.url}/blob/${m[1]}` } };
    }
    return { status: 404, body: { message: "Not Found" } };
  }
}

const gh = new GitHubStandIn();
beforeAll(() => gh.start());
afterAll(() => gh.close());

// --- running the Action as a runner does ------------------------------------------------------------------

interface ActionRun {
  code: number;
  log: string;
  summary: string;
  outputs: Record<string, string>;
}

/** Reads GITHUB_OUTPUT's `name<<DELIMITER` records. */
function parseOutputs(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const m = /^([\w-]+)<<(\S+)$/.exec(lines[i]!);
    if (!m) continue;
    const end = lines.indexOf(m[2]!, i + 1);
    out[m[1]!] = lines.slice(i + 1, end).join("\n");
    i = end;
  }
  return out;
}

async function runAction(
  workspace: string,
  event: string,
  payload: object,
  extra: { env?: Record<string, string>; inputs?: Record<string, string> } = {},
): Promise<ActionRun> {
  const home = await tempDir("zoneform-action-runner-");
  const files = { event: join(home, "event.json"), summary: join(home, "summary.md"), output: join(home, "output") };
  await writeFile(files.event, JSON.stringify(payload));
  await writeFile(files.summary, "");
  await writeFile(files.output, "");
  const inputs = { config: "zones/", "github-token": GH_TOKEN, mode: "", ...extra.inputs };
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "",
    ...Object.fromEntries(Object.entries(inputs).map(([k, v]) => [`INPUT_${k.toUpperCase()}`, v])),
    GITHUB_EVENT_NAME: event,
    GITHUB_EVENT_PATH: files.event,
    GITHUB_STEP_SUMMARY: files.summary,
    GITHUB_OUTPUT: files.output,
    GITHUB_REPOSITORY: REPO,
    GITHUB_API_URL: gh.url,
    GITHUB_SERVER_URL: "https://github.example",
    GITHUB_RUN_ID: "4242",
    GITHUB_WORKSPACE: workspace,
    CLOUDFLARE_API_TOKEN: TOKEN,
    CLOUDFLARE_API_BASE_URL: emu.url,
    ...(emu.now ? { ZONEFORM_NOW: emu.now } : {}),
    ZONEFORM_LOCK_DIR: home,
    ...extra.env,
  };
  const child = spawn(process.execPath, [ENTRY], { cwd: workspace, env, stdio: ["ignore", "pipe", "pipe"] });
  let log = "";
  child.stdout.on("data", (d) => (log += d));
  child.stderr.on("data", (d) => (log += d));
  const code = await new Promise<number>((r) => child.on("close", (c) => r(c ?? -1)));
  return {
    code,
    log,
    summary: await readFile(files.summary, "utf8"),
    outputs: parseOutputs(await readFile(files.output, "utf8")),
  };
}

async function workspaceWith(yaml: string): Promise<string> {
  const ws = await tempDir("zoneform-action-ws-");
  await mkdir(join(ws, "zones"));
  await writeFile(join(ws, "zones/example.yaml"), yaml);
  return ws;
}

const prEvent = (number: number, sha: string) => ({ pull_request: { number, head: { sha } } });
const HEAD1 = "a".repeat(40);
const MERGE1 = "b".repeat(40);

describe("the Action (dist-action/index.js) as a runner runs it", () => {
  it(
    "pull request: plans with no write, one comment created then updated, the summary and outputs; merge: " +
      "applies exactly that plan; a re-run says already applied",
    async () => {
      await emu.reset();
      const ws = await workspaceWith(config("script-src 'self' https://js.stripe.com"));
      await emu.clearRequests();

      const first = await runAction(ws, "pull_request", prEvent(7, HEAD1));
      expect(first.code, first.log).toBe(0);
      expect(await emu.calls({ writesOnly: true })).toEqual([]);
      expect(first.outputs["has-changes"]).toBe("true");
      expect(first.outputs.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
      expect(first.outputs["plan-path"]).toBe(join(ws, `zoneform-plan-${HEAD1}.json`));
      expect(first.outputs.mode).toBe("plan");
      expect(first.summary.startsWith(COMMENT_MARKER)).toBe(true);
      expect(first.summary).toContain(`Plan digest: \`${first.outputs.digest}\``);
      expect(first.summary).toContain("Checkout allow-list");
      expect(gh.commentCalls()).toEqual([
        `GET /repos/${REPO}/issues/7/comments`,
        `POST /repos/${REPO}/issues/7/comments`,
      ]);
      const mine = gh.comments.filter((c) => c.user.type === "Bot");
      expect(mine).toHaveLength(1);
      expect(mine[0]!.body.startsWith(COMMENT_MARKER)).toBe(true);
      expect(mine[0]!.body).toContain(`Plan digest: \`${first.outputs.digest}\``);
      expect(mine[0]!.body).toContain(
        `artifact \`zoneform-plan-${HEAD1}.json\` of [run 4242](https://github.example/${REPO}/actions/runs/4242)`,
      );

      gh.calls = [];
      const second = await runAction(ws, "pull_request", prEvent(7, HEAD1));
      expect(second.code, second.log).toBe(0);
      expect(gh.commentCalls()).toEqual([
        `GET /repos/${REPO}/issues/7/comments`,
        `PATCH /repos/${REPO}/issues/comments/${mine[0]!.id}`,
      ]);
      expect(gh.comments.filter((c) => c.user.type === "Bot")).toHaveLength(1);
      expect(gh.comments[0]!.body).toBe(`${COMMENT_MARKER}\nnot the bot's: a person pasted the marker`);
      expect(await emu.calls({ writesOnly: true })).toEqual([]);

      // The workflow uploads the plan (actions/upload-artifact, archive: false: the file's name is the
      // artifact's); the pull request is merged as MERGE1.
      const planText = await readFile(second.outputs["plan-path"]!, "utf8");
      gh.artifacts.push({ id: 900, name: basename(second.outputs["plan-path"]!), text: planText });
      gh.pulls.push({
        number: 7,
        merged_at: "2025-06-01T12:00:00Z",
        head: { sha: HEAD1 },
        base: { ref: "main" },
        merge: MERGE1,
      });

      // The apply job: a fresh checkout of main, without the plan file.
      const main = await workspaceWith(config("script-src 'self' https://js.stripe.com"));
      gh.calls = [];
      await emu.clearRequests();
      const push = { env: { GITHUB_SHA: MERGE1, GITHUB_REF: "refs/heads/main" } };
      const applied = await runAction(main, "push", { after: MERGE1 }, push);
      expect(applied.code, applied.log).toBe(0);
      expect(applied.outputs.mode).toBe("apply");
      expect(applied.outputs.applied).toBe("true");
      expect(applied.outputs.digest).toBe(second.outputs.digest);
      expect(await emu.calls({ writesOnly: true })).toEqual([
        `PUT zones/${ZONE.com}/page_shield`,
        `POST zones/${ZONE.com}/page_shield/policies`,
      ]);
      expect(applied.summary).toContain(`Applied the plan reviewed on #7, \`${second.outputs.digest}\``);
      expect(applied.summary).toContain("Apply complete! Resources: 1 created, 1 updated, 0 replaced, 0 deleted.");
      expect(gh.calls.map((c) => c.replace(/\?.*$/, ""))).toEqual([
        `GET /repos/${REPO}/commits/${MERGE1}/pulls`,
        `GET /repos/${REPO}/issues/7/comments`,
        `GET /repos/${REPO}/actions/artifacts`,
        `GET /repos/${REPO}/actions/artifacts/900/zip`,
        "GET /blob/900",
      ]);
      expect(await readFile(join(main, `zoneform-plan-${HEAD1}.json`), "utf8")).toBe(planText);

      // Re-running the finished apply job: the plan is stale (its changes are live), the files match.
      await emu.clearRequests();
      const again = await runAction(
        await workspaceWith(config("script-src 'self' https://js.stripe.com")),
        "push",
        { after: MERGE1 },
        push,
      );
      expect(again.code, again.log).toBe(0);
      expect(again.outputs["already-applied"]).toBe("true");
      expect(again.outputs.applied).toBe("false");
      expect(again.log).toMatch(/::notice::Already applied: the zones already match the files/);
      expect(again.summary).toContain("Already applied");
      expect(await emu.calls({ writesOnly: true })).toEqual([]);
    },
  );

  it(
    "merge: a plan made stale by a change by hand since the review is refused with nothing written, and a " +
      "new plan is shown",
    async () => {
      await emu.reset();
      const head = "c".repeat(40);
      const merge = "d".repeat(40);
      const ws = await workspaceWith(config("script-src 'self' https://js.stripe.com"));
      const planned = await runAction(ws, "pull_request", prEvent(8, head));
      expect(planned.code, planned.log).toBe(0);
      gh.pulls.push({
        number: 8,
        merged_at: "2025-06-01T12:00:00Z",
        head: { sha: head },
        base: { ref: "main" },
        merge,
      });
      const main = await workspaceWith(config("script-src 'self' https://js.stripe.com"));
      // The reviewed plan file is already there (downloaded by the workflow): no artifact call.
      await cp(planned.outputs["plan-path"]!, join(main, basename(planned.outputs["plan-path"]!)));

      // Someone turns Page Shield on by hand after the review.
      await emu.api("PUT", `zones/${ZONE.com}/page_shield`, { enabled: true });
      await emu.clearRequests();
      gh.calls = [];
      const refused = await runAction(main, "push", {}, { env: { GITHUB_SHA: merge, GITHUB_REF: "refs/heads/main" } });
      expect(refused.code).toBe(1);
      expect(await emu.calls({ writesOnly: true })).toEqual([]);
      expect(gh.calls.some((c) => c.includes("/artifacts"))).toBe(false);
      expect(refused.log).toMatch(/::error::The reviewed plan is stale/);
      expect(refused.summary).toContain("page_shield_settings/settings changed since the plan was made");
      expect(refused.summary).toContain("A new plan of what is left is below");
      expect(refused.outputs.applied).toBe("false");
      expect(refused.outputs["new-plan-path"]).toBe(join(main, "zoneform-new-plan.json"));
      expect(refused.outputs["new-digest"]).toMatch(/^sha256:[0-9a-f]{64}$/);
      expect(refused.outputs["new-digest"]).not.toBe(planned.outputs.digest);
      expect(refused.summary).toContain(`Plan digest: \`${refused.outputs["new-digest"]}\``);
    },
  );

  it(
    "schedule: drift then audit, read-only; the drift fails the step and is saved; the audit's SARIF is " +
      "saved for code scanning",
    async () => {
      await emu.reset();
      const ws = await workspaceWith(config("script-src 'self'"));
      await emu.clearRequests();
      gh.calls = [];
      const r = await runAction(ws, "schedule", { schedule: "17 3 * * *" });
      expect(r.code).toBe(1);
      expect(r.outputs.mode).toBe("drift,audit");
      expect(r.outputs["has-drift"]).toBe("true");
      expect(r.log).toContain("::error::drift: the zones no longer match the files");
      expect(JSON.parse(await readFile(r.outputs["drift-path"]!, "utf8"))).toHaveProperty("zones");
      expect(r.summary).toContain("### zoneform drift");
      expect(r.outputs["has-findings"], r.log).toMatch(/^(true|false)$/);
      expect(r.log).toContain(`$ zoneform audit -c ${join(ws, "zones")} --zone ${ZONE.com} --format sarif`);
      expect(r.log).not.toContain('"format_version"'); // the JSON and SARIF stay out of the log
      const sarif = JSON.parse(await readFile(r.outputs["sarif-path"]!, "utf8")) as {
        version: string;
        runs: unknown[];
      };
      expect(sarif.version).toBe("2.1.0");
      expect(await emu.calls({ writesOnly: true })).toEqual([]);
      expect(gh.calls).toEqual([]);
    },
  );

  it("no mode for the event: says which to set, nothing called", async () => {
    gh.calls = [];
    await emu.clearRequests();
    const r = await runAction(await workspaceWith(config("script-src 'self'")), "workflow_dispatch", {});
    expect(r.code).toBe(1);
    expect(r.log).toContain(
      '::error::no mode for the event "workflow_dispatch": set the input mode (plan, apply, drift, audit)',
    );
    expect(gh.calls).toEqual([]);
    expect(await emu.calls()).toEqual([]);
  });
});
