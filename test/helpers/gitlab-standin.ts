// A stand-in for the part of GitLab's REST API (v4) the GitLab recipe's note script
// (examples/ci/gitlab-reviewed-plan.mjs) uses, on 127.0.0.1, answering as GitLab documents
// (https://docs.gitlab.com/api/): who a token is (GET /user), a merge request's notes (list with
// paging and x-next-page, create as the token's user, edit by their author only), the merge requests
// of a commit, a job and its pipeline, and a job's artifact file (optionally a 302 to object storage
// on another origin, which must be fetched without the token); and, with a job token (JOB-TOKEN), the
// artifacts archive of a job by its name on a branch (jobs/artifacts/:ref/download), from the latest
// successful pipeline of that branch or, with search_recent_successful_pipelines=true, the latest of
// its last 100 successful pipelines that has the job. It holds what a test puts in it (notes
// by other users, jobs of push pipelines, of other commits, of another project) and records every
// call, so that a test asserts both what the script did and what it did not ask for.
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface GitLabUser {
  id: number;
  username: string;
  bot: boolean;
}

export interface StoredNote {
  id: number;
  iid: number;
  body: string;
  author: { id: number; username: string };
  system: boolean;
}

export interface StoredMergeRequest {
  iid: number;
  project_id: number;
  state: "opened" | "merged" | "closed";
  target_branch: string;
  /** The head commit (the last of the source branch). */
  sha: string;
  merge_commit_sha: string | null;
  squash_commit_sha: string | null;
}

export interface StoredPipeline {
  id: number;
  project_id: number;
  sha: string;
  ref: string;
  source: string;
  status: string;
}

export interface StoredJob {
  id: number;
  name: string;
  status: string;
  pipelineId: number;
  /** The job's artifact files by path. */
  artifacts: Record<string, string>;
  /** The job's artifacts archive (a zip), when it has one. */
  archive?: Buffer;
}

type Answer = { status: number; body: unknown; headers?: Record<string, string> };

