// Shared set-up of the client's integration tests: an emulator, its admin API, and a client on it.
import { startEmulator, zoneIdFor, type RunningEmulator } from "../../src/emulator/index.js";
import { createClient, type ClientOptions } from "../../src/cloudflare/client.js";
import type { CloudflareClient } from "../../src/cloudflare/types.js";

export const ZONE = zoneIdFor("example.com");
export const ACCOUNT = "0123456789abcdef0123456789abcdef";
export const TOKEN = "emulator-token";

export interface LoggedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  status: number;
  body: unknown;
}

export async function admin<T = unknown>(emu: RunningEmulator, method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${emu.adminUrl}/${path}`, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`admin ${method} ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

export const fault = (emu: RunningEmulator, spec: Record<string, unknown>) => admin(emu, "POST", "faults", spec);
export const requests = (emu: RunningEmulator) => admin<LoggedRequest[]>(emu, "GET", "requests");
export const reset = (emu: RunningEmulator) => admin(emu, "POST", "reset");

export function policyBody(description: string): Record<string, unknown> {
  return { description, action: "log", expression: 'http.request.uri.path contains "/checkout"', enabled: true, value: "script-src 'self'" };
}

/** A client on the emulator with fast backoff, collecting its verbose log. */
export function clientOn(emu: RunningEmulator, opts: Partial<ClientOptions> = {}): { client: CloudflareClient; lines: string[] } {
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

export { startEmulator, type RunningEmulator };
