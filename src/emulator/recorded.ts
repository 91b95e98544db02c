// Recorded real answers as emulator state.
// Spec: docs/emulator.md, Admin API.
import type { RecordedContext, RecordedLoader } from "./area.js";
import { AREAS } from "./areas/index.js";
import { RecordedAnswerError } from "./recorded-items.js";
import { isObject } from "./validate.js";
import { createEmptyAccount, createEmptyZone } from "./seed.js";
import type { EmulatorState } from "./types.js";

export { RecordedAnswerError } from "./recorded-items.js";

export interface RecordedAnswer {
  id?: string;
  provenance?: string;
  source?: string;
  recorded_request?: { method?: string; url: string };
  status: number;
  body: { result?: unknown; success?: boolean; [extra: string]: unknown };
}

export interface RecordedOptions {
  /**
   * The zone to load into instead of the one the recorded URL names; required for a recording without a
   * request, which is then read as a zone's Logpush jobs list.
   */
  zoneId?: string;
}

const API_PREFIX = "/client/v4/";

const LOADERS: readonly RecordedLoader[] = AREAS.flatMap((area) => area.recorded ?? []);

export function recordedPath(recorded: RecordedAnswer, opts: RecordedOptions = {}): string {
  const url = recorded.recorded_request?.url;
  if (url === undefined) {
    if (!opts.zoneId)
      throw new RecordedAnswerError(
        "the recorded answer has no recorded_request: name the zone to load it into (zone_id)",
      );
    if (!Array.isArray(recorded.body?.result) || !recorded.body.result.every((j) => isObject(j) && "dataset" in j)) {
      throw new RecordedAnswerError("a recorded answer without a request is only understood as a Logpush jobs list");
    }
    return `zones/${opts.zoneId}/logpush/jobs`;
  }
  const pathname = new URL(url, "https://api.cloudflare.com").pathname;
  const path = (
    pathname.startsWith(API_PREFIX) ? pathname.slice(API_PREFIX.length) : pathname.replace(/^\/+/, "")
  ).replace(/\/+$/, "");
  if (!opts.zoneId) return path;
  return path.replace(/^zones\/[^/]+/, `zones/${opts.zoneId}`);
}

export function stateFromRecorded(
  state: EmulatorState,
  recorded: RecordedAnswer,
  opts: RecordedOptions = {},
): EmulatorState {
  if (!isObject(recorded) || !isObject(recorded.body))
    throw new RecordedAnswerError("a recorded answer is {status, body, recorded_request?}");
  if (recorded.status < 200 || recorded.status > 299 || recorded.body.success === false) {
    throw new RecordedAnswerError(`only successful answers can be loaded (status ${recorded.status})`);
  }
  if (opts.zoneId !== undefined && !/^[0-9a-f]{32}$/.test(opts.zoneId))
    throw new RecordedAnswerError(`zone_id ${opts.zoneId} is not 32 hex characters`);
  const path = recordedPath(recorded, opts);
  const parts = path.split("/");
  for (const loader of LOADERS) {
    const ids = match(loader.path.split("/"), parts);
    if (!ids) continue;
    const next = structuredClone(state);
    loader.load(contextOf(next), ids, structuredClone(recorded.body.result));
    return next;
  }
  throw new RecordedAnswerError(`no loader for GET ${path}; known: ${LOADERS.map((l) => l.path).join(", ")}`);
}

function match(pattern: string[], parts: string[]): string[] | undefined {
  if (pattern.length !== parts.length) return undefined;
  const ids: string[] = [];
  for (let i = 0; i < pattern.length; i++) {
    if (pattern[i]!.startsWith(":")) {
      if (!/^[0-9a-z_-]+$/i.test(parts[i]!)) return undefined;
      // Zone and account ids must be what the router accepts.
      if ((pattern[i] === ":zone" || pattern[i] === ":account") && !/^[0-9a-f]{32}$/.test(parts[i]!)) return undefined;
      ids.push(parts[i]!);
    } else if (pattern[i] !== parts[i]) return undefined;
  }
  return ids;
}

function contextOf(state: EmulatorState): RecordedContext {
  return {
    state,
    zone(id) {
      const found = state.zones.find((z) => z.id === id);
      if (found) return found;
      const zone = { ...createEmptyZone(`recorded-${id.slice(0, 8)}.example`, "enterprise"), id };
      state.zones.push(zone);
      return zone;
    },
    account(id) {
      state.accounts ??= [];
      let account = state.accounts.find((a) => a.id === id);
      if (!account) {
        account = createEmptyAccount(id);
        state.accounts.push(account);
      }
      return account;
    },
  };
}
