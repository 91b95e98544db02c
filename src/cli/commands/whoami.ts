// `zoneform whoami`: who the credentials are (the token check `GET user/tokens/verify`, or `GET user` for a global
// API key) and, for a configuration (-c, else ./zoneform.yaml when there is one), which token permissions its
// sections need and, when the API shows the token's policies, which it lacks.
// Spec: docs/commands/whoami.md.
import { existsSync } from "node:fs";
import path from "node:path";
import type { Command } from "commander";
import {
  checkCredentials,
  describeCheck,
  notItsAccount,
  type CredentialCheck,
  type TokenScope,
  resolveCredentials,
  lacking,
  type PermissionNeed,
  type CloudflareClient,
} from "../../cloudflare/index.js";
import { loadConfig } from "../../config/index.js";
import { DEFAULT_CONFIG_PATH } from "../../model/index.js";
import { ApiError, EXIT, NetworkError, UsageError } from "../../errors.js";
import { printable } from "../../safe-text.js";
import { permissionsNeeded, type DesiredState } from "../../sections/index.js";
import { defaultAccounts, type AccountToken } from "../account-tokens.js";
import {
  apiUrlFrom,
  clientsFromOptions,
  type ClientFlagValues,
  type RunClients,
  estateScope,
  tokenScope,
} from "../client-options.js";
import { addClientOptions } from "../client-flags.js";
import { cliClock } from "../now.js";
import { addConfigOption, addVerboseOption } from "../options.js";
import type { CommandContext } from "../command.js";
import { type CommandTable, commandFromTable } from "../option-table.js";

interface WhoamiOptions extends ClientFlagValues {
  config?: string;
  format: string;
}

/** What the token's policies say, when the API shows them. */
type Policies = { known: true; policies: unknown[] } | { known: false; why: string };

const WHOAMI: CommandTable = {
  name: "whoami",
  description:
    "Show who the Cloudflare credentials are and which token permissions the file's sections need (and " +
    "lack, when the API tells).",
  options: [{ flags: "--format <format>", description: "text | json", default: "text" }],
};

export function register(program: Command, ctx: CommandContext): void {
  const cmd = commandFromTable(program, WHOAMI);
  addConfigOption(cmd);
  addVerboseOption(cmd);
  addClientOptions(cmd);
  cmd.action((opts) => runWhoami(opts, ctx));
}

async function runWhoami(opts: WhoamiOptions, ctx: CommandContext): Promise<void> {
  const { io } = ctx;
  if (opts.format !== "text" && opts.format !== "json")
    throw new UsageError(`--format ${opts.format}: expected one of text, json`);
  // Only the sections matter here: an unset ${env:…} secret is no reason to refuse.
  const configFile =
    opts.config ?? (existsSync(path.resolve(io.cwd, DEFAULT_CONFIG_PATH)) ? DEFAULT_CONFIG_PATH : undefined);
  const desired =
    configFile === undefined
      ? undefined
      : (await loadConfig(configFile, { env: io.env, cwd: io.cwd, missingEnv: "warning" })).desired;
  // The clients first: they say what they say of the environment (a Service Key) before refusing it.
  const clients = clientsFromOptions(opts, io, undefined, undefined, desired);
  const baseUrl = apiUrlFrom(opts, io, true);
  const now = cliClock(io.env)().getTime();
  const all = [clients.fallback, ...clients.tokens.map((t) => t.client)];
  try {
    const reports: Report[] = [];
    // The default credentials, unless unset where every zone and account has a token of its own.
    if (!clients.missing) {
      const { auth } = resolveCredentials(io.env, { apiUrl: opts.apiUrl });
      const part = desired && clients.tokens.length > 0 ? defaultPart(desired, clients.tokens) : desired;
      const label = "token" in auth ? "CLOUDFLARE_API_TOKEN" : "CLOUDFLARE_EMAIL + CLOUDFLARE_API_KEY";
      const scope = tokenScope(auth, desired ? { accounts: defaultAccounts(desired), ...estateScope(desired) } : {});
      const kind = "token" in auth ? "token" : "key";
      reports.push(await reportOf(clients.fallback, kind, scope, part, baseUrl, now, label));
    }
    for (const { token, client } of clients.tokens) {
      const part = partOf(desired!, token);
      const scope = tokenScope(
        { token: token.value },
        { accounts: token.accounts, variable: token.env, ...estateScope(desired!) },
      );
      reports.push(await reportOf(client, "token", scope, part, baseUrl, now, token.env, token));
    }
    const named = clients.tokens.length > 0;
    io.stdout.write(
      opts.format === "json"
        ? `${JSON.stringify(jsonDocument(reports, clients.missing !== undefined), null, 2)}\n`
        : reports.map((r) => textReport(r, named)).join("\n"),
    );
    for (const r of reports) {
      // An account's own token given for other accounts too: each of those needs its own.
      for (const account of r.check.servesAccounts ?? []) {
        const problem = notItsAccount(r.check, account, desired && estateScope(desired));
        if (!problem) continue;
        io.stderr.write(`Error: ${printable(problem)}\n`);
        ctx.setExit(EXIT.error);
      }
      if (r.check.state === "active") continue;
      io.stderr.write(`Error: ${printable(describeCheck(r.check))}\n`);
      ctx.setExit(EXIT.error);
    }
  } finally {
    await Promise.all(all.map((c) => c.close()));
  }
}

