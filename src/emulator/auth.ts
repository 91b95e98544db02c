// Authentication as the v4 API does it.
// Spec: docs/emulator.md, Credentials.
import type { IncomingHttpHeaders } from "node:http";
import { authenticationFault, invalidTokenFault, malformedAuthFault, missingAuthFault } from "./envelope.js";
import { tokenIdFor } from "./ids.js";
import type { EmulatorState, TokenDetails } from "./types.js";

const VERIFY_PATH = "user/tokens/verify";

function isVerifyPath(path: string | undefined): boolean {
  return path === VERIFY_PATH || (path !== undefined && /^accounts\/[^/]+\/tokens\/verify$/.test(path));
}

export function authenticate(
  headers: IncomingHttpHeaders,
  credentials: EmulatorState["credentials"],
  path?: string,
  now = Date.now(),
): string {
  const authorization = header(headers, "authorization");
  if (authorization !== undefined) {
    const m = /^Bearer[ ]+([^\s]+)\s*$/i.exec(authorization);
    if (!m) throw malformedAuthFault();
    const token = m[1]!;
    const verifying = isVerifyPath(path);
    if (!credentials.tokens.includes(token)) throw verifying ? invalidTokenFault() : authenticationFault();
    if (!verifying && tokenState(credentials.token_details?.[token], now) !== "active") throw authenticationFault();
    return `token:${token}`;
  }
  const email = header(headers, "x-auth-email");
  const key = header(headers, "x-auth-key");
  if (email === undefined || key === undefined) throw missingAuthFault();
  const known = credentials.keys.some((k) => k.email.toLowerCase() === email.toLowerCase() && k.key === key);
  if (!known) throw authenticationFault();
  return `key:${email.toLowerCase()}`;
}

export function tokenState(
  details: TokenDetails | undefined,
  now = Date.now(),
): "active" | "disabled" | "expired" | "not_yet_valid" {
  if (details?.status === "disabled" || details?.status === "expired") return details.status;
  if (details?.expires_on !== undefined && Date.parse(details.expires_on) <= now) return "expired";
  if (details?.not_before !== undefined && Date.parse(details.not_before) > now) return "not_yet_valid";
  return "active";
}

/**
 * Whether the credential may reach the zone or account a path addresses: an account-owned token only its own
 * account's objects and zones (the real API refuses others 403); anything else everything.
 */
export function reaches(
  state: EmulatorState,
  credential: string,
  params: { zone_id?: string; account_id?: string },
): boolean {
  const details = credential.startsWith("token:") ? state.credentials.token_details?.[credential.slice(6)] : undefined;
  const own = details?.account_id;
  if (own === undefined) return true;
  if (params.account_id !== undefined && params.account_id !== own) return false;
  if (params.zone_id !== undefined) {
    const zone = state.zones.find((z) => z.id === params.zone_id);
    if (zone && (zone.account_id ?? state.account_id) !== own) return false;
  }
  return true;
}

/** How the request log names a credential: a token's name or id, a key's e-mail; never a secret. */
export function credentialName(state: EmulatorState, credential: string): string {
  if (!credential.startsWith("token:")) return `key ${credential.slice("key:".length)}`;
  const token = credential.slice("token:".length);
  return state.credentials.token_details?.[token]?.name ?? `token ${tokenIdFor(token)}`;
}

export function limitOf(state: EmulatorState, credential: string): { requests: number; seconds: number } {
  const details = credential.startsWith("token:") ? state.credentials.token_details?.[credential.slice(6)] : undefined;
  return details?.rate_limit ?? state.rate_limit;
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name];
  const s = Array.isArray(v) ? v[0] : v;
  return s === undefined || s.trim() === "" ? undefined : s.trim();
}

export function readOnlyCredential(state: EmulatorState, credential: string): boolean {
  return credential.startsWith("token:") && state.credentials.token_details?.[credential.slice(6)]?.read_only === true;
}
