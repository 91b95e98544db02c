// The flags that shape how zoneform talks to the API (--api-url, --allow-insecure-http, --parallelism, --rate-limit,
// --timeout), shared by every command that calls it, and the one place a command turns them and the environment into
// a client.
// Spec: docs/connecting.md.
import type { Command } from "commander";
import {
  createClient,
  DEFAULT_MAX_LIST_ITEMS,
  DEFAULT_MAX_LIST_PAGES,
  isAccountOwnedToken,
  withCredentialCheck,
  type TokenScope,
  ALLOW_INSECURE_HTTP_ENV,
  checkPlainHttp,
  insecureHttpAllowedByEnv,
  resolveBaseUrl,
  resolveCredentials,
  type Auth,
  type ResolvedCredentials,
  routeByToken,
  DEFAULT_RATE_LIMIT,
  type RateLimit,
  type CloudflareClient,
} from "../cloudflare/index.js";
import { accountTokens, defaultAccounts, needsDefaultToken, type AccountToken } from "./account-tokens.js";
import { CredentialsError } from "../errors.js";
import type { Redactor } from "../redact.js";
import { printable } from "../safe-text.js";
import type { CliIO } from "./io.js";
import type { Progress } from "./progress.js";
import { CLIENT_HINTS, type DesiredState } from "../sections/index.js";
import { addColorOption, addQuietOption, addVerboseOption } from "./options.js";
import { addZoneRefOption } from "./zone-ref.js";
import { boundsFromOptions, type BoundFlagValues } from "./bounds.js";
import {
  addClientOptions,
  checkRateLimit,
  DEFAULT_PARALLELISM,
  DEFAULT_RETRIES,
  DEFAULT_TIMEOUT_MS,
  listCap,
  parseParallelism,
  parseRateLimit,
  parseRetries,
  parseTimeout,
} from "./client-flags.js";
import { serviceKeyNotice } from "./service-key.js";

export interface ClientFlagValues extends BoundFlagValues {
  apiUrl?: string;
  allowInsecureHttp?: boolean;
  parallelism?: number | string;
  rateLimit?: RateLimit | string;
  timeout?: number | string;
  retries?: number | string;
  maxListItems?: number | string;
  maxListPages?: number | string;
  verbose?: boolean;
}

/**
 * The options of a command that reads zones through the API: --zone ID|NAME (one with `single`), --verbose, with
 * `progress` --quiet and --no-color, and the client's (--api-url, --parallelism, …).
 */
export function addReadCommandOptions(
  cmd: Command,
  opts: { single?: boolean; progress?: boolean; verbose?: string } = {},
): Command {
  addZoneRefOption(cmd, opts.single ? { single: true } : {});
  if (opts.verbose) cmd.option("--verbose", opts.verbose);
  else addVerboseOption(cmd);
  if (opts.progress) addColorOption(addQuietOption(cmd));
  return addClientOptions(cmd);
}

/** The API base URL the flags and environment name (`withoutToken`: whatever the credentials). */
export function apiUrlFrom(opts: ClientFlagValues, io: CliIO, withoutToken = false): string {
  if (withoutToken)
    return resolveBaseUrl(
      opts.apiUrl ?? (io.env.CLOUDFLARE_API_BASE_URL?.trim() || undefined),
      opts.apiUrl !== undefined ? "--api-url" : "CLOUDFLARE_API_BASE_URL",
    );
  return resolveCredentials(io.env, { apiUrl: opts.apiUrl }).baseUrl;
}

/** Builds the run's client from the flags and `io.env`. */
export function clientFromOptions(
  opts: ClientFlagValues,
  io: CliIO,
  redactor?: Pick<Redactor, "redact">,
  progress?: Progress,
  desired?: DesiredState,
): CloudflareClient {
  const { fallback, tokens } = clientsFromOptions(opts, io, redactor, progress, desired);
  if (tokens.length === 0) {
    progress?.watch(fallback);
    return fallback;
  }
  // One client per distinct token, each with its own rate limiter and budget.
  const zones = new Map<string, CloudflareClient>();
  const accounts = new Map<string, CloudflareClient>();
  for (const { token, client } of tokens) {
    for (const id of token.zones) zones.set(id, client);
    for (const id of token.accounts) accounts.set(id, client);
  }
  const routed = routeByToken({ fallback, zones, accounts });
  progress?.watch(routed);
  return routed;
}

