// What a 401 or 403 means. Cloudflare answers a bad token like one lacking a permission, so the first such
// answer of a run asks the token check (once per run) and trusts its `status`, never this machine's clock.
// Account-owned tokens (`cfat_`) are checked by their account first. Spec: docs/connecting.md, API errors.
import { AnswerShapeError, ApiError, EXIT, NetworkError, RunStoppedError } from "../errors.js";
import { describeErrors, refusalMessage, type PermissionHint } from "./errors.js";
import type { CloudflareClient } from "./types.js";

export type AuthKind = "token" | "key";

export interface CredentialCheck {
  kind: AuthKind;
  state: "active" | "invalid" | "expired" | "disabled" | "not_yet_valid" | "other_account" | "unknown";
  variable?: string;
  servesAccounts?: readonly string[];
  id?: string;
  email?: string;
  status?: string;
  expiresOn?: string;
  notBefore?: string;
  clockDisagrees?: true;
  detail?: string;
  checkedAt?: string;
  checked?: string[];
  account?: string;
}

export interface TokenScope {
  accounts?: readonly string[];
  accountOwned?: boolean;
  variable?: string;
  otherAccounts?: readonly string[];
  zoneAccounts?: Readonly<Record<string, string>>;
  accountVariables?: Readonly<Record<string, string>>;
}

const VERIFY_PATH = "user/tokens/verify";

function accountVerifyPath(accountId: string): string {
  return `accounts/${encodeURIComponent(accountId)}/tokens/verify`;
}

export function isAccountOwnedToken(value: string): boolean {
  return value.startsWith("cfat_");
}

export async function checkCredentials(
  client: CloudflareClient,
  kind: AuthKind,
  now: number = Date.now(),
  scope: TokenScope = {},
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
  const named = {
    ...(scope.variable !== undefined ? { variable: scope.variable } : {}),
    ...(scope.accounts?.length ? { servesAccounts: [...new Set(scope.accounts)] } : {}),
  };
  return { ...(await checkToken(client, now, scope)), ...named };
}

async function checkToken(client: CloudflareClient, now: number, scope: TokenScope): Promise<CredentialCheck> {
  const kind = "token";
  const accounts = [...new Set(scope.accounts ?? [])];
  const checks: Array<{ path: string; account?: string }> = [
    ...(scope.accountOwned && accounts.length > 0 ? [] : [{ path: VERIFY_PATH }]),
    ...accounts.map((account) => ({ path: accountVerifyPath(account), account })),
  ];
  const checked: string[] = [];
  const refusals: CredentialCheck[] = [];
  for (const { path, account } of checks) {
    checked.push(path);
    const { check, refused } = await verifyAt(client, path, account !== undefined, now);
    if (!refused) return { ...check, checkedAt: path, checked, ...(account !== undefined ? { account } : {}) };
    refusals.push(check);
  }
  // Every check refused it: it may be another account's own token, given in this one's place.
  const owner = accounts.length > 0 ? await ownerAmong(client, scope.otherAccounts ?? [], accounts, now) : undefined;
  if (owner) return { ...owner, checked: [...checked, ...(owner.checked ?? [])] };
  // One check: its verdict. Several: invalid if one said so; each answer told.
  if (refusals.length === 1) return { ...refusals[0]!, checkedAt: checked[0]!, checked };
  return {
    kind,
    state: refusals.some((r) => r.state === "invalid") ? "invalid" : "unknown",
    detail: refusals.map((r, i) => `${r.detail} (GET ${checked[i]})`).join(", "),
    checked,
  };
}

async function ownerAmong(
  client: CloudflareClient,
  others: readonly string[],
  mine: readonly string[],
  now: number,
): Promise<CredentialCheck | undefined> {
  const checked: string[] = [];
  for (const account of others.filter((a) => !mine.includes(a))) {
    const path = accountVerifyPath(account);
    checked.push(path);
    const { check, refused } = await verifyAt(client, path, true, now);
    if (!refused && check.state === "active")
      return { ...check, state: "other_account", account, checkedAt: path, checked };
  }
  return undefined;
}

async function verifyAt(
  client: CloudflareClient,
  path: string,
  accounts: boolean,
  now: number,
): Promise<{ check: CredentialCheck; refused: boolean }> {
  let result: unknown;
  try {
    result = await client.request<unknown>("GET", path);
  } catch (err) {
    const api = err instanceof ApiError && err.info.envelope === true ? err : undefined;
    const refused = api !== undefined && (api.status === 401 || api.status === 403);
    const invalid = accounts
      ? refused
      : api !== undefined && (api.status === 401 || api.info.errors.some((e) => e.code === 1000 || e.code === 6111));
    return {
      check: invalid ? { kind: "token", state: "invalid", detail: answered(api!) } : couldNotTell("token", err),
      refused,
    };
  }
  return { check: tokenVerdict(result, now), refused: false };
}

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

