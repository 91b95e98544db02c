// Answers recorded against the real Cloudflare API (or written by Cloudflare for its SDK tests), kept
// copied into test/fixtures/recorded/ with their provenance (see its README.md). Unit tests read them from
// disk so that the client is tested against what the API really answers, not against our reading of it.
import { readFileSync } from "node:fs";

export interface Recorded {
  id: string;
  provenance: string;
  source: string;
  status: number;
  body: { result: unknown; [key: string]: unknown };
}

/** The recording `name` (without `.json`), e.g. `cft_custom_hostnames_v5`. */
export function recorded(name: string): Recorded {
  const url = new URL(`../fixtures/recorded/${name}.json`, import.meta.url);
  return JSON.parse(readFileSync(url, "utf8")) as Recorded;
}

/** The envelope's `result`: what the client hands a resource kind. */
export function recordedResult<T = unknown>(name: string): T {
  return structuredClone(recorded(name).body.result) as T;
}