async function reportOf(
  client: CloudflareClient,
  kind: "token" | "key",
  scope: TokenScope,
  desired: DesiredState | undefined,
  baseUrl: string,
  now: number,
  variable: string,
  token?: AccountToken,
): Promise<Report> {
  const check = await checkCredentials(client, kind, now, scope);
  const needs = desired ? permissionsNeeded(desired) : [];
  const policies = await readPolicies(client, check, needs);
  return { baseUrl, check, desired, needs, policies, variable, ...(token ? { token } : {}) };
}

function partOf(desired: DesiredState, token: AccountToken): DesiredState {
  return {
    ...desired,
    zones: desired.zones.filter((z) => token.zones.includes(z.zone_id)),
    accounts: (desired.accounts ?? []).filter((a) => token.accounts.includes(a.account_id)),
  };
}

function defaultPart(desired: DesiredState, tokens: RunClients["tokens"]): DesiredState {
  const zones = new Set(tokens.flatMap((t) => t.token.zones));
  const accounts = new Set(tokens.flatMap((t) => t.token.accounts));
  return {
    ...desired,
    zones: desired.zones.filter((z) => !zones.has(z.zone_id)),
    accounts: (desired.accounts ?? []).filter((a) => !accounts.has(a.account_id)),
  };
}

async function readPolicies(
  client: CloudflareClient,
  check: CredentialCheck,
  needs: PermissionNeed[],
): Promise<Policies> {
  if (check.state !== "active") return { known: false, why: "the credentials do not work" };
  if (check.kind === "key")
    return { known: false, why: "a global API key acts with every permission of its user; zoneform cannot list them" };
  if (needs.length === 0) return { known: false, why: "no configuration to check" };
  if (!check.id) return { known: false, why: "the token check did not answer the token's id" };
  // An account-owned token is shown by its account, to a token with "Account API Tokens: Read".
  const tokens = check.account !== undefined ? `accounts/${encodeURIComponent(check.account)}/tokens` : "user/tokens";
  const at = `${tokens}/${encodeURIComponent(check.id)}`;
  const permission = check.account !== undefined ? "Account API Tokens: Read" : "API Tokens: Read";
  try {
    const token = await client.request<Record<string, unknown>>("GET", at);
    if (!Array.isArray(token?.policies)) return { known: false, why: `GET ${at} answered no policies` };
    return { known: true, policies: token.policies };
  } catch (err) {
    if (!(err instanceof ApiError) && !(err instanceof NetworkError)) throw err;
    const refused = err instanceof ApiError && (err.status === 403 || err.status === 401);
    return {
      known: false,
      why: refused
        ? `Cloudflare shows a token's permissions only to a token with the "${permission}" permission ` +
          `(GET ${at} answered HTTP ${err.status})`
        : `reading them failed: ${err.message}`,
    };
  }
}

interface Report {
  baseUrl: string;
  check: CredentialCheck;
  desired: DesiredState | undefined;
  needs: PermissionNeed[];
  policies: Policies;
  variable: string;
  token?: AccountToken;
}

function jsonDocument(reports: Report[], defaultUnset: boolean): unknown {
  const [first, ...rest] = reports;
  const main = defaultUnset
    ? { format_version: 1, api_url: reports[0]!.baseUrl, credentials: null, config: null, permissions: null }
    : (jsonReport(first!) as Record<string, unknown>);
  const tokens = defaultUnset ? reports : rest;
  if (tokens.length === 0) return main;
  return {
    ...main,
    account_tokens: tokens.map((r) => {
      const { format_version: _v, api_url: _u, config: _c, ...part } = jsonReport(r) as Record<string, unknown>;
      return { variable: r.variable, accounts: r.token!.accounts, zones: r.token!.zones, ...part };
    }),
  };
}

