// The few calls of GitHub's REST API the Action makes, with the job's token.

/** Longest any one call may take. */
const CALL_TIMEOUT_MS = 30_000;
/** Largest answer read (a plan file is at most 64 MiB: src/engine/plan-store.ts). */
const MAX_BODY_BYTES = 64 * 1024 * 1024;
/** Pages of 100 read at most when listing (10 000 comments). */
const MAX_PAGES = 100;

export interface Comment {
  id: number;
  body: string;
  user: { login: string; type?: string } | null;
}

export interface PullRequest {
  number: number;
  merged_at: string | null;
  merge_commit_sha: string | null;
  head: { sha: string; repo?: { full_name?: string } | null };
  base: { ref: string; repo?: { full_name?: string } | null };
}

export interface WorkflowRun {
  id: number;
  head_sha: string;
  event: string;
  path?: string;
  repository: { full_name: string } | null;
  head_repository: { full_name: string } | null;
}

export interface Artifact {
  id: number;
  name: string;
  expired: boolean;
  workflow_run?: { id?: number; head_sha?: string } | null;
}

export interface Identity {
  login: string;
  /** An app's bot (`github-actions[bot]`): its comments have `user.type` "Bot". */
  bot: boolean;
}

export const ACTIONS_BOT: Identity = { login: "github-actions[bot]", bot: true };

class GitHubError extends Error {
  override name = "GitHubError";
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

const isObject = (v: unknown): v is Record<string, any> => typeof v === "object" && v !== null && !Array.isArray(v);

export class GitHub {
  constructor(
    private readonly apiUrl: string,
    private readonly token: string,
    readonly repo: string,
  ) {
    if (!/^[\w.-]+\/[\w.-]+$/.test(repo)) throw new GitHubError(`GITHUB_REPOSITORY "${repo}" is not owner/name`);
  }

