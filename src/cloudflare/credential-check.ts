// What a 401 or 403 means. Cloudflare answers a wrong, expired or disabled token the same way as a
// token that lacks a permission, so on the first such answer of a run zoneform asks the token check
// (`GET user/tokens/verify`; for a global API key, `GET user`) and says which it is: an invalid token,
// an expired, disabled or not yet valid one, or (the check passes) a missing permission. A 403 names
// the permission the refused call needs first, then the token's state as the check answered it: the
// API's own verdict (`status`), never one read from a date on this machine's clock. One check per run,
// whatever the number of refused calls.
import { AnswerShapeError, ApiError, EXIT, NetworkError, RunStoppedError } from "../errors.js";
import { describeErrors, refusalMessage, type PermissionHint } from "./errors.js";
import type { CloudflareClient } from "./types.js";

export type AuthKind = "token" | "key";

export interface CredentialCheck {
  kind: AuthKind;
  /** `unknown`: the check itself could not tell (an account-owned token, the network, …). */
  state: "active" | "invalid" | "expired" | "disabled" | "not_yet_valid" | "unknown";
  /** The token's id, or the user's id for a global API key. */
  id?: string;
  /** The user's e-mail (global API key). */
  email?: string;
  /** The token's status word as the API answered it. */
  status?: string;
  expiresOn?: string;
  notBefore?: string;
  /**
   * The check answered `active` although its expires_on (or not_before) says otherwise by this
   * machine's clock: the API's verdict stands, and the clock is likely wrong.
   */
  clockDisagrees?: true;
  /** What the check answered when it refused, or why it could not tell. */
  detail?: string;
}

export const VERIFY_PATH = "user/tokens/verify";

/** Asks the API who the credentials are and whether they can be used now. Never throws an API error. */
export async function checkCredentials(
  client: CloudflareClient,
  kind: AuthKind,
  now: number = Date.now(),
): Promise<CredentialCheck> {
  if (kind === "key") {
    try {
      const user = await client.request<Record<string, unknown>>("GET", "user");
      return { kind, state: "active", ...stringField(user, "id", "id"), ...stringField(user, "email", "email") };
    } catch (err) {
      if (err instanceof ApiError && [400, 401, 403].includes(err.status) && err.info.envelope)
        return { kind, state: "invalid", detail: answered(err) };
      return couldNotTell(kind, err);
    }
  }
  let result: unknown;
  try {
    result = await client.request<unknown>("GET", VERIFY_PATH);
  } catch (err) {
    if (
      err instanceof ApiError &&
      err.info.envelope &&
      (err.status === 401 || err.info.errors.some((e) => e.code === 1000 || e.code === 6111))
    ) {
      return { kind, state: "invalid", detail: answered(err) };
    }
    return couldNotTell(kind, err);
  }
  return tokenVerdict(result, now);
}

/** The verdict on a token-verify answer `{id, status, expires_on?, not_before?}`. */
export function tokenVerdict(result: unknown, now: number = Date.now()): CredentialCheck {
  const r = result && typeof result === "object" ? (result as Record<string, unknown>) : {};
  const base: CredentialCheck = {
    kind: "token",
    state: "unknown",
    ...stringField(r, "id", "id"),
    ...stringField(r, "status", "status"),
    ...stringField(r, "expires_on", "expiresOn"),
    ...stringField(r, "not_before", "notBefore"),
  };
  const expired = base.expiresOn !== undefined && Date.parse(base.expiresOn) <= now;
  const early = base.notBefore !== undefined && Date.parse(base.notBefore) > now;
  // The API's status is its verdict: dates are read against this machine's clock, which may be wrong.
  if (base.status === "disabled") return { ...base, state: "disabled" };
  if (base.status === "expired") return { ...base, state: "expired" };
  if (base.status === "active")
    return { ...base, state: "active", ...(expired || early ? { clockDisagrees: true } : {}) };
  // No verdict: the dates are all there is.
  if (base.status === undefined && expired) return { ...base, state: "expired" };
  if (base.status === undefined && early) return { ...base, state: "not_yet_valid" };
  return { ...base, detail: `the token check answered an unexpected status ${JSON.stringify(r.status ?? null)}` };
}

/** One line on what the check found, for `whoami` and the messages below. */
export function describeCheck(c: CredentialCheck): string {
  const token = `the API token in CLOUDFLARE_API_TOKEN${c.id ? ` (id ${c.id})` : ""}`;
  switch (c.state) {
    case "active":
      return c.kind === "token"
        ? c.clockDisagrees
          ? `${token} is active by Cloudflare's token check (GET ${VERIFY_PATH}), although its ` +
            `${[c.expiresOn && `expires_on ${c.expiresOn}`, c.notBefore && `not_before ${c.notBefore}`]
              .filter(Boolean)
              .join(" and ")} says otherwise by this machine's clock (is the clock right?)`
          : `${token} is valid and active${c.expiresOn ? ` until ${c.expiresOn}` : ""}`
        : `CLOUDFLARE_EMAIL and CLOUDFLARE_API_KEY are the global API key of ${c.email ?? "a user"}`;
    case "invalid":
      return c.kind === "token"
        ? `CLOUDFLARE_API_TOKEN is not a valid API token: Cloudflare's token check (GET ${VERIFY_PATH}) ` +
            `answered ${c.detail}. ` +
            "It may be mistyped, deleted or rolled: set it to a current token (My Profile → API Tokens); a " +
            "global API key goes in CLOUDFLARE_API_KEY, with CLOUDFLARE_EMAIL"
        : `Cloudflare does not accept CLOUDFLARE_EMAIL with CLOUDFLARE_API_KEY (GET user answered ` +
            `${c.detail}): check both, or use an API token in CLOUDFLARE_API_TOKEN`;
    case "expired":
      return (
        `${token} has expired${c.expiresOn ? ` (expires_on ${c.expiresOn})` : ""}: roll it or create a ` +
        `new one (My Profile → API Tokens)`
      );
    case "disabled":
      return `${token} is disabled: enable it again (My Profile → API Tokens) or use another`;
    case "not_yet_valid":
      return `${token} is not valid yet: its not_before is ${c.notBefore}`;
    default:
      return `zoneform could not check the credentials (${c.detail ?? "no answer"})`;
  }
}

