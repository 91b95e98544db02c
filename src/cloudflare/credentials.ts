// Where the client's base URL and credentials come from: `--api-url` or CLOUDFLARE_API_BASE_URL, and
// CLOUDFLARE_API_TOKEN or CLOUDFLARE_EMAIL + CLOUDFLARE_API_KEY. Errors name the variables to set.
import { CredentialsError, UsageError } from "../errors.js";
import type { Env } from "../model/env.js";

export const DEFAULT_API_URL = "https://api.cloudflare.com/client/v4";

export type Auth = { token: string } | { email: string; key: string };

export interface ResolvedCredentials {
  baseUrl: string;
  auth: Auth;
}

const HEADER_SAFE = /^[\x21-\x7e]+$/;

/** Reads credentials from `env`; `flags.apiUrl` wins over CLOUDFLARE_API_BASE_URL. */
export function resolveCredentials(env: Env, flags: { apiUrl?: string } = {}): ResolvedCredentials {
  const baseUrl = resolveBaseUrl(flags.apiUrl ?? nonEmpty(env.CLOUDFLARE_API_BASE_URL), flags.apiUrl !== undefined ? "--api-url" : "CLOUDFLARE_API_BASE_URL");
  const token = nonEmpty(env.CLOUDFLARE_API_TOKEN);
  const email = nonEmpty(env.CLOUDFLARE_EMAIL);
  const key = nonEmpty(env.CLOUDFLARE_API_KEY);

  if (token !== undefined) {
    if (!HEADER_SAFE.test(token)) {
      throw new CredentialsError("CLOUDFLARE_API_TOKEN contains spaces or control characters; set it to the token alone");
    }
    return { baseUrl, auth: { token } };
  }
  if (email !== undefined && key !== undefined) {
    if (!HEADER_SAFE.test(key)) throw new CredentialsError("CLOUDFLARE_API_KEY contains spaces or control characters; set it to the key alone");
    if (!email.includes("@") || !HEADER_SAFE.test(email)) throw new CredentialsError("CLOUDFLARE_EMAIL must be the e-mail address of the Cloudflare account");
    return { baseUrl, auth: { email, key } };
  }
  if (key !== undefined) throw new CredentialsError("CLOUDFLARE_API_KEY is set but CLOUDFLARE_EMAIL is not: a global API key needs both (or set CLOUDFLARE_API_TOKEN instead)");
  if (email !== undefined) throw new CredentialsError("CLOUDFLARE_EMAIL is set but CLOUDFLARE_API_KEY is not: set both, or set CLOUDFLARE_API_TOKEN instead");
  throw new CredentialsError(
    "no Cloudflare credentials: set CLOUDFLARE_API_TOKEN to an API token (recommended), or CLOUDFLARE_EMAIL and CLOUDFLARE_API_KEY to the account e-mail and global API key",
  );
}

/** Checks and normalises the API base URL (no trailing slash). */
export function resolveBaseUrl(raw: string | undefined, source = "--api-url"): string {
  if (raw === undefined) return DEFAULT_API_URL;
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new UsageError(`${source} must be an http(s) URL such as ${DEFAULT_API_URL}, got "${raw}"`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new UsageError(`${source} must be an http(s) URL such as ${DEFAULT_API_URL}, got "${raw}"`);
  }
  if (url.username || url.password) throw new UsageError(`${source} must not carry credentials; use CLOUDFLARE_API_TOKEN`);
  if (url.search || url.hash) throw new UsageError(`${source} must not have a query string or fragment, got "${raw}"`);
  return `${url.origin}${url.pathname.replace(/\/+$/, "")}`;
}

function nonEmpty(v: string | undefined): string | undefined {
  const t = v?.trim();
  return t ? t : undefined;
}