/** A zip archive of `files` (path → content), stored without compression, as GitLab serves artifacts. */
export function zipArchive(files: Record<string, string | Buffer>): Buffer {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc32 = (b: Buffer) => {
    let c = 0xffffffff;
    for (const byte of b) c = crcTable[(c ^ byte) & 0xff]! ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const [path, content] of Object.entries(files)) {
    const name = Buffer.from(path, "utf8");
    const data = Buffer.isBuffer(content) ? content : Buffer.from(content, "utf8");
    const crc = crc32(data);
    // version 2.0, no flags, stored, 1980-01-01 00:00, crc, sizes, name length, no extra field.
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x21, 12);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x21, 14);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, data);
    centrals.push(central, name);
    offset += local.length + name.length + data.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(Object.keys(files).length, 8);
  end.writeUInt16LE(Object.keys(files).length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

export class GitLabStandIn {
  readonly tokens = new Map<string, GitLabUser>();
  /** The CI_JOB_TOKEN values of running jobs (JOB-TOKEN), which read this project's artifacts. */
  readonly jobTokens = new Set<string>();
  /** When set, the artifacts-by-ref endpoint answers this status (a GitLab that fails). */
  artifactsStatus?: number;
  /** Every call, as `METHOD /path?query` (after /api/v4; the object storage's as `GET storage:/path`). */
  calls: string[] = [];
  notes: StoredNote[] = [];
  mergeRequests: StoredMergeRequest[] = [];
  pipelines: StoredPipeline[] = [];
  jobs: StoredJob[] = [];
  /** Artifact files answered with a 302 to the object storage (another origin) instead of the bytes. */
  redirectArtifacts = false;
  url = "";
  storageUrl = "";
  private nextNote = 500;
  private server?: Server;
  private storage?: Server;

  constructor(readonly project: number) {}

  /** CI_API_V4_URL. */
  get apiUrl(): string {
    return `${this.url}/api/v4`;
  }

  async start(): Promise<void> {
    const listen = async (handle: (req: IncomingMessage) => Promise<Answer>): Promise<[Server, string]> => {
      const server = createServer((req, res) => {
        void handle(req).then(
          ({ status, body, headers }) => {
            res.writeHead(status, { "content-type": "application/json", ...headers });
            res.end(typeof body === "string" || Buffer.isBuffer(body) ? body : JSON.stringify(body));
          },
          (err: Error) => {
            res.writeHead(500);
            res.end(err.message);
          },
        );
      });
      await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
      return [server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`];
    };
    [this.server, this.url] = await listen((req) => this.handle(req));
    [this.storage, this.storageUrl] = await listen(async (req) => this.fromStorage(req));
  }

  close = async (): Promise<void> => {
    for (const s of [this.server, this.storage]) if (s) await new Promise<void>((r) => s.close(() => r()));
  };

  /** Forgets the calls, notes, merge requests, pipelines and jobs (the tokens stay). */
  reset(): void {
    this.calls = [];
    this.notes = [];
    this.mergeRequests = [];
    this.pipelines = [];
    this.jobs = [];
    this.redirectArtifacts = false;
    this.artifactsStatus = undefined;
  }

  /** The calls without their query (paging), as `METHOD /path`. */
  paths(): string[] {
    return this.calls.map((c) => c.replace(/\?.*$/, ""));
  }

  addNote(iid: number, body: string, author: { id: number; username: string }, system = false): StoredNote {
    const n = { id: this.nextNote++, iid, body, author, system };
    this.notes.push(n);
    return n;
  }

  notesOn(iid: number): StoredNote[] {
    return this.notes.filter((n) => n.iid === iid);
  }

  /** A merge request of this project merged into `target` (default main) as `merge`, at head `head`. */
  merged(
    iid: number,
    head: string,
    merge: string,
    opts: { target?: string; project?: number; squash?: boolean } = {},
  ): StoredMergeRequest {
    const mr: StoredMergeRequest = {
      iid,
      project_id: opts.project ?? this.project,
      state: "merged",
      target_branch: opts.target ?? "main",
      sha: head,
      merge_commit_sha: opts.squash ? null : merge,
      squash_commit_sha: opts.squash ? merge : null,
    };
    this.mergeRequests.push(mr);
    return mr;
  }

  /** A pipeline and its one job, as a merge request pipeline of `sha` unless `opts` says otherwise. */
  addJob(
    id: number,
    sha: string,
    opts: Partial<Omit<StoredPipeline, "id" | "sha">> & {
      pipelineId?: number;
      name?: string;
      jobStatus?: string;
      artifacts?: Record<string, string>;
      archive?: Buffer;
    } = {},
  ): StoredJob {
    const pipeline: StoredPipeline = {
      id: opts.pipelineId ?? id + 100_000,
      project_id: opts.project_id ?? this.project,
      sha,
      ref: opts.ref ?? "refs/merge-requests/7/head",
      source: opts.source ?? "merge_request_event",
      status: opts.status ?? "success",
    };
    this.pipelines = [...this.pipelines.filter((p) => p.id !== pipeline.id), pipeline];
    const job: StoredJob = {
      id,
      name: opts.name ?? "plan",
      status: opts.jobStatus ?? "success",
      pipelineId: pipeline.id,
      artifacts: opts.artifacts ?? {},
      ...(opts.archive ? { archive: opts.archive } : {}),
    };
    this.jobs = [...this.jobs.filter((j) => j.id !== id), job];
    return job;
  }

  private jobJson(job: StoredJob) {
    const p = this.pipelines.find((x) => x.id === job.pipelineId)!;
    return {
      id: job.id,
      name: job.name,
      status: job.status,
      stage: "test",
      ref: p.ref,
      pipeline: { id: p.id, project_id: p.project_id, sha: p.sha, ref: p.ref, status: p.status, source: p.source },
      commit: { id: p.sha },
    };
  }

  private async fromStorage(req: IncomingMessage): Promise<Answer> {
    const url = new URL(req.url!, this.storageUrl);
    this.calls.push(`${req.method} storage:${url.pathname}`);
    const sent = ["private-token", "job-token", "authorization"].filter((h) => req.headers[h] !== undefined);
    if (sent.length > 0) return { status: 400, body: { message: "a token was sent to the object storage" } };
    const archive = /^\/archives\/(\d+)$/.exec(url.pathname);
    if (archive) {
      const zip = this.jobs.find((j) => j.id === Number(archive[1]))?.archive;
      return zip
        ? { status: 200, body: zip, headers: { "content-type": "application/zip" } }
        : { status: 404, body: "" };
    }
    const m = /^\/artifacts\/(\d+)\/(.+)$/.exec(url.pathname);
    const file = m ? this.jobs.find((j) => j.id === Number(m[1]))?.artifacts[decodeURIComponent(m[2]!)] : undefined;
    return file === undefined
      ? { status: 404, body: "" }
      : { status: 200, body: file, headers: { "content-type": "application/octet-stream" } };
  }

  private async handle(req: IncomingMessage): Promise<Answer> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const text = Buffer.concat(chunks).toString("utf8");
    const input = text ? (JSON.parse(text) as Record<string, unknown>) : undefined;
    const url = new URL(req.url!, this.url);
    if (!url.pathname.startsWith("/api/v4/")) return { status: 404, body: { message: "404 Not Found" } };
    const path = url.pathname.slice("/api/v4".length);
    this.calls.push(`${req.method} ${path}${url.search}`);
    const byRef = new RegExp(`^/projects/${this.project}/jobs/artifacts/(.+)/download$`).exec(path);
    if (byRef && req.method === "GET") return this.archiveByRef(req, decodeURIComponent(byRef[1]!), url);
    const token = req.headers["private-token"];
    const user = typeof token === "string" ? this.tokens.get(token) : undefined;
    if (!user) return { status: 401, body: { message: "401 Unauthorized" } };
    if (path === "/user" && req.method === "GET")
      return { status: 200, body: { id: user.id, username: user.username, bot: user.bot, state: "active" } };
    const base = `/projects/${this.project}`;
    if (!path.startsWith(`${base}/`)) return { status: 404, body: { message: "404 Project Not Found" } };
    const rest = path.slice(base.length);
    const page = <T>(items: T[]): Answer => {
      const size = Number(url.searchParams.get("per_page") ?? "20");
      const n = Number(url.searchParams.get("page") ?? "1");
      const pages = Math.max(1, Math.ceil(items.length / size));
      return {
        status: 200,
        body: items.slice((n - 1) * size, n * size),
        headers: { "x-next-page": n < pages ? String(n + 1) : "", "x-total-pages": String(pages) },
      };
    };
    const notFound = (what: string): Answer => ({ status: 404, body: { message: `404 ${what} Not Found` } });
    let m: RegExpExecArray | null;
    if ((m = /^\/merge_requests\/(\d+)\/notes$/.exec(rest))) {
      const iid = Number(m[1]);
      if (req.method === "GET") {
        const asc = url.searchParams.get("sort") === "asc";
        const list = [...this.notesOn(iid)].sort((a, b) => (asc ? a.id - b.id : b.id - a.id));
        return page(list);
      }
      if (req.method === "POST")
        return { status: 201, body: this.addNote(iid, String(input?.body), { id: user.id, username: user.username }) };
    }
    if ((m = /^\/merge_requests\/(\d+)\/notes\/(\d+)$/.exec(rest)) && req.method === "PUT") {
      const note = this.notes.find((n) => n.iid === Number(m![1]) && n.id === Number(m![2]));
      if (!note) return notFound("Note");
      // GitLab lets only a note's author edit it.
      if (note.author.id !== user.id) return { status: 403, body: { message: "403 Forbidden" } };
      note.body = String(input?.body);
      return { status: 200, body: note };
    }
    if ((m = /^\/repository\/commits\/([0-9a-f]+)\/merge_requests$/.exec(rest)) && req.method === "GET") {
      const sha = m[1];
      return page(
        this.mergeRequests.filter((r) => r.sha === sha || r.merge_commit_sha === sha || r.squash_commit_sha === sha),
      );
    }
    if ((m = /^\/jobs\/(\d+)$/.exec(rest)) && req.method === "GET") {
      const job = this.jobs.find((j) => j.id === Number(m![1]));
      return job ? { status: 200, body: this.jobJson(job) } : notFound("Job");
    }
    if ((m = /^\/pipelines\/(\d+)$/.exec(rest)) && req.method === "GET") {
      const p = this.pipelines.find((x) => x.id === Number(m![1]));
      return p ? { status: 200, body: p } : notFound("Pipeline");
    }
    if ((m = /^\/jobs\/(\d+)\/artifacts\/(.+)$/.exec(rest)) && req.method === "GET") {
      const job = this.jobs.find((j) => j.id === Number(m![1]));
      const name = decodeURIComponent(m[2]!);
      const file = job?.artifacts[name];
      if (file === undefined) return notFound("File");
      if (this.redirectArtifacts)
        return { status: 302, body: "", headers: { location: `${this.storageUrl}/artifacts/${job!.id}/${m[2]}` } };
      return { status: 200, body: file, headers: { "content-type": "application/octet-stream" } };
    }
    return notFound("Endpoint");
  }

  /**
   * GET /projects/:id/jobs/artifacts/:ref_name/download?job=NAME, as GitLab answers it to a job token:
   * the archive of the job NAME in the latest successful pipeline of the branch (of its last 100 with
   * search_recent_successful_pipelines=true), 404 when that pipeline has no such job with an archive.
   */
  private archiveByRef(req: IncomingMessage, ref: string, url: URL): Answer {
    const token = req.headers["job-token"];
    if (typeof token !== "string" || !this.jobTokens.has(token))
      return { status: 401, body: { message: "401 Unauthorized" } };
    if (this.artifactsStatus !== undefined)
      return { status: this.artifactsStatus, body: { message: `${this.artifactsStatus} from the stand-in` } };
    const successful = this.pipelines
      .filter((p) => p.project_id === this.project && p.ref === ref && p.status === "success")
      .sort((a, b) => b.id - a.id);
    const searched = url.searchParams.get("search_recent_successful_pipelines") === "true" ? 100 : 1;
    const name = url.searchParams.get("job");
    const job = successful
      .slice(0, searched)
      .map((p) => this.jobs.find((j) => j.pipelineId === p.id && j.name === name && j.archive))
      .find(Boolean);
    if (!job) return { status: 404, body: { message: "404 Not found" } };
    if (this.redirectArtifacts)
      return { status: 302, body: "", headers: { location: `${this.storageUrl}/archives/${job.id}` } };
    return { status: 200, body: job.archive, headers: { "content-type": "application/zip" } };
  }
}