function jsonReport({ baseUrl, check, desired, needs, policies }: Report): unknown {
  return {
    format_version: 1,
    api_url: baseUrl,
    credentials: {
      kind: check.kind,
      state: check.state,
      id: check.id ?? null,
      status: check.status ?? null,
      email: check.email ?? null,
      account_id: check.account ?? null,
      expires_on: check.expiresOn ?? null,
      not_before: check.notBefore ?? null,
      message: describeCheck(check),
    },
    config: desired
      ? { files: desired.files, zones: desired.zones.map((z) => ({ zone_id: z.zone_id, name: z.name ?? null })) }
      : null,
    permissions: {
      known: policies.known,
      why_unknown: policies.known ? null : policies.why,
      needed: needs.map((n) => ({
        permission: n.name,
        scope: n.scope,
        plan: n.plan,
        apply: n.apply,
        sections: n.sections,
        on: n.on,
        lacking: policies.known ? lacking(policies.policies, n) : null,
      })),
    },
  };
}

function textReport({ baseUrl, check, desired, needs, policies, variable, token }: Report, named: boolean): string {
  const lines: string[] = [];
  if (named) {
    const serves = token
      ? `account${token.accounts.length === 1 ? "" : "s"} ${token.accounts.join(", ")} and ${token.zones.length} ` +
        `zone${token.zones.length === 1 ? "" : "s"}`
      : "every zone and account without a token of its own";
    lines.push(`${variable} (${serves}):`);
  }
  if (check.kind === "token") {
    const when = [check.notBefore && `not before ${check.notBefore}`, check.expiresOn && `expires ${check.expiresOn}`]
      .filter(Boolean)
      .join(", ");
    lines.push(
      `API token ${check.id ?? "(id unknown)"}${check.account ? ` (of account ${check.account})` : ""}: ` +
        `${check.state === "not_yet_valid" ? "not yet valid" : check.state}${when ? ` (${when})` : ""}`,
    );
  } else {
    lines.push(
      `Global API key of ${check.email ?? "(unknown user)"}${check.id ? ` (user ${check.id})` : ""}: ${check.state}`,
    );
  }
  lines.push(`API: ${baseUrl}`);
  if (desired && (desired.zones.length > 0 || (desired.accounts ?? []).length > 0 || !named)) {
    const names = new Map(desired.zones.map((z) => [z.zone_id, z.name ?? z.zone_id]));
    for (const a of desired.accounts ?? []) names.set(a.account_id, `account ${a.account_id}`);
    const n = desired.zones.length;
    lines.push(
      "",
      `Permissions ${desired.files.join(", ")} needs (${n} zone${n === 1 ? "" : "s"}; plan and drift need ` +
        `the first level, apply the second):`,
    );
    const rows = needs.map((need) => {
      const label = `${need.name}${need.scope === "account" ? " (account)" : ""}`;
      const levels = need.plan === need.apply ? need.plan : `${need.plan} / ${need.apply}`;
      let has = "";
      if (policies.known) {
        const l = lacking(policies.policies, need);
        const where = (ids: string[]) =>
          ids.length === need.on.length && need.scope === "zone" && ids.length > 1
            ? "every zone"
            : ids.map((id) => names.get(id) ?? id).join(", ");
        has =
          l.plan.length > 0
            ? `lacks ${need.plan} on ${where(l.plan)}`
            : l.apply.length > 0
              ? `lacks ${need.apply} (for apply) on ${where(l.apply)}`
              : "has it";
      }
      return [label, levels, need.sections.join(", "), has];
    });
    const width = (i: number) => Math.max(...rows.map((r) => r[i]!.length));
    for (const r of rows)
      lines.push(
        `  ${r[0]!.padEnd(width(0))}  ${r[1]!.padEnd(width(1))}  ${r[2]!.padEnd(width(2))}  ${r[3]}`.trimEnd(),
      );
    const owner = check.account ? `accounts/${check.account}` : "user";
    lines.push(
      policies.known
        ? `The token's permissions were read from Cloudflare (GET ${owner}/tokens/<id>).`
        : `Whether the token has them: cannot tell: ${policies.why}.`,
    );
  }
  return `${printable(lines.join("\n"), { keepNewlines: true })}\n`;
}
