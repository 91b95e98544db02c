// Rules of `accounts:` that the schema cannot say.
import { accountsOf, asString, childPointer, type Finding, type Rule, ACCOUNT_SECTIONS } from "../../sections/index.js";

/** `${env:NAME}` and nothing else around it. */
const WHOLE_REFERENCE = /^\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}$/;

export function tokenVariable(written: string | undefined): string | undefined {
  return written === undefined ? undefined : WHOLE_REFERENCE.exec(written.trim())?.[1];
}

const accountTokenFromEnvironment: Rule = (doc, ctx) => {
  const findings: Finding[] = [];
  for (const { account, pointer } of accountsOf(doc)) {
    if (!("api_token" in account)) continue;
    const at = childPointer(pointer, "api_token");
    const written = ctx.template(at) ?? asString(account.api_token);
    if (written === undefined || tokenVariable(written) !== undefined) continue;
    findings.push({
      pointer: at,
      message:
        "api_token must be a ${env:NAME} reference alone (e.g. ${env:CLOUDFLARE_API_TOKEN_SHOP}): the token " +
        "itself never belongs in the file, and plan files keep only the reference",
    });
  }
  return findings;
};

const uniqueAccounts: Rule = (doc) => {
  const findings: Finding[] = [];
  const first = new Map<string, number>();
  for (const { account, pointer } of accountsOf(doc)) {
    const id = asString(account.account_id);
    const index = Number(pointer.slice(pointer.lastIndexOf("/") + 1));
    if (id === undefined) continue;
    const earlier = first.get(id);
    if (earlier === undefined) first.set(id, index);
    else
      findings.push({
        pointer: childPointer(pointer, "account_id"),
        message: `account ${id} is listed twice (also item ${earlier} of accounts): list each account once`,
      });
  }
  return findings;
};

const accountPruneNeedsList: Rule = (doc) => {
  const findings: Finding[] = [];
  const keys = ACCOUNT_SECTIONS.map((s) => s.key);
  for (const { account, pointer } of accountsOf(doc)) {
    if (!("prune" in account) || keys.some((k) => k in account)) continue;
    findings.push({
      pointer: childPointer(pointer, "prune"),
      severity: "warning",
      message: `prune has no effect without a list (${keys.join(", ")}): nothing of this account is managed`,
    });
  }
  return findings;
};

export const ACCOUNT_RULES: readonly Rule[] = [accountTokenFromEnvironment, uniqueAccounts, accountPruneNeedsList];
