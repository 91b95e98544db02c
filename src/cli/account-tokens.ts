// Which token each zone and account of a configuration is called with: an entry of `accounts:` with an api_token
// serves that account's own objects and every zone whose account (its own `account_id`, else the file's) names it.
// Spec: docs/configuration.md, Accounts.
import type { DesiredState } from "../sections/index.js";
import type { Env } from "../model/index.js";
import { CredentialsError } from "../errors.js";

/** One token of the configuration: its variable, its value, and the accounts and zones it serves. */
export interface AccountToken {
  env: string;
  value: string;
  accounts: string[];
  zones: string[];
}

/** The account of a zone: its own account_id, else the file's. */
export function zoneAccount(desired: DesiredState, zone: { account_id?: string }): string | undefined {
  return zone.account_id ?? desired.account_id;
}

/** The variables that hold the tokens of `accounts:`, in the file's order. */
export function tokenVariables(desired: DesiredState): string[] {
  return [...new Set((desired.accounts ?? []).flatMap((a) => (a.api_token ? [a.api_token.env] : [])))];
}

/**
 * The distinct tokens of `accounts:` (one per value: one limit per token), each with what it serves, read from the
 * environment now: a token is who applies, never part of the desired state.
 */
export function accountTokens(desired: DesiredState, env: Env): AccountToken[] {
  const byValue = new Map<string, AccountToken>();
  const byAccount = new Map<string, AccountToken>();
  for (const account of desired.accounts ?? []) {
    if (!account.api_token) continue;
    const name = account.api_token.env;
    const value = Object.hasOwn(env, name) ? env[name] : undefined;
    if (value === undefined || value === "")
      throw new CredentialsError(
        `${name} is not set: it holds the API token of account ${account.account_id} (its api_token in the ` +
          "file); set it, or remove the api_token to use CLOUDFLARE_API_TOKEN",
      );
    let token = byValue.get(value);
    if (!token) {
      token = { env: name, value, accounts: [], zones: [] };
      byValue.set(token.value, token);
    }
    token.accounts.push(account.account_id);
    byAccount.set(account.account_id, token);
  }
  for (const zone of desired.zones) {
    const account = zoneAccount(desired, zone);
    if (account !== undefined) byAccount.get(account)?.zones.push(zone.zone_id);
  }
  return [...byValue.values()];
}

/** Whether some zone or account of the configuration is called with the default credentials. */
export function needsDefaultToken(desired: DesiredState): boolean {
  const tokens = groupedByVariable(desired);
  const zones = new Set(tokens.flatMap((t) => t.zones));
  const accounts = new Set(tokens.flatMap((t) => t.accounts));
  return (
    desired.zones.some((z) => !zones.has(z.zone_id)) ||
    (desired.accounts ?? []).some((a) => !accounts.has(a.account_id))
  );
}

/**
 * The accounts the default credentials serve, in the file's order: the entries of `accounts:` without a token of
 * their own, and the accounts of the zones no such token serves (where an account-owned CLOUDFLARE_API_TOKEN is
 * checked).
 */
export function defaultAccounts(desired: DesiredState): string[] {
  const served = new Set(groupedByVariable(desired).flatMap((t) => t.accounts));
  const accounts = [
    ...(desired.accounts ?? []).map((a) => a.account_id),
    ...desired.zones.flatMap((z) => zoneAccount(desired, z) ?? []),
  ];
  return [...new Set(accounts.filter((a) => !served.has(a)))];
}

function groupedByVariable(desired: DesiredState): Array<{ accounts: string[]; zones: string[] }> {
  const byAccount = new Map<string, { accounts: string[]; zones: string[] }>();
  for (const account of desired.accounts ?? []) {
    if (account.api_token) byAccount.set(account.account_id, { accounts: [account.account_id], zones: [] });
  }
  for (const zone of desired.zones) {
    const account = zoneAccount(desired, zone);
    if (account !== undefined) byAccount.get(account)?.zones.push(zone.zone_id);
  }
  return [...byAccount.values()];
}
