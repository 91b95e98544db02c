// The emulator's internal contract: the in-memory state and the route handler shape.

export type { Rule, Ruleset } from "./areas/rulesets/state.js";
export type { LogpushJob } from "./areas/logpush_jobs/state.js";

/** Each area's parts of the state, by the area's folder name. */
// biome-ignore lint/suspicious/noEmptyInterface: filled by each area's state.ts (declaration merging)
export interface AreaStates {}

/** The parts of the state of kind `K` every area declares, as one intersection. */
type PartsOf<K extends string> = UnionToIntersection<
  { [A in keyof AreaStates]: AreaStates[A] extends Record<K, infer P> ? P : never }[keyof AreaStates]
>;
type UnionToIntersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never;

export type ZonePlanName = "free" | "pro" | "business" | "enterprise";

export interface ApiErrorBody {
  code?: number;
  message: string;
  documentation_url?: string;
  source?: { pointer: string };
  error_chain?: Array<{ code: number; message: string }>;
}

/** Thrown by a handler to answer with an error envelope. */
export class ApiFault extends Error {
  constructor(
    readonly status: number,
    readonly errors: ApiErrorBody[],
  ) {
    super(errors.map((e) => e.message).join("; "));
  }
}

export interface RouteRequest {
  method: string;
  /** Path after `/client/v4/`, e.g. `zones/<id>/page_shield`. */
  path: string;
  params: Record<string, string>;
  query: URLSearchParams;
  /** Parsed JSON body (undefined when there is none). */
  body: unknown;
  state: EmulatorState;
  /** The zone named by `:zone_id`, already checked to exist (404 otherwise). */
  zone?: ZoneState;
  now: () => string;
  /** Who is calling: `token:<token>` or `key:<email>` (auth.ts). */
  credential?: string;
}

export interface RouteResponse {
  status?: number;
  result?: unknown;
  result_info?: Record<string, unknown>;
  /** 204 with no body. */
  empty?: boolean;
}

export interface Route {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  /** e.g. `zones/:zone_id/page_shield/policies/:policy_id` */
  pattern: string;
  /**
   * Only when the query says so (e.g. the WAF migration switch is the entry point PUT with `waf_migration`).
   */
  when?: (query: URLSearchParams) => boolean;
  handler: (req: RouteRequest) => RouteResponse | Promise<RouteResponse>;
}

type ZoneParts = PartsOf<"zone">;
type AccountParts = PartsOf<"account">;
type StateParts = PartsOf<"state">;

/** One zone: its own fields, then each area's part (areas/<name>/state.ts). */
export interface ZoneState extends ZoneParts {
  id: string;
  name: string;
  /** The plan's legacy name; `GET zones/{id}` answers it as a plan object (areas/zones/routes.ts). */
  plan: ZonePlanName;
  /** The account the zone belongs to; absent: the state's `account_id`. */
  account_id?: string;
  /**
   * Fields of the zone answer beyond id, name and plan, as a recorded answer showed them (account, meta,
   * name_servers, the recorded plan object, …).
   */
  details?: Record<string, unknown>;
}

/** See `credentials.token_details`. */
export interface TokenDetails {
  status?: "active" | "disabled" | "expired";
  /** ISO times: the token is refused before `not_before` and from `expires_on` on. */
  not_before?: string;
  expires_on?: string;
  /** As `GET user/tokens/{id}` answers them; shown, not enforced. */
  policies?: Array<Record<string, unknown>>;
  /** How the request log names the token (never its value). */
  name?: string;
  /** The account the token is for (an account-owned token). */
  account_id?: string;
  /** A token that may only read. */
  read_only?: boolean;
  /** Its own rate limit (a token has its own budget). */
  rate_limit?: { requests: number; seconds: number };
}

/** An account's own objects (account-level Logpush jobs, notification policies). */
export interface AccountState extends AccountParts {
  id: string;
}

/** The whole state: its own fields and each area's top-level part (`account_rulesets`, `next_job_id`). */
export interface EmulatorState extends StateParts {
  /** The account the managed rulesets belong to (`accounts/{id}/rulesets`). */
  account_id: string;
  /** Accounts with objects of their own, `account_id`'s included when it has any. */
  accounts?: AccountState[];
  credentials: {
    tokens: string[];
    keys: Array<{ email: string; key: string }>;
    /** What `GET user/tokens/verify` and `GET user/tokens/{id}` tell of a token, by token. */
    token_details?: Record<string, TokenDetails>;
  };
  rate_limit: { requests: number; seconds: number };
  zones: ZoneState[];
}

/** One request the emulator answered, as its request log keeps it. */
export interface RequestLogEntry {
  method: string;
  /** Full path, e.g. `/client/v4/zones/<id>/page_shield`. */
  path: string;
  query: Record<string, string>;
  /** 0 when the connection was destroyed by a `reset` fault. */
  status: number;
  /** Parsed JSON request body, or null. */
  body: unknown;
  /**
   * Who sent it, once authenticated: a token's name (`token_details[…].name`, else `token <its id>`), or `key
   * <e-mail>`.
   */
  credential?: string;
}
