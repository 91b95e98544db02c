// The semantic rules: what the schema cannot express. Each is a small function (doc, ctx) → findings;
// rules that span files (duplicate zone ids, account_id and safety agreeing) are in ../merge.ts.
import type { Finding } from "../problems.js";
import { uniqueCustomHostnames } from "./custom-hostnames.js";
import {
  customFieldLimit,
  customFieldsPushed,
  deprecatedJobKeys,
  filterLimits,
  filterValues,
  lowerCaseHeaders,
  pruneNeedsJobs,
  uniqueCustomFields,
  uniqueJobs,
  exactJobIds,
} from "./logs.js";
import { pruneNeedsPolicies, scriptInventoryEntries, uniquePolicies } from "./page-shield.js";
import { credentialsInFile } from "./credentials.js";
import { secretsFromEnvironment } from "./secrets.js";
import type { Rule, RuleContext } from "./util.js";

export type { Rule, RuleContext } from "./util.js";

export const RULES: readonly Rule[] = [
  uniquePolicies,
  pruneNeedsPolicies,
  scriptInventoryEntries,
  lowerCaseHeaders,
  uniqueCustomFields,
  customFieldLimit,
  uniqueJobs,
  exactJobIds,
  deprecatedJobKeys,
  filterLimits,
  filterValues,
  customFieldsPushed,
  pruneNeedsJobs,
  secretsFromEnvironment,
  credentialsInFile,
  uniqueCustomHostnames,
];

export function runRules(doc: unknown, ctx: RuleContext, rules: readonly Rule[] = RULES): Finding[] {
  return rules.flatMap((rule) => rule(doc, ctx));
}
