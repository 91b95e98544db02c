// End-to-end helpers: an emulator per test file, a config written to a temp dir, the CLI run
// in-process against the emulator over real HTTP, and the emulator's request log.
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createHash } from "node:crypto";
import { afterAll, beforeAll, beforeEach } from "vitest";
import { startEmulator, type EmulatorOptions, type RunningEmulator } from "../../src/emulator/index.js";
import { memoryIO } from "../../src/cli/io.js";
import { main } from "../../src/cli/program.js";

export const TOKEN = "emulator-token";
export const ACCOUNT = "0123456789abcdef0123456789abcdef";
export const zoneId = (name: string) => createHash("md5").update(name).digest("hex");
export const ZONE = { com: zoneId("example.com"), net: zoneId("example.net"), org: zoneId("example.org"), dev: zoneId("example.dev") };

export interface LoggedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  status: number;
  body: unknown;
}

export class TestEmulator {
  private running?: RunningEmulator;

  private constructor(running?: RunningEmulator) {
    this.running = running;
  }

  private get emu(): RunningEmulator {
    if (!this.running) throw new Error("the test emulator is not started: use TestEmulator.perFile() at the top of the test file");
    return this.running;
  }

  static async start(opts: EmulatorOptions = {}): Promise<TestEmulator> {
    return new TestEmulator(await startEmulator({ port: 0, ...opts }));
  }

  /** One emulator for the whole test file, reset to the seed (request log cleared) before each test. */
  static perFile(opts: EmulatorOptions = {}): TestEmulator {
    const t = new TestEmulator();
    beforeAll(async () => {
      t.running = await startEmulator({ port: 0, ...opts });
    });
    afterAll(async () => t.running?.close());
    beforeEach(async () => {
      await t.reset();
    });
    return t;
  }

  get url(): string {
    return this.emu.url;
  }

  async admin<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await fetch(`${this.emu.adminUrl}${path}`, {
      method,
      headers: body === undefined ? {} : { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`admin ${method} ${path}: ${res.status} ${text}`);
    return (text ? JSON.parse(text) : undefined) as T;
  }

  reset = () => this.admin("POST", "/reset");
  clearRequests = () => this.admin("DELETE", "/requests");
  requests = () => this.admin<LoggedRequest[]>("GET", "/requests");
  /** The calls made, as `METHOD path` relative to /client/v4/, optionally only the writes. */
  async calls(opts: { writesOnly?: boolean } = {}): Promise<string[]> {
    const all = await this.requests();
    return all
      .filter((r) => !opts.writesOnly || r.method !== "GET")
      .map((r) => `${r.method} ${r.path.replace(/^\/client\/v4\//, "")}`);
  }
  /** Calls the API itself (for seeding foreign state), returning the envelope's result. */
  async api<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await fetch(`${this.emu.url}/${path}`, {
      method,
      headers: { authorization: `Bearer ${TOKEN}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    const env = text ? JSON.parse(text) : { result: null, success: res.ok };
    if (!env.success) throw new Error(`${method} ${path}: ${res.status} ${text}`);
    return env.result as T;
  }
  close = () => this.emu.close();
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

/** Runs `zoneform <argv>` in-process against the emulator (adds --api-url unless given). */
export async function runCli(
  emu: TestEmulator | undefined,
  argv: string[],
  opts: { env?: NodeJS.ProcessEnv; answers?: string[]; cwd?: string } = {},
): Promise<CliResult> {
  const { io, stdout, stderr } = memoryIO({
    env: { CLOUDFLARE_API_TOKEN: TOKEN, ...opts.env },
    answers: opts.answers,
    cwd: opts.cwd,
  });
  const args = emu && !argv.includes("--api-url") && needsApi(argv[0]) ? [...argv, "--api-url", emu.url] : argv;
  const code = await main(args, io);
  return { code, stdout: stdout(), stderr: stderr() };
}

function needsApi(command: string | undefined): boolean {
  return command !== undefined && !["validate", "emulator", "--help", "help", "--version"].includes(command);
}
