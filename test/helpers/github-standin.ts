// A stand-in for the part of GitHub's REST API the Action uses, on 127.0.0.1, answering as GitHub
// documents (https://docs.github.com/rest): who a token is (GET /user; 403 for an installation token
// such as the job's GITHUB_TOKEN), an issue's comments (list with paging, create as the token's
// account, edit), the pull requests of a commit, a workflow run, a run's artifacts, the repository's
// artifacts by name, and an artifact's download (a 302 to a blob URL that must be fetched without
// the token). It holds what a test puts in it (comments by other accounts, runs of other branches and
// forks, artifacts of the same name) and records every call, so that a test asserts both what the
// Action did and what it did not ask for.
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface StandInUser {
  login: string;
  type: "User" | "Bot";
  /** false for an installation token (GITHUB_TOKEN): GET /user answers 403. */
  readsUser: boolean;
}

export interface StoredComment {
  id: number;
  issue: number;
  body: string;
  user: { login: string; type: string };
}

export interface StoredPull {
  number: number;
  merged_at: string | null;
  merge_commit_sha: string | null;
  head: { sha: string; repo: { full_name: string } };
  base: { ref: string; repo: { full_name: string } };
}

export interface StoredRun {
  id: number;
  head_sha: string;
  event: string;
  path: string;
  repository: { full_name: string };
  head_repository: { full_name: string };
}

export interface StoredArtifact {
  id: number;
  name: string;
  runId: number;
  text: string;
  expired: boolean;
  created_at: string;
}

/** The job's GITHUB_TOKEN: an installation token of GitHub Actions' app. */
export const ACTIONS_BOT: StandInUser = { login: "github-actions[bot]", type: "Bot", readsUser: false };

type Answer = { status: number; body: unknown; headers?: Record<string, string> };

export class GitHubStandIn {
  readonly tokens = new Map<string, StandInUser>();
  /** Every call, as `METHOD /path?query`. */
  calls: string[] = [];
  comments: StoredComment[] = [];
  pulls: StoredPull[] = [];
  runs: StoredRun[] = [];
  artifacts: StoredArtifact[] = [];
  /** Paths (after /repos/owner/name) the token may not read, as GitHub answers a missing permission: 403. */
  denied: RegExp[] = [];
  url = "";
  private nextId = 1000;
  private server?: Server;

  constructor(readonly repo: string) {}

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

  close = () => new Promise<void>((r) => (this.server ? this.server.close(() => r()) : r()));

  /** Forgets the calls, comments, pull requests, runs and artifacts (the tokens stay). */
  reset(): void {
    this.calls = [];
    this.comments = [];
    this.pulls = [];
    this.runs = [];
    this.artifacts = [];
    this.denied = [];
  }

  /** The calls without their query (paging), as `METHOD /path`. */
  paths(): string[] {
    return this.calls.map((c) => c.replace(/\?.*$/, ""));
  }

  addComment(issue: number, body: string, user: { login: string; type: string }): StoredComment {
    const c = { id: this.nextId++, issue, body, user };
    this.comments.push(c);
    return c;
  }

  commentsOn(issue: number): StoredComment[] {
    return this.comments.filter((c) => c.issue === issue);
  }

  /** A pull request of this repository merged as `merge` into `base`. */
  merged(number: number, head: string, merge: string, opts: { base?: string; headRepo?: string } = {}): StoredPull {
    const p: StoredPull = {
      number,
      merged_at: "2025-06-01T12:00:00Z",
      merge_commit_sha: merge,
      head: { sha: head, repo: { full_name: opts.headRepo ?? this.repo } },
      base: { ref: opts.base ?? "main", repo: { full_name: this.repo } },
    };
    this.pulls.push(p);
    return p;
  }

  addRun(id: number, headSha: string, opts: { event?: string; headRepo?: string; path?: string } = {}): StoredRun {
    const run: StoredRun = {
      id,
      head_sha: headSha,
      event: opts.event ?? "pull_request",
      path: opts.path ?? ".github/workflows/zoneform-plan.yml",
      repository: { full_name: this.repo },
      head_repository: { full_name: opts.headRepo ?? this.repo },
    };
    this.runs = [...this.runs.filter((r) => r.id !== id), run];
    return run;
  }

  /** An artifact uploaded by run `runId` (actions/upload-artifact with archive: false: the file's bytes). */
  upload(runId: number, name: string, text: string, opts: { expired?: boolean; at?: string } = {}): StoredArtifact {
    const a: StoredArtifact = {
      id: this.nextId++,
      name,
      runId,
      text,
      expired: opts.expired ?? false,
      created_at: opts.at ?? "2025-06-01T12:00:00Z",
    };
    this.artifacts.push(a);
    return a;
  }

