// The emulator's internal contract: the in-memory state and the shape of a route handler. Each API
// area (page shield, rulesets, logpush, custom hostnames, WAF migration) is a module under routes/
// exporting `routes: Route[]`; server.ts matches, authenticates, rate-limits, logs and wraps results
// in the Cloudflare envelope.

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
  handler: (req: RouteRequest) => RouteResponse | Promise<RouteResponse>;
}

export interface Rule {
  id: string;
  version: string;
  action: string;
  expression: string;
  description?: string;
  enabled: boolean;
  ref: string;
  last_updated: string;
  categories?: string[];
  score_threshold?: number;
  action_parameters?: Record<string, unknown>;
  logging?: { enabled: boolean };
  [extra: string]: unknown;
}

export interface Ruleset {
  id: string;
  name: string;
  description: string;
  kind: "managed" | "custom" | "root" | "zone";
  phase: string;
  version: string;
  last_updated: string;
  source?: string;
  rules: Rule[];
}

/** A Logpush job as stored: exactly the fields its answers show (integer id). */
export type LogpushJob = Record<string, unknown> & { id: number };

export interface ZoneState {
  id: string;
  name: string;
  /** The plan's legacy name; `GET zones/{id}` answers it as a plan object (routes/zones.ts). */
  plan: ZonePlanName;
  /**
   * Fields of the zone answer beyond id, name and plan, as a recorded answer showed them (account,
   * meta, name_servers, the recorded plan object, …); they override the emulator's own. Absent on
   * zones the emulator made itself.
   */
  details?: Record<string, unknown>;
  page_shield: {
    enabled: boolean;
    updated_at: string;
    use_cloudflare_reporting_endpoint: boolean;
    use_connection_url_path: boolean;
  };
  policies: Array<Record<string, unknown> & { id: string }>;
  scripts: Array<Record<string, unknown> & { id: string }>;
  connections: Array<Record<string, unknown> & { id: string }>;
  cookies: Array<Record<string, unknown> & { id: string }>;
  rulesets: Ruleset[];
  logpush_jobs: LogpushJob[];
  custom_hostnames: Array<Record<string, unknown> & { id: string }>;
  waf_migration: {
    /** previous: old WAF only; validation: both run; new: new WAF only. */
    mode: "previous" | "validation" | "new";
    compatible: boolean;
    /** Why not, when not compatible (e.g. URI-based overrides). */
    reason?: string;
    /** Old WAF settings the migration config is derived from. */
    old_sensitivity: "high" | "medium" | "low" | "default";
    old_action: "block" | "challenge" | "simulate";
    created?: string;
  };
}

/** See `credentials.token_details`. */
export interface TokenDetails {
  status?: "active" | "disabled" | "expired";
  /** ISO times: the token is refused before `not_before` and from `expires_on` on. */
  not_before?: string;
  expires_on?: string;
  /** As `GET user/tokens/{id}` answers them; shown, not enforced. */
  policies?: Array<Record<string, unknown>>;
}

/** An account's own objects (account-level Logpush jobs so far). */
export interface AccountState {
  id: string;
  logpush_jobs: LogpushJob[];
}

export interface EmulatorState {
  /** The account the managed rulesets belong to (`accounts/{id}/rulesets`). */
  account_id: string;
  /**
   * Accounts with objects of their own, `account_id`'s included when it has any. Optional so that
   * states written before it existed still load; missing means none.
   */
  accounts?: AccountState[];
  credentials: {
    tokens: string[];
    keys: Array<{ email: string; key: string }>;
    /**
     * What `GET user/tokens/verify` and `GET user/tokens/{id}` tell of a token, by token. A token not
     * listed is active with no time limits, and its permissions are not shown (as for a real token
     * without "API Tokens: Read"). A token that is not active, or outside its time limits, is refused.
     */
    token_details?: Record<string, TokenDetails>;
  };
  rate_limit: { requests: number; seconds: number };
  /** Account-level managed rulesets (OWASP Core, Cloudflare Managed). */
  account_rulesets: Ruleset[];
  zones: ZoneState[];
  /** Next logpush job id (integers, account-wide). */
  next_job_id: number;
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
}
