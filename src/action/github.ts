// The few calls of GitHub's REST API the Action makes, with the job's token: the pull request's
// comments (list, create, update), the pull requests a pushed commit belongs to, and the saved plan
// uploaded by the pull request's run (an artifact uploaded unzipped, `archive: false`). Every call is
// bounded in time and size; an answer that is not what the API documents is an error, never a guess.

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
  head: { sha: string };
  base: { ref: string };
}

export interface Artifact {
  id: number;
  name: string;
  expired: boolean;
  created_at: string;
  workflow_run?: { id: number; head_sha?: string };
}

export class GitHubError extends Error {
  override name = "GitHubError";
}

export class GitHub {
  constructor(
    private readonly apiUrl: string,
    private readonly token: string,
    private readonly repo: string,
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
      if (!blob.ok) throw new GitHubError(`downloading ${path}: HTTP ${blob.status}`);
      return readCapped(blob, `${method} ${path}`);
    }
    const text = await readCapped(res, `${method} ${path}`);
    if (!res.ok) {
      let message = text.slice(0, 300);
      try {
        message = (JSON.parse(text) as { message?: string }).message ?? message;
      } catch {
        // not JSON: the start of the text
      }
      const hint =
        res.status === 403 || res.status === 404 ? " (does the workflow grant the permissions docs/ci.md lists?)" : "";
      throw new GitHubError(`GitHub API ${method} ${path}: HTTP ${res.status} ${message}${hint}`);
    }
    if (opts.raw) return text;
    try {
      return text === "" ? null : JSON.parse(text);
    } catch {
      throw new GitHubError(`GitHub API ${method} ${path}: the answer is not JSON`);
    }
  }

  private async list<T>(path: string, pick: (page: any) => unknown): Promise<T[]> {
    const out: T[] = [];
    for (let page = 1; page <= MAX_PAGES; page++) {
      const items = pick(await this.call("GET", `${path}${path.includes("?") ? "&" : "?"}per_page=100&page=${page}`));
      if (!Array.isArray(items)) throw new GitHubError(`GitHub API GET ${path}: expected a list`);
      out.push(...(items as T[]));
      if (items.length < 100) return out;
    }
    throw new GitHubError(`GitHub API GET ${path}: more than ${MAX_PAGES} pages`);
  }

  listComments(issue: number): Promise<Comment[]> {
    return this.list<Comment>(`repos/${this.repo}/issues/${issue}/comments`, (p) => p);
  }

  createComment(issue: number, body: string): Promise<Comment> {
    return this.call("POST", `repos/${this.repo}/issues/${issue}/comments`, { body });
  }

  updateComment(id: number, body: string): Promise<Comment> {
    return this.call("PATCH", `repos/${this.repo}/issues/comments/${id}`, { body });
  }

  pullsOfCommit(sha: string): Promise<PullRequest[]> {
    return this.list<PullRequest>(`repos/${this.repo}/commits/${encodeURIComponent(sha)}/pulls`, (p) => p);
  }

  artifactsNamed(name: string): Promise<Artifact[]> {
    return this.list<Artifact>(
      `repos/${this.repo}/actions/artifacts?name=${encodeURIComponent(name)}`,
      (p) => p?.artifacts,
    );
  }

  downloadArtifact(id: number): Promise<string> {
    return this.call("GET", `repos/${this.repo}/actions/artifacts/${id}/zip`, undefined, { raw: true });
  }
}

async function readCapped(res: Response, what: string): Promise<string> {
  const declared = Number(res.headers.get("content-length") ?? "0");
  if (declared > MAX_BODY_BYTES)
    throw new GitHubError(`${what}: the answer is ${declared} bytes, over ${MAX_BODY_BYTES}`);
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
