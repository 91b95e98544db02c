// Test helpers around the emulator: start one on a random port, call its API over real HTTP with the
// default token, drive its admin API and read its request log.
import { afterAll, beforeAll, beforeEach } from "vitest";
import { DEFAULT_TOKEN, startEmulator, zoneIdFor, type EmulatorOptions, type RequestLogEntry, type RunningEmulator } from "../../src/emulator/index.js";

export { DEFAULT_TOKEN };

/** Zone ids of the default seed (md5 of the name). */
export const ZONES = {
  com: zoneIdFor("example.com"),
  net: zoneIdFor("example.net"),
  org: zoneIdFor("example.org"),
  dev: zoneIdFor("example.dev"),
} as const;

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

export interface TestEmulator extends RunningEmulator {
  /** Calls `<url>/<path>` (path after /client/v4/, query included) with the default token. */
  api<T = any>(method: string, path: string, body?: unknown, opts?: CallOptions): Promise<ApiAnswer<T>>;
  /** Calls the admin API, e.g. `admin("POST", "faults", {...})`. */
  admin<T = any>(method: string, path: string, body?: unknown): Promise<ApiAnswer<T>>;
  /** The request log, oldest first. */
  requests(): Promise<RequestLogEntry[]>;
  /** Restores the seed and clears faults, latency, log and rate counters. */
  reset(): Promise<void>;
}

export async function startTestEmulator(opts: EmulatorOptions = {}): Promise<TestEmulator> {
  const emu = await startEmulator(opts);
  const api = async (method: string, path: string, body?: unknown, call: CallOptions = {}) => {
    const headers: Record<string, string> = call.headers ?? { authorization: `Bearer ${DEFAULT_TOKEN}` };
    let payload: string | undefined = call.rawBody;
    if (payload === undefined && body !== undefined) {
      payload = JSON.stringify(body);
      headers["content-type"] ??= "application/json";
    }
    return toAnswer(await fetch(`${emu.url}/${path.replace(/^\//, "")}`, { method, headers, body: payload }));
  };
  const admin = async (method: string, path: string, body?: unknown) =>
    toAnswer(
      await fetch(`${emu.adminUrl}/${path.replace(/^\//, "")}`, {
        method,
        headers: body === undefined ? {} : { "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    );
  return {
    ...emu,
    api,
    admin,
    requests: async () => (await admin("GET", "requests")).body as RequestLogEntry[],
    reset: async () => {
      const r = await admin("POST", "reset");
      if (r.status !== 200) throw new Error(`reset failed: ${r.status}`);
    },
  };
}

/** One emulator for a test file, reset before each test. */
export function useEmulator(opts: EmulatorOptions = {}): () => TestEmulator {
  let emu: TestEmulator | undefined;
  beforeAll(async () => {
    emu = await startTestEmulator(opts);
  });
  afterAll(async () => {
    await emu?.close();
  });
  beforeEach(async () => {
    await emu!.reset();
  });
  return () => emu!;
}

async function toAnswer(res: Response): Promise<ApiAnswer> {
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text === "" ? null : JSON.parse(text) };
}
