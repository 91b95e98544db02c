// The Cloudflare API client: one import for the rest of zoneform. Spec: docs/library.md.
export type { CloudflareClient, RequestOptions } from "./types.js";
export { createClient, type ClientOptions } from "./client.js";
export { DEFAULT_MAX_LIST_ITEMS, DEFAULT_MAX_LIST_PAGES } from "./list-reader.js";
export {
  resolveCredentials,
  resolveBaseUrl,
  DEFAULT_API_URL,
  type Auth,
  type ResolvedCredentials,
} from "./credentials.js";
export { DEFAULT_RATE_LIMIT, type RateLimit } from "./rate-limiter.js";
export { DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_READ_BYTES, type ClientStats } from "./types.js";
export {
  checkCredentials,
  describeCheck,
  notItsAccount,
  isAccountOwnedToken,
  withCredentialCheck,
  type CredentialCheck,
  type TokenScope,
} from "./credential-check.js";
export { ALLOW_INSECURE_HTTP_ENV, checkPlainHttp, insecureHttpAllowedByEnv } from "./credentials.js";
export type { IdShape } from "./errors.js";
export { DEFAULT_MAX_WAIT_MS, type RateBudget } from "./rate-limiter.js";
export { isTimeoutError } from "./retry.js";
export { lacking, type PermissionNeed } from "./token-permissions.js";
export { routeByToken } from "./token-router.js";
export type { WireOutcome, WireRequest } from "./types.js";
export {
  createHeaderReader,
  type ConnectLookup,
  type HeaderReader,
  type HeadersAnswer,
} from "./header-reader.js";
