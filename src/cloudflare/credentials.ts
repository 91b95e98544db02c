// Where the base URL and credentials come from; errors name the variables to set. Credentials never go
// over plain HTTP except to this machine, unless the user opts in. Spec: docs/connecting.md, Credentials.
import { CredentialsError, UsageError } from "../errors.js";
import type { Env } from "../model/index.js";

export const DEFAULT_API_URL = "https://api.cloudflare.com/client/v4";

export type Auth = { token: string } | { email: string; key: string };

export interface ResolvedCredentials {
  baseUrl: string;
  auth: Auth;
}

const HEADER_SAFE = /^[\x21-\x7e]+$/;

export function resolveCredentials(env: Env, flags: { apiUrl?: string } = {}): ResolvedCredentials {
  const baseUrl = resolveBaseUrl(
    flags.apiUrl ?? nonEmpty(env.CLOUDFLARE_API_BASE_URL),
    flags.apiUrl !== undefined ? "--api-url" : "CLOUDFLARE_API_BASE_URL",
  );
  const token = nonEmpty(env.CLOUDFLARE_API_TOKEN);
  const email = nonEmpty(env.CLOUDFLARE_EMAIL);
  const key = nonEmpty(env.CLOUDFLARE_API_KEY);

  if (token !== undefined) {
    if (!HEADER_SAFE.test(token)) {
      throw new CredentialsError(
        "CLOUDFLARE_API_TOKEN contains spaces or control characters; set it to the token alone",
      );
    }
    return { baseUrl, auth: { token } };
  }
  if (email !== undefined && key !== undefined) {
    if (!HEADER_SAFE.test(key))
      throw new CredentialsError("CLOUDFLARE_API_KEY contains spaces or control characters; set it to the key alone");
    if (!email.includes("@") || !HEADER_SAFE.test(email))
      throw new CredentialsError("CLOUDFLARE_EMAIL must be the e-mail address of the Cloudflare account");
    return { baseUrl, auth: { email, key } };
  }
  if (key !== undefined)
    throw new CredentialsError(
      "CLOUDFLARE_API_KEY is set but CLOUDFLARE_EMAIL is not: a global API key needs both (or set " +
        "CLOUDFLARE_API_TOKEN instead)",
    );
  if (email !== undefined)
    throw new CredentialsError(
      "CLOUDFLARE_EMAIL is set but CLOUDFLARE_API_KEY is not: set both, or set CLOUDFLARE_API_TOKEN instead",
    );
  throw new CredentialsError(
    "no Cloudflare credentials: set CLOUDFLARE_API_TOKEN to an API token (recommended), or CLOUDFLARE_EMAIL " +
      "and CLOUDFLARE_API_KEY to the account e-mail and global API key",
  );
}

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
  if (url.username || url.password)
    throw new UsageError(`${source} must not carry credentials; use CLOUDFLARE_API_TOKEN`);
  if (url.search || url.hash) throw new UsageError(`${source} must not have a query string or fragment, got "${raw}"`);
  return `${url.origin}${url.pathname.replace(/\/+$/, "")}`;
}

export const ALLOW_INSECURE_HTTP_ENV = "ZONEFORM_ALLOW_INSECURE_HTTP";

export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.toLowerCase();
  if (h === "localhost" || h === "[::1]") return true;
  if (/^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h)) return true;
  return /^\[::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}\]$/.test(h);
}

function isInsecureBaseUrl(url: URL): boolean {
  return url.protocol === "http:" && !isLoopbackHost(url.hostname);
}

export function insecureHttpAllowedByEnv(env: Env): boolean {
  const raw = env[ALLOW_INSECURE_HTTP_ENV]?.trim().toLowerCase();
  if (raw === undefined || raw === "" || raw === "0" || raw === "false") return false;
  if (raw === "1" || raw === "true") return true;
  throw new UsageError(
    `${ALLOW_INSECURE_HTTP_ENV} must be 1 (or true) to allow plain HTTP, or 0 (or unset); got ` +
      `"${env[ALLOW_INSECURE_HTTP_ENV]}"`,
  );
}

export function checkPlainHttp(
  baseUrl: string,
  opts: { allowed: boolean; source: string; optIn: string },
): string | undefined {
  const url = new URL(baseUrl);
  if (!isInsecureBaseUrl(url)) return undefined;
  const shown = `${url.origin}${url.pathname}`;
  if (!opts.allowed) {
    throw new UsageError(
      `${opts.source} ${shown} is plain HTTP to a host that is not loopback: the credentials would be sent ` +
        `unencrypted; ` +
        `use https://, or pass ${opts.optIn} to send them anyway`,
    );
  }
  return (
    `warning: ${opts.source} ${shown} is plain HTTP to a host that is not loopback: the credentials ` +
    `are sent unencrypted`
  );
}

function nonEmpty(v: string | undefined): string | undefined {
  const t = v?.trim();
  return t ? t : undefined;
}