  private artifactJson(a: StoredArtifact) {
    const run = this.runs.find((r) => r.id === a.runId);
    return {
      id: a.id,
      name: a.name,
      size_in_bytes: Buffer.byteLength(a.text),
      archive_download_url: `${this.url}/repos/${this.repo}/actions/artifacts/${a.id}/zip`,
      expired: a.expired,
      created_at: a.created_at,
      workflow_run: { id: a.runId, head_sha: run?.head_sha, head_branch: "feature" },
    };
  }

  private async handle(req: IncomingMessage): Promise<Answer> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const text = Buffer.concat(chunks).toString("utf8");
    const input = text ? (JSON.parse(text) as Record<string, unknown>) : undefined;
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
    const auth = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1];
    const user = auth === undefined ? undefined : this.tokens.get(auth);
    if (!user) return { status: 401, body: { message: "Bad credentials" } };
    if (path === "/user" && req.method === "GET") {
      return user.readsUser
        ? { status: 200, body: { login: user.login, id: 1, type: user.type } }
        : { status: 403, body: { message: "Resource not accessible by integration" } };
    }
    const base = `/repos/${this.repo}`;
    if (!path.startsWith(`${base}/`)) return { status: 404, body: { message: "Not Found" } };
    const rest = path.slice(base.length);
    if (this.denied.some((d) => d.test(rest)))
      return { status: 403, body: { message: "Resource not accessible by integration" } };
    const page = <T>(items: T[]): T[] => {
      const size = Number(url.searchParams.get("per_page") ?? "30");
      const n = Number(url.searchParams.get("page") ?? "1");
      return items.slice((n - 1) * size, n * size);
    };
    let m: RegExpExecArray | null;
    if ((m = /^\/issues\/(\d+)\/comments$/.exec(rest))) {
      const issue = Number(m[1]);
      if (req.method === "GET") return { status: 200, body: page(this.commentsOn(issue)) };
      if (req.method === "POST") {
        const made = this.addComment(issue, String(input?.body), { login: user.login, type: user.type });
        return { status: 201, body: made };
      }
    }
    if ((m = /^\/issues\/comments\/(\d+)$/.exec(rest)) && req.method === "PATCH") {
      // GitHub lets an account with write access edit anyone's comment: the stand-in does too, and the
      // tests check whose the Action edits.
      const c = this.comments.find((x) => x.id === Number(m![1]));
      if (!c) return { status: 404, body: { message: "Not Found" } };
      c.body = String(input?.body);
      return { status: 200, body: c };
    }
    if ((m = /^\/commits\/([0-9a-f]+)\/pulls$/.exec(rest)) && req.method === "GET") {
      const sha = m[1];
      return { status: 200, body: page(this.pulls.filter((p) => p.merge_commit_sha === sha || p.head.sha === sha)) };
    }
    if ((m = /^\/actions\/runs\/(\d+)$/.exec(rest)) && req.method === "GET") {
      const run = this.runs.find((r) => r.id === Number(m![1]));
      return run ? { status: 200, body: run } : { status: 404, body: { message: "Not Found" } };
    }
    if ((m = /^\/actions\/runs\/(\d+)\/artifacts$/.exec(rest)) && req.method === "GET") {
      const name = url.searchParams.get("name");
      const list = this.artifacts.filter((a) => a.runId === Number(m![1]) && (name === null || a.name === name));
      return {
        status: 200,
        body: { total_count: list.length, artifacts: page(list).map((a) => this.artifactJson(a)) },
      };
    }
    if (rest === "/actions/artifacts" && req.method === "GET") {
      const name = url.searchParams.get("name");
      const list = this.artifacts
        .filter((a) => name === null || a.name === name)
        .sort((a, b) => Date.parse(b.created_at) - Date.parse(a.created_at));
      return {
        status: 200,
        body: { total_count: list.length, artifacts: page(list).map((a) => this.artifactJson(a)) },
      };
    }
    if ((m = /^\/actions\/artifacts\/(\d+)\/zip$/.exec(rest)) && req.method === "GET") {
      const a = this.artifacts.find((x) => x.id === Number(m![1]));
      if (!a) return { status: 404, body: { message: "Not Found" } };
      if (a.expired) return { status: 410, body: { message: "Artifact has expired" } };
      return { status: 302, body: "", headers: { location: `${this.url}/blob/${a.id}` } };
    }
    return { status: 404, body: { message: "Not Found" } };
  }
}
