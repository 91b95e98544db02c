// The one set of emulator helpers for every suite: an emulator per test file (reset to the seed before
// each test), its API and admin API over real HTTP (as results, or as whole answers with status and
// headers for the emulator's own tests), its request log, a client on it, a config written to a temp
// dir, and the CLI run in-process against it.
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, expect } from "vitest";
import {
  DEFAULT_TOKEN,
  startEmulator,
  zoneIdFor,
  type EmulatorNow,
  type EmulatorOptions,
  type EmulatorState,
  type RequestLogEntry,
  type RunningEmulator,
} from "../../src/emulator/index.js";
import { NOW_ENV } from "../../src/instant.js";
import { createClient, type ClientOptions } from "../../src/cloudflare/client.js";
import type { CloudflareClient } from "../../src/cloudflare/types.js";
import { memoryIO } from "../../src/cli/io.js";
import { main } from "../../src/cli/program.js";

export const TOKEN = DEFAULT_TOKEN;
/**
 * Where the test emulator's clock stands still unless a test sets another (`now`), and the CLI's
 * ZONEFORM_NOW in runCli: no test depends on the day it runs, and the CLI counts its windows from the
 * very instant the emulator dated its data at. test/e2e/clock.test.ts runs the demo flow a year apart
 * to show the findings do not depend on the instant either.
 */
export const TEST_NOW = "2025-06-01T12:00:00.000Z";

/**
 * The clock a test emulator runs on: a fixed instant stands still there (unlike startEmulator's,
 * which runs on from it), a function is the test's own; `env` is that instant for ZONEFORM_NOW.
 */
function testClock(now: EmulatorNow = TEST_NOW): { now: EmulatorNow; env: string | undefined } {
  if (typeof now === "function") return { now, env: undefined };
  const ms = typeof now === "string" ? Date.parse(now) : now instanceof Date ? now.getTime() : now;
  return { now: () => ms, env: new Date(ms).toISOString() };
}
export const ACCOUNT = "0123456789abcdef0123456789abcdef";
/** A zone's id in the emulator: md5 of its name. */
export const zoneId = zoneIdFor;
/** Zone ids of the default seed. */
export const ZONE = {
  com: zoneId("example.com"),
  net: zoneId("example.net"),
  org: zoneId("example.org"),
  dev: zoneId("example.dev"),
} as const;

/** An entry of the emulator's request log. */
export type LoggedRequest = RequestLogEntry;

/** A request sent with `?dry_run=true`: Cloudflare's check of a write, which persists nothing (engine/dry-run.ts). */
export const isDryRun = (r: LoggedRequest): boolean => r.query.dry_run === "true";

/** A write that changes something: neither a read nor a dry run. */
export const isWrite = (r: LoggedRequest): boolean => r.method !== "GET" && !isDryRun(r);

const RULESET_WRITE = /^\/client\/v4\/zones\/[^/]+\/rulesets(\/|$)/;
/** The POSTs that only check something while planning (docs/connecting.md): they change nothing. */
const CHECK_ONLY = /\/logpush\/(validate\/|ownership\/validate$)/;

/**
 * The writes of an apply's request log, once it is checked that Cloudflare was asked first about every ruleset
 * write of it: one dry run per ruleset write, with the same call and body, all of them before the first write.
 * For an apply that made every change it planned.
 */
export function writesCheckedFirst(log: readonly LoggedRequest[]): LoggedRequest[] {
  const writes = log.filter(isWrite);
  const checks = log.filter(isDryRun);
  const key = (r: LoggedRequest) => JSON.stringify([r.method, r.path, r.body]);
  expect(checks.map(key).sort(), "a dry run for each ruleset write, with its body").toEqual(
    writes
      .filter((r) => RULESET_WRITE.test(r.path))
      .map(key)
      .sort(),
  );
  const firstWrite = log.findIndex((r) => isWrite(r) && !CHECK_ONLY.test(r.path));
  if (firstWrite >= 0) expect(log.slice(firstWrite).filter(isDryRun), "no dry run after the first write").toEqual([]);
  return writes;
}

