// The emulator's internal contract: the in-memory state and the route handler shape.

export type { Rule, Ruleset } from "./areas/rulesets/state.js";
export type { LogpushJob } from "./areas/logpush_jobs/state.js";

/**
 * Each area's parts of the state, by the area's folder name: its part of a zone (`zone`), of an account's own
 * objects (`account`) and of the whole state (`state`).
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled by each area's state.ts (declaration merging)
export interface AreaStates {}

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
  path: string;
  params: Record<string, string>;
  query: URLSearchParams;
  body: unknown;
  state: EmulatorState;
  /** The zone named by `:zone_id`, already checked to exist (404 otherwise). */
  zone?: ZoneState;
  now: () => string;
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
   * Only when the query says so (e.g. the WAF migration switch is the entry point PUT with `waf_migration`);
   * such a route wins over the same pattern without a condition.
   */
  when?: (query: URLSearchParams) => boolean;
  handler: (req: RouteRequest) => RouteResponse | Promise<RouteResponse>;
}

type ZoneParts = PartsOf<"zone">;
type AccountParts = PartsOf<"account">;
type StateParts = PartsOf<"state">;

export interface ZoneState extends ZoneParts {
  id: string;
  name: string;
  /** The plan's legacy name; `GET zones/{id}` answers it as a plan object (areas/zones/routes.ts). */
  plan: ZonePlanName;
  /** The account the zone belongs to; absent: the state's `account_id`. */
  account_id?: string;
  /**
   * Fields of the zone answer beyond id, name and plan, as a recorded answer showed them (account, meta,
   * name_servers, the recorded plan object, …); they override the emulator's own.
   */
  details?: Record<string, unknown>;
}

export interface TokenDetails {
  status?: "active" | "disabled" | "expired";
  /** ISO times: the token is refused before `not_before` and from `expires_on` on. */
  not_before?: string;
  expires_on?: string;
  /** As `GET user/tokens/{id}` answers them; shown, not enforced. */
  policies?: Array<Record<string, unknown>>;
  /** How the request log names the token (never its value); absent: its id (md5 of the token). */
  name?: string;
  /**
   * The account the token is for (an account-owned token): it reaches that account's objects and zones only,
   * any other account's or zone's answered 403 / 9109.
   */
  account_id?: string;
  /** A token that may only read: any other method is answered 403 / 10000, as a token without Edit is. */
  read_only?: boolean;
  /** Its own rate limit (a token has its own budget); absent: the state's `rate_limit`. */
  rate_limit?: { requests: number; seconds: number };
}

export interface AccountState extends AccountParts {
  id: string;
}

export interface EmulatorState extends StateParts {
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

export interface RequestLogEntry {
  method: string;
  path: string;
  query: Record<string, string>;
  /** 0 when the connection was destroyed by a `reset` fault. */
  status: number;
  body: unknown;
  /**
   * Who sent it, once authenticated: a token's name (`token_details[…].name`, else `token <its id>`), or `key
   * <e-mail>`; never a token's value.
   */
  credential?: string;
}