/**
 * The run's clients: the default credentials' (a client that refuses every call when they are unset and unneeded),
 * and one per token of `accounts:`.
 */
export interface RunClients {
  fallback: CloudflareClient;
  missing?: CredentialsError;
  tokens: Array<{ token: AccountToken; client: CloudflareClient }>;
}

/**
 * The clients a configuration's calls need (`clientFromOptions` routes between them; `whoami` checks each): the
 * default credentials' (CLOUDFLARE_API_TOKEN, or the global key) and one per distinct token of `accounts:`.
 */
export function clientsFromOptions(
  opts: ClientFlagValues,
  io: CliIO,
  redactor?: Pick<Redactor, "redact">,
  progress?: Progress,
  desired?: DesiredState,
): RunClients {
  const serviceKey = serviceKeyNotice(io.env);
  if (serviceKey && progress) progress.log(serviceKey);
  else if (serviceKey) io.stderr.write(`${serviceKey}\n`);
  const tokens = desired ? accountTokens(desired, io.env) : [];
  let resolved: ResolvedCredentials | CredentialsError;
  try {
    resolved = resolveCredentials(io.env, { apiUrl: opts.apiUrl });
  } catch (err) {
    if (!(err instanceof CredentialsError) || tokens.length === 0 || needsDefaultToken(desired!)) throw err;
    resolved = err;
  }
  const baseUrl = resolved instanceof CredentialsError ? apiUrlFrom(opts, io, true) : resolved.baseUrl;
  // Before any request: credentials go over plain HTTP only to loopback, unless the user opts in.
  const warning = checkPlainHttp(baseUrl, {
    allowed: opts.allowInsecureHttp === true || insecureHttpAllowedByEnv(io.env),
    source: opts.apiUrl !== undefined ? "--api-url" : "CLOUDFLARE_API_BASE_URL",
    optIn: `--allow-insecure-http (or set ${ALLOW_INSECURE_HTTP_ENV}=1)`,
  });
  if (warning && progress) progress.log(printable(warning));
  else if (warning) io.stderr.write(`${printable(warning)}\n`);
  const fallback =
    resolved instanceof CredentialsError
      ? withoutCredentials(resolved)
      : oneClient(
          opts,
          io,
          baseUrl,
          resolved.auth,
          redactor,
          progress,
          desired && { accounts: defaultAccounts(desired), ...estateScope(desired) },
        );
  return {
    fallback,
    ...(resolved instanceof CredentialsError ? { missing: resolved } : {}),
    tokens: tokens.map((token) => {
      if (!HEADER_SAFE.test(token.value))
        throw new CredentialsError(
          `${printable(token.env)} (the api_token of account ${token.accounts.join(", ")}) contains spaces or ` +
            "control characters; set it to the token alone",
        );
      const client = oneClient(opts, io, baseUrl, { token: token.value }, redactor, progress, {
        accounts: token.accounts,
        variable: token.env,
        ...estateScope(desired!),
      });
      return { token, client };
    }),
  };
}

/**
 * What every token's check knows of the estate: each account the configuration names (its entries of `accounts:`,
 * its zones' accounts), each zone's account, and the variable each account's entry names.
 */
export function estateScope(
  desired: DesiredState,
): Pick<TokenScope, "otherAccounts" | "zoneAccounts" | "accountVariables"> {
  const zoneAccounts = Object.fromEntries(
    desired.zones.flatMap((z) => {
      const account = z.account_id ?? desired.account_id;
      return account === undefined ? [] : [[z.zone_id, account]];
    }),
  );
  const accountVariables = Object.fromEntries(
    (desired.accounts ?? []).flatMap((a) => (a.api_token ? [[a.account_id, a.api_token.env]] : [])),
  );
  const ids = [...(desired.accounts ?? []).map((a) => a.account_id), ...Object.values(zoneAccounts)];
  return { otherAccounts: [...new Set(ids)], zoneAccounts, accountVariables };
}