/** A whole answer: status, headers and parsed body. */
export interface ApiAnswer<T = any> {
  status: number;
  headers: Headers;
  /** Parsed JSON, or null for an empty body. */
  body: T;
}

export interface CallOptions {
  /** Replaces the default `Authorization: Bearer emulator-token` (pass {} for no auth at all). */
  headers?: Record<string, string>;
  /** Sent as is (no JSON encoding, no content type added). */
  rawBody?: string;
}

const relative = (path: string) => path.replace(/^\//, "");

export class TestEmulator {
  private running?: RunningEmulator;

  /**
   * The instant the emulator's clock stands at, as ZONEFORM_NOW names it (undefined when a test gave it a function).
   */
  readonly now: string | undefined;

  private constructor(now: string | undefined, running?: RunningEmulator) {
    this.running = running;
    this.now = now;
  }

  private get emu(): RunningEmulator {
    if (!this.running)
      throw new Error("the test emulator is not started: use TestEmulator.perFile() at the top of the test file");
    return this.running;
  }

  static async start(opts: EmulatorOptions = {}): Promise<TestEmulator> {
    const clock = testClock(opts.now);
    return new TestEmulator(clock.env, await startEmulator({ port: 0, ...opts, now: clock.now }));
  }

  /** One emulator for the whole test file, reset to the seed (request log cleared) before each test. */
  static perFile(opts: EmulatorOptions = {}): TestEmulator {
    const clock = testClock(opts.now);
    const t = new TestEmulator(clock.env);
    beforeAll(async () => {
      t.running = await startEmulator({ port: 0, ...opts, now: clock.now });
    });
    afterAll(async () => t.running?.close());
    beforeEach(async () => {
      await t.reset();
    });
    return t;
  }

  /** e.g. `http://127.0.0.1:8787/client/v4` */
  get url(): string {
    return this.emu.url;
  }

  get adminUrl(): string {
    return this.emu.adminUrl;
  }

  get port(): number {
    return this.emu.port;
  }

  /** The live state (the object the server changes). */
  state(): EmulatorState {
    return this.emu.state();
  }

  /** Calls the admin API (path with or without a leading slash), returning its parsed answer; throws unless 2xx. */
  async admin<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await this.fetchAdmin(method, path, body);
    const text = await res.text();
    if (!res.ok) throw new Error(`admin ${method} ${path}: ${res.status} ${text}`);
    return (text ? JSON.parse(text) : undefined) as T;
  }

  /** Calls the admin API, e.g. `callAdmin("POST", "faults", {...})`, returning the whole answer. */
  async callAdmin<T = any>(method: string, path: string, body?: unknown): Promise<ApiAnswer<T>> {
    return toAnswer(await this.fetchAdmin(method, path, body));
  }

  /**
   * Calls the API itself (for seeding foreign state) with the default token, returning the envelope's result; throws
   * unless it succeeded.
   */
  async api<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await fetch(`${this.emu.url}/${relative(path)}`, {
      method,
      headers: {
        authorization: `Bearer ${TOKEN}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    const env = text ? JSON.parse(text) : { result: null, success: res.ok };
    if (!env.success) throw new Error(`${method} ${path}: ${res.status} ${text}`);
    return env.result as T;
  }

  /**
   * Calls `<url>/<path>` (path after /client/v4/, query included) with the default token, returning the whole answer.
   */
  async call<T = any>(method: string, path: string, body?: unknown, opts: CallOptions = {}): Promise<ApiAnswer<T>> {
    const headers: Record<string, string> = opts.headers ?? { authorization: `Bearer ${TOKEN}` };
    let payload: string | undefined = opts.rawBody;
    if (payload === undefined && body !== undefined) {
      payload = JSON.stringify(body);
      headers["content-type"] ??= "application/json";
    }
    return toAnswer(await fetch(`${this.emu.url}/${relative(path)}`, { method, headers, body: payload }));
  }

  /** Adds a fault (see the admin API's POST faults). */
  fault = (spec: Record<string, unknown>) => this.admin("POST", "/faults", spec);
  /** Restores the seed and clears faults, latency, log and rate counters. */
  reset = () => this.admin("POST", "/reset");
  clearRequests = () => this.admin("DELETE", "/requests");
  /** The request log, oldest first. */
  requests = () => this.admin<LoggedRequest[]>("GET", "/requests");
  /**
   * The calls made, as `METHOD path` relative to /client/v4/ (a dry run as `METHOD path?dry_run=true`), optionally
   * only the writes (`writesOnly`: no read, no dry run) or only the dry runs.
   */
  async calls(opts: { writesOnly?: boolean; dryRuns?: boolean } = {}): Promise<string[]> {
    const all = await this.requests();
    return all
      .filter((r) => (!opts.writesOnly || isWrite(r)) && (!opts.dryRuns || isDryRun(r)))
      .map((r) => `${r.method} ${r.path.replace(/^\/client\/v4\//, "")}${isDryRun(r) ? "?dry_run=true" : ""}`);
  }
  close = () => this.emu.close();

  private fetchAdmin(method: string, path: string, body?: unknown): Promise<Response> {
    return fetch(`${this.emu.adminUrl}/${relative(path)}`, {
      method,
      headers: body === undefined ? {} : { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  }
}

/** The file's emulator as a getter (the style of the emulator's own tests): TestEmulator.perFile. */
export function useEmulator(opts: EmulatorOptions = {}): () => TestEmulator {
  const emu = TestEmulator.perFile(opts);
  return () => emu;
}

async function toAnswer(res: Response): Promise<ApiAnswer> {
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text === "" ? null : JSON.parse(text) };
}

/** A client on the emulator with fast backoff, collecting its verbose log. */
export function clientOn(
  emu: TestEmulator,
  opts: Partial<ClientOptions> = {},
): { client: CloudflareClient; lines: string[] } {
  const lines: string[] = [];
  const client = createClient({
    baseUrl: emu.url,
    auth: { token: TOKEN },
    retryBaseDelayMs: 20,
    log: (l) => lines.push(l),
    ...opts,
  });
  return { client, lines };
}

export async function tempDir(prefix = "zoneform-test-"): Promise<string> {
  return mkdtemp(join(tmpdir(), prefix));
}

/** Writes `yaml` (a string) to a fresh temp dir and returns the file's path. */
export async function writeConfig(yaml: string, name = "zoneform.yaml", dir?: string): Promise<string> {
  const d = dir ?? (await tempDir());
  const path = join(d, name);
  await writeFile(path, yaml);
  return path;
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `zoneform <argv>` in-process against the emulator (adds --api-url unless given), with the
 * emulator's clock as ZONEFORM_NOW unless opts.env sets it.
 */
export async function runCli(
  emu: TestEmulator | undefined,
  argv: string[],
  opts: { env?: NodeJS.ProcessEnv; answers?: string[]; cwd?: string } = {},
): Promise<CliResult> {
  const { io, stdout, stderr } = memoryIO({
    env: { CLOUDFLARE_API_TOKEN: TOKEN, ...(emu?.now ? { [NOW_ENV]: emu.now } : {}), ...opts.env },
    answers: opts.answers,
    cwd: opts.cwd,
  });
  const args = emu && !argv.includes("--api-url") && needsApi(argv[0]) ? [...argv, "--api-url", emu.url] : argv;
  const code = await main(args, io);
  return { code, stdout: stdout(), stderr: stderr() };
}

function needsApi(command: string | undefined): boolean {
  return (
    command !== undefined &&
    !["validate", "emulator", "show", "evidence", "--help", "help", "--version"].includes(command)
  );
}