  private async call(method: string, path: string, body?: unknown, opts: { raw?: boolean } = {}): Promise<any> {
    const url = `${this.apiUrl.replace(/\/+$/, "")}/${path}`;
    const res = await fetch(url, {
      method,
      redirect: opts.raw ? "manual" : "follow",
      signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
      headers: {
        accept: opts.raw ? "application/octet-stream" : "application/vnd.github+json",
        authorization: `Bearer ${this.token}`,
        "x-github-api-version": "2022-11-28",
        "user-agent": "zoneform-action",
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (opts.raw && res.status >= 300 && res.status < 400) {
      // The artifact's bytes are at a signed URL on another host: fetched without the token.
      const location = res.headers.get("location");
      await res.body?.cancel();
      if (!location) throw new GitHubError(`${method} ${path}: HTTP ${res.status} without a Location`);
      const blob = await fetch(location, { signal: AbortSignal.timeout(CALL_TIMEOUT_MS) });
      if (!blob.ok) {
        await blob.body?.cancel();
        throw new GitHubError(`downloading ${path}: HTTP ${blob.status}`, blob.status);
      }
      return readCapped(blob, `${method} ${path}`);
    }
    const text = await readCapped(res, `${method} ${path}`);
    if (!res.ok) {
      let message = text.slice(0, 300);
      try {
        message = String((JSON.parse(text) as { message?: unknown }).message ?? message);
      } catch {
        // not JSON: the start of the text
      }
      const hint =
        res.status === 403 || res.status === 404 ? " (does the workflow grant the permissions docs/ci.md lists?)" : "";
      throw new GitHubError(
        `GitHub API ${method} ${path}: HTTP ${res.status} ${JSON.stringify(message)}${hint}`,
        res.status,
      );
    }
    if (opts.raw) return text;
    try {
      return text === "" ? null : JSON.parse(text);
    } catch {
      throw new GitHubError(`GitHub API ${method} ${path}: the answer is not JSON`);
    }
  }

  private async list<T>(path: string, pick: (page: any) => unknown, valid: (item: any) => boolean): Promise<T[]> {
    const out: T[] = [];
    for (let page = 1; page <= MAX_PAGES; page++) {
      const items = pick(await this.call("GET", `${path}${path.includes("?") ? "&" : "?"}per_page=100&page=${page}`));
      if (!Array.isArray(items)) throw new GitHubError(`GitHub API GET ${path}: expected a list`);
      const bad = items.findIndex((item) => !valid(item));
      if (bad >= 0)
        throw new GitHubError(`GitHub API GET ${path}: item ${bad} of page ${page} is not what the API documents`);
      out.push(...(items as T[]));
      if (items.length < 100) return out;
    }
    throw new GitHubError(`GitHub API GET ${path}: more than ${MAX_PAGES} pages`);
  }

  /** Who the token is (GET /user). */
  async identity(): Promise<Identity> {
    let user: unknown;
    try {
      user = await this.call("GET", "user");
    } catch (err) {
      if (err instanceof GitHubError && err.status === 403) return ACTIONS_BOT;
      throw err;
    }
    if (!isObject(user) || typeof user.login !== "string" || user.login === "")
      throw new GitHubError("GitHub API GET /user: the answer has no login");
    return { login: user.login, bot: user.type === "Bot" };
  }

  listComments(issue: number): Promise<Comment[]> {
    return this.list<Comment>(
      `repos/${this.repo}/issues/${issue}/comments`,
      (p) => p,
      (c) => isObject(c) && Number.isSafeInteger(c.id) && (c.user === null || isObject(c.user)),
    );
  }

  createComment(issue: number, body: string): Promise<Comment> {
    return this.call("POST", `repos/${this.repo}/issues/${issue}/comments`, { body });
  }

  updateComment(id: number, body: string): Promise<Comment> {
    return this.call("PATCH", `repos/${this.repo}/issues/comments/${id}`, { body });
  }

  pullsOfCommit(sha: string): Promise<PullRequest[]> {
    return this.list<PullRequest>(
      `repos/${this.repo}/commits/${encodeURIComponent(sha)}/pulls`,
      (p) => p,
      (p) => isObject(p) && Number.isSafeInteger(p.number) && isObject(p.head) && isObject(p.base),
    );
  }

  async workflowRun(id: string): Promise<WorkflowRun> {
    const run = await this.call("GET", `repos/${this.repo}/actions/runs/${encodeURIComponent(id)}`);
    if (
      !isObject(run) ||
      !Number.isSafeInteger(run.id) ||
      typeof run.head_sha !== "string" ||
      typeof run.event !== "string"
    )
      throw new GitHubError(`GitHub API GET /repos/${this.repo}/actions/runs/${id}: not a workflow run`);
    return run as WorkflowRun;
  }

  /** The artifacts of one workflow run that have this name. */
  runArtifacts(runId: string, name: string): Promise<Artifact[]> {
    return this.list<Artifact>(
      `repos/${this.repo}/actions/runs/${encodeURIComponent(runId)}/artifacts?name=${encodeURIComponent(name)}`,
      (p) => p?.artifacts,
      (a) => isObject(a) && Number.isSafeInteger(a.id) && typeof a.name === "string",
    );
  }

  downloadArtifact(id: number): Promise<string> {
    return this.call("GET", `repos/${this.repo}/actions/artifacts/${id}/zip`, undefined, { raw: true });
  }
}

async function readCapped(res: Response, what: string): Promise<string> {
  const declared = Number(res.headers.get("content-length") ?? "0");
  if (declared > MAX_BODY_BYTES) {
    await res.body?.cancel();
    throw new GitHubError(`${what}: the answer is ${declared} bytes, over ${MAX_BODY_BYTES}`);
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (res.body) {
    for await (const chunk of res.body) {
      size += chunk.byteLength;
      if (size > MAX_BODY_BYTES) throw new GitHubError(`${what}: the answer is over ${MAX_BODY_BYTES} bytes`);
      chunks.push(chunk);
    }
  }
  return Buffer.concat(chunks).toString("utf8");
}