const HEADER_SAFE = /^[\x21-\x7e]+$/;

function withoutCredentials(err: CredentialsError): CloudflareClient {
  const refuse = (): never => {
    throw err;
  };
  return {
    request: async () => refuse(),
    requestEnvelope: async () => refuse(),
    paginate: () => refuse(),
    paginateCursor: () => refuse(),
    listAll: async () => refuse(),
    stats: () => ({ requests: 0, retries: 0, throttled: 0 }),
    close: async () => undefined,
  };
}

function oneClient(
  opts: ClientFlagValues,
  io: CliIO,
  baseUrl: string,
  auth: Auth,
  redactor?: Pick<Redactor, "redact">,
  progress?: Progress,
  scope: Omit<TokenScope, "accountOwned"> = {},
): CloudflareClient {
  const tokenName = scope.variable;
  const named = (line: string) => (tokenName ? `[${tokenName}] ${line}` : line);
  const client = createClient({
    baseUrl,
    // What set the URL, which a failure every call shares names (a name that does not resolve).
    baseUrlFrom:
      opts.apiUrl !== undefined
        ? "--api-url"
        : io.env.CLOUDFLARE_API_BASE_URL?.trim()
          ? "CLOUDFLARE_API_BASE_URL"
          : "default",
    auth,
    parallelism: opts.parallelism === undefined ? DEFAULT_PARALLELISM : parseParallelism(String(opts.parallelism)),
    rateLimit:
      opts.rateLimit === undefined
        ? DEFAULT_RATE_LIMIT
        : typeof opts.rateLimit === "string"
          ? parseRateLimit(opts.rateLimit)
          : checkRateLimit(opts.rateLimit),
    timeoutMs: opts.timeout === undefined ? DEFAULT_TIMEOUT_MS : parseTimeout(String(opts.timeout)),
    retries: opts.retries === undefined ? DEFAULT_RETRIES : parseRetries(String(opts.retries)),
    log: opts.verbose
      ? (line) => (progress ? progress.log(printable(named(line))) : io.stderr.write(`${printable(named(line))}\n`))
      : undefined,
    // An item a list answered twice, an empty page asked again: always shown (the client redacts them).
    onWarning: (line) => (progress ? progress.log(printable(line)) : io.stderr.write(`${printable(line)}\n`)),
    maxListItems: listCap(
      opts.maxListItems,
      io.env.ZONEFORM_MAX_LIST_ITEMS,
      "--max-list-items",
      "ZONEFORM_MAX_LIST_ITEMS",
      DEFAULT_MAX_LIST_ITEMS,
    ),
    maxListPages: listCap(
      opts.maxListPages,
      io.env.ZONEFORM_MAX_LIST_PAGES,
      "--max-list-pages",
      "ZONEFORM_MAX_LIST_PAGES",
      DEFAULT_MAX_LIST_PAGES,
    ),
    onWait: progress && ((ms, reason) => progress.onWait(ms, named(reason))),
    onRetryWait: progress && ((ms, reason) => progress.onWait(ms, reason, "retry")),
    // --max-wait, --deadline (from the start of the process), --max-body-size.
    ...boundsFromOptions(opts, io.env, performance.now()),
    redactor,
    ...CLIENT_HINTS,
  });
  // A 401/403 says whether the token is invalid, expired or disabled, or lacks a permission (which one): checked by
  // the accounts it serves too, where an account-owned token is known.
  return withCredentialCheck(
    client,
    "token" in auth ? "token" : "key",
    CLIENT_HINTS.permissionHint,
    tokenScope(auth, scope),
  );
}

/** Where a token is checked (credential-check.ts): `scope`, and whether the token says it is an account's own. */
export function tokenScope(auth: Auth, scope: Omit<TokenScope, "accountOwned"> = {}): TokenScope {
  return "token" in auth ? { ...scope, accountOwned: isAccountOwnedToken(auth.token) } : {};
}