/**
 * The error a refused call should show. A 403 names the permission the call needs first, then the
 * token's state as the check answered it (active: the token lacks that permission; expired, disabled,
 * …: that is why). A 401 says what is wrong with the credentials, and which call was refused. When the
 * check could not tell, the API's error stands as it was.
 */
export function explainAuthFailure(err: ApiError, check: CredentialCheck, hint?: PermissionHint): ApiError {
  if (check.state === "unknown") return err;
  const { method, path } = err.info;
  if (err.status === 403) {
    const needs = hint?.(method, path);
    const who = check.kind === "token" ? "the API token" : "the account of CLOUDFLARE_EMAIL / CLOUDFLARE_API_KEY";
    const fix =
      check.kind === "token"
        ? "add it to the token (My Profile → API Tokens → Edit)"
        : "give the account a role with it";
    const state = check.state === "active" ? `${who} lacks it (${describeCheck(check)}): ${fix}` : describeCheck(check);
    return new ApiError(refusalMessage({ ...err.info, status: err.status, needs, state }), err.info);
  }
  if (check.state === "active") return err;
  return new ApiError(`${describeCheck(check)} (${method} ${path} was refused with HTTP ${err.status})`, err.info);
}

/** A 401 or 403 in the API's own envelope (not a proxy's HTML page), on anything but the check itself. */
function worthChecking(err: unknown): err is ApiError {
  return (
    err instanceof ApiError &&
    (err.status === 401 || err.status === 403) &&
    err.info.envelope === true &&
    !/^user(\/|$)/.test(err.info.path)
  );
}

/**
 * The client with every 401/403 explained (explainAuthFailure; `hint` names the permission a call
 * needs). Everything else passes through: the same errors, the same calls, any method the client gains later.
 */
export function withCredentialCheck(client: CloudflareClient, kind: AuthKind, hint?: PermissionHint): CloudflareClient {
  let check: Promise<CredentialCheck> | undefined;
  const explain = async (err: unknown): Promise<unknown> => {
    if (!worthChecking(err)) return err;
    check ??= checkCredentials(client, kind);
    const verdict = await check;
    const explained = explainAuthFailure(err, verdict, hint);
    // Credentials the API does not take fail every call alike: the run stops with one message. A
    // token that is active only lacks a permission, which may be this call's alone.
    if (explained !== err && verdict.state !== "active" && client.stop) {
      client.stop(new RunStoppedError(explained.message, EXIT.error, "cause"));
      return client.stopped?.() ?? explained;
    }
    return explained;
  };
  const guard = <T>(p: Promise<T>): Promise<T> =>
    p.catch(async (err: unknown) => {
      throw await explain(err);
    });
  async function* guardIter<T>(items: AsyncIterable<T>): AsyncIterable<T> {
    try {
      yield* items;
    } catch (err) {
      throw await explain(err);
    }
  }
  const overrides: Partial<CloudflareClient> = {
    request: (method, path, opts) => guard(client.request(method, path, opts)),
    requestEnvelope: (method, path, opts) => guard(client.requestEnvelope(method, path, opts)),
    listAll: (path, opts) => guard(client.listAll(path, opts)),
    paginate: (path, opts) => guardIter(client.paginate(path, opts)),
    paginateCursor: (path, opts) => guardIter(client.paginateCursor(path, opts)),
  };
  return new Proxy(client, {
    get: (target, prop, receiver) =>
      Object.hasOwn(overrides, prop) ? overrides[prop as keyof CloudflareClient] : Reflect.get(target, prop, receiver),
  });
}

function answered(err: ApiError): string {
  const said = describeErrors(err.info.errors);
  return `HTTP ${err.status}${said ? ` "${said}"` : ""}`;
}

/** The check failed for a reason other than the credentials: it cannot tell (the original error stands). */
function couldNotTell(kind: AuthKind, err: unknown): CredentialCheck {
  const known = err instanceof ApiError || err instanceof NetworkError || err instanceof AnswerShapeError;
  return { kind, state: "unknown", detail: known || err instanceof Error ? err.message : String(err) };
}

function stringField<K extends string>(
  o: Record<string, unknown> | null | undefined,
  from: string,
  to: K,
): Partial<Record<K, string>> {
  const v = o?.[from];
  return typeof v === "string" && v !== "" ? ({ [to]: v } as Partial<Record<K, string>>) : {};
}