export function describeCheck(c: CredentialCheck): string {
  const variable = c.variable ?? "CLOUDFLARE_API_TOKEN";
  const served = c.servesAccounts?.length ? ` (for account ${c.servesAccounts.join(", ")})` : "";
  // "for account A" unless the verdict already says whose the token is.
  const forAccounts = c.account === undefined || !c.servesAccounts?.includes(c.account);
  const about = [
    forAccounts && c.servesAccounts?.length && `for account ${c.servesAccounts.join(", ")}`,
    c.id && `id ${c.id}`,
  ];
  const token = `the API token in ${variable}${about.some(Boolean) ? ` (${about.filter(Boolean).join(", ")})` : ""}`;
  const check = `Cloudflare's token check (GET ${c.checkedAt ?? VERIFY_PATH})`;
  const own = c.account !== undefined ? `, a token of account ${c.account}` : "";
  const byAccount = c.checked?.some((p) => p !== VERIFY_PATH)
    ? ", or an account's own (Manage Account → Account API Tokens)"
    : "";
  switch (c.state) {
    case "active":
      return c.kind === "token"
        ? c.clockDisagrees
          ? `${token} is active by ${check}${own}, although its ` +
            `${[c.expiresOn && `expires_on ${c.expiresOn}`, c.notBefore && `not_before ${c.notBefore}`]
              .filter(Boolean)
              .join(" and ")} says otherwise by this machine's clock (is the clock right?)`
          : `${token} is valid and active${c.expiresOn ? ` until ${c.expiresOn}` : ""}${own}`
        : `CLOUDFLARE_EMAIL and CLOUDFLARE_API_KEY are the global API key of ${c.email ?? "a user"}`;
    case "invalid":
      return c.kind === "token"
        ? `${variable}${served} is not a valid API token: ${c.checkedAt ? check : "Cloudflare's token checks"} ` +
            `answered ${c.detail}. ` +
            `It may be mistyped, deleted, rolled${byAccount ? " or another account's" : ""}: ` +
            "set it to a current token " +
            `(My Profile → API Tokens)${byAccount}; a global API key goes in CLOUDFLARE_API_KEY, with CLOUDFLARE_EMAIL`
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
    case "other_account":
      return (
        `${variable} holds a token of account ${c.account}${c.id ? ` (id ${c.id})` : ""}, not one for account ` +
        `${c.servesAccounts?.join(", ") ?? "it serves"} (${check} takes it): set ${variable} to a token of ` +
        `account ${c.servesAccounts?.join(", ") ?? "the account"}`
      );
    default:
      return `zoneform could not check the credentials (${c.detail ?? "no answer"})`;
  }
}

export function explainAuthFailure(
  err: ApiError,
  check: CredentialCheck,
  hint?: PermissionHint,
  scope: TokenScope = {},
): ApiError {
  if (check.state === "unknown") return err;
  const { method, path } = err.info;
  const elsewhere = err.status === 403 ? notItsAccount(check, accountOfPath(path, scope), scope) : undefined;
  if (elsewhere) return new ApiError(`${method} ${path} was refused (HTTP 403): ${elsewhere}`, err.info);
  // Only a token that works can lack a permission: any other verdict is the one cause to name.
  if (err.status === 403 && check.state === "active") {
    const needs = hint?.(method, path);
    const who = check.kind === "token" ? "the API token" : "the account of CLOUDFLARE_EMAIL / CLOUDFLARE_API_KEY";
    const fix =
      check.kind === "key"
        ? "give the account a role with it"
        : check.account !== undefined
          ? `add it to the token (account ${check.account}: Manage Account → Account API Tokens → Edit)`
          : "add it to the token (My Profile → API Tokens → Edit)";
    const state = `${who} lacks it (${describeCheck(check)}): ${fix}`;
    return new ApiError(refusalMessage({ ...err.info, status: err.status, needs, state }), err.info);
  }
  if (check.state === "active") return err;
  return new ApiError(`${describeCheck(check)} (${method} ${path} was refused with HTTP ${err.status})`, err.info);
}

export function notItsAccount(
  check: CredentialCheck,
  target: string | undefined,
  scope: TokenScope = {},
): string | undefined {
  if (check.state !== "active" || check.account === undefined || target === undefined || target === check.account)
    return undefined;
  const variable = scope.accountVariables?.[target] ?? check.variable ?? "CLOUDFLARE_API_TOKEN";
  return (
    `${variable} holds a token of account ${check.account}${check.id ? ` (id ${check.id})` : ""}, which reaches ` +
    `that account's zones and objects only, not account ${target}'s: set ${variable} to a token of account ${target}`
  );
}

function accountOfPath(path: string, scope: TokenScope): string | undefined {
  const m = /^(accounts|zones)\/([^/]+)/.exec(path);
  if (!m) return undefined;
  return m[1] === "accounts" ? m[2] : scope.zoneAccounts?.[m[2]!];
}

function worthChecking(err: unknown): err is ApiError {
  return (
    err instanceof ApiError &&
    (err.status === 401 || err.status === 403) &&
    err.info.envelope === true &&
    !/^user(\/|$)/.test(err.info.path) &&
    !/^accounts\/[^/]+\/tokens(\/|$)/.test(err.info.path)
  );
}

export function withCredentialCheck(
  client: CloudflareClient,
  kind: AuthKind,
  hint?: PermissionHint,
  scope?: TokenScope,
): CloudflareClient {
  let check: Promise<CredentialCheck> | undefined;
  const explain = async (err: unknown): Promise<unknown> => {
    if (!worthChecking(err)) return err;
    check ??= checkCredentials(client, kind, Date.now(), scope);
    const verdict = await check;
    const explained = explainAuthFailure(err, verdict, hint, scope);
    // Bad credentials fail every call alike: stop the run once. A missing permission may be this call's alone.
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
