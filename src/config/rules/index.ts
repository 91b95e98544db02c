// The semantic rules: what the schema cannot express.
import { type Finding, type Rule, type RuleContext, SECTIONS } from "../../sections/index.js";
import { ACCOUNT_RULES } from "./accounts.js";
import { credentialsInFile } from "./credentials.js";
import { literalIds } from "./literal-ids.js";

export type { Rule, RuleContext } from "../../sections/index.js";

/** Rules of the file as a whole, run after the sections' rules. */
const GENERIC_RULES: readonly Rule[] = [...ACCOUNT_RULES, credentialsInFile, literalIds];

export const RULES: readonly Rule[] = [...SECTIONS.flatMap((s) => s.rules), ...GENERIC_RULES];

export function runRules(doc: unknown, ctx: RuleContext, rules: readonly Rule[] = RULES): Finding[] {
  return rules.flatMap((rule) => rule(doc, ctx));
}
