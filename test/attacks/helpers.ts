// Shared by the attack suite (issue 15): the built CLI run as a child process (so that a hang is the
// child's, killed at a deadline, never the test runner's), and a hostile proxy in front of the
// emulator that answers chosen requests itself (a page that ignores paging, an HTML 404, a malformed
// item, a body that drips) and forwards the rest, over real HTTP on 127.0.0.1.
import { spawn } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, beforeEach, expect } from "vitest";
import { TOKEN, type TestEmulator } from "../helpers/cli.js";

/** A stack trace or an internal error in stderr: never acceptable, whatever the attack. */
export const STACK = /Internal error|\n\s+at \S/;

export const BUILT_CLI = fileURLToPath(new URL("../../dist/cli/zoneform.js", import.meta.url));

export interface BuiltResult {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Wall time of the run, ms. */
  ms: number;
  /** The run did not end by itself before its deadline and was killed. */
  killed: boolean;
}

/**
 * Runs `node dist/cli/zoneform.js <argv>` (the built CLI: `npm run build` first) with only the token, PATH
 * and HOME in its environment, killing it after `deadlineMs` (then `killed` is true).
 */
export function runBuilt(
  argv: string[],
  opts: { env?: Record<string, string>; deadlineMs?: number; cwd?: string } = {},
): Promise<BuiltResult> {
  if (!existsSync(BUILT_CLI)) throw new Error(`${BUILT_CLI} is missing: run \`npm run build\` before the attack suite`);
  warnIfStale();
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BUILT_CLI, ...argv], {
      cwd: opts.cwd,
      env: {
        PATH: process.env.PATH ?? "",
        HOME: process.env.HOME ?? "",
        NO_COLOR: "1",
        CLOUDFLARE_API_TOKEN: TOKEN,
        ...opts.env,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    let killed = false;
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    const timer = setTimeout(() => {
      killed = true;
      child.kill("SIGKILL");
    }, opts.deadlineMs ?? 10_000);
    child.on("error", (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, ms: Date.now() - started, killed });
    });
  });
}

let staleChecked = false;

/** Says so (once) when a source file is newer than the build the suite runs: the results are the build's. */
function warnIfStale(): void {
  if (staleChecked) return;
  staleChecked = true;
  const built = statSync(BUILT_CLI).mtimeMs;
  const src = fileURLToPath(new URL("../../src", import.meta.url));
  const newer = (readdirSync(src, { recursive: true }) as string[]).filter(
    (f) => f.endsWith(".ts") && statSync(join(src, f)).mtimeMs > built,
  );
  if (newer.length > 0)
    console.warn(
      `attack suite: ${newer.length} file(s) of src/ are newer than dist/ (e.g. src/${newer[0]}); run \`npm ` +
        `run build\` first`,
    );
}

/** Exit code and an exact error line, no stack trace; the output is shown when it fails. */
export function expectFailure(r: { code: number | null; stdout: string; stderr: string }, code: number): void {
  expect(r.code, `exit code; stdout:\n${r.stdout}\nstderr:\n${r.stderr}`).toBe(code);
  expect(r.stderr).toMatch(/^Error: /m);
  expect(r.stderr).not.toMatch(STACK);
}

/** A Cloudflare envelope as JSON text. */
export function envelope(result: unknown, resultInfo?: Record<string, unknown>): string {
  return JSON.stringify({
    success: true,
    errors: [],
    messages: [],
    result,
    ...(resultInfo ? { result_info: resultInfo } : {}),
  });
}

interface ProxiedRequest {
  method: string;
  /** Path after /client/v4/, no query. */
  path: string;
  query: URLSearchParams;
  body: Buffer;
}

interface Upstream {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/**
 * Answers a request itself (returns true) or lets it through (returns false). `forward` sends it to
 * the emulator and gives back its answer without answering the client, to spoil a real answer.
 */
export type Spoiler = (
  req: ProxiedRequest,
  res: ServerResponse,
  forward: () => Promise<Upstream>,
) => boolean | Promise<boolean>;

/** A proxy in front of a TestEmulator; `spoil` decides per request; `log` keeps every request seen. */
export class HostileProxy {
  spoil: Spoiler | undefined;
  readonly log: Array<{
    method: string;
    path: string;
    query: string;
    headers: Record<string, string | string[] | undefined>;
    spoiled: boolean;
  }> = [];
  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(emu: () => TestEmulator): Promise<HostileProxy> {
    let proxy: HostileProxy | undefined;
    const server = createServer((req, res) => {
      proxy!.handle(emu(), req, res).catch(() => res.destroy());
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    proxy = new HostileProxy(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}/client/v4`);
    return proxy;
  }

  reset(): void {
    this.spoil = undefined;
    this.log.length = 0;
  }

  /** Requests seen with this method whose path matches. */
  seen(method: string, path: RegExp): number {
    return this.log.filter((r) => r.method === method && path.test(r.path)).length;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private async handle(emu: TestEmulator, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const url = new URL(req.url ?? "/", "http://x");
    const request: ProxiedRequest = {
      method: req.method ?? "GET",
      path: url.pathname.replace(/^\/client\/v4\//, ""),
      query: url.searchParams,
      body: Buffer.concat(chunks),
    };
    const forward = async (): Promise<Upstream> => {
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers))
        if (typeof v === "string" && k !== "host" && k !== "content-length") headers[k] = v;
      const upstream = await fetch(`${emu.url}/${request.path}${url.search}`, {
        method: request.method,
        headers,
        body: request.body.length > 0 ? new Uint8Array(request.body) : undefined,
      });
      const out: Record<string, string> = {};
      upstream.headers.forEach((v, k) => {
        if (k !== "content-length" && k !== "transfer-encoding" && k !== "connection" && k !== "keep-alive") out[k] = v;
      });
      return { status: upstream.status, headers: out, body: Buffer.from(await upstream.arrayBuffer()) };
    };
    const entry = {
      method: request.method,
      path: request.path,
      query: url.search,
      headers: req.headers,
      spoiled: false,
    };
    this.log.push(entry);
    if (this.spoil && (await this.spoil(request, res, forward))) {
      entry.spoiled = true;
      return;
    }
    const answer = await forward();
    res.writeHead(answer.status, answer.headers).end(answer.body);
  }
}

/** Sends `text` one byte every `everyMs`, after the headers, until the client goes away. */
export function drip(res: ServerResponse, status: number, text: string, everyMs: number): void {
  res.writeHead(status, { "content-type": "application/json", "content-length": String(Buffer.byteLength(text)) });
  res.flushHeaders();
  let i = 0;
  const timer = setInterval(() => {
    if (i >= text.length || res.destroyed) {
      clearInterval(timer);
      if (!res.destroyed) res.end();
      return;
    }
    res.write(text[i++]!);
  }, everyMs);
  res.on("close", () => clearInterval(timer));
}

/** Writes that change something: every non-GET but the Logpush checks, which only validate, and the dry runs. */
export function changingWrites(calls: string[]): string[] {
  return calls.filter(
    (c) =>
      !c.startsWith("GET ") &&
      !c.endsWith("?dry_run=true") &&
      !/logpush\/(validate\/destination|ownership\/validate)/.test(c),
  );
}

/** A hostile proxy in front of the file's emulator, started once, reset before each test. */
export function useHostileProxy(emu: TestEmulator): { readonly proxy: HostileProxy } {
  let proxy: HostileProxy | undefined;
  beforeAll(async () => {
    proxy = await HostileProxy.start(() => emu);
  });
  afterAll(async () => proxy?.close());
  beforeEach(() => proxy!.reset());
  return {
    get proxy() {
      return proxy!;
    },
  };
}
