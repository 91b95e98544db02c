// Semantic rules of page_shield.
import type { Finding } from "../problems.js";
import { asRecord, duplicates, zonesOf, type Rule } from "./util.js";

/** A policy's description is its identity. */
export const uniquePolicyDescriptions: Rule = (doc) => {
  const findings: Finding[] = [];
  for (const { zone, pointer } of zonesOf(doc)) {
    const ps = asRecord(zone.page_shield);
    if (ps) findings.push(...duplicates(ps.policies, `${pointer}/page_shield/policies`, "description", "policy description"));
  }
  return findings;
};

/** `prune` only says what happens to live policies the file does not list; without `policies` it does nothing. */
export const pruneNeedsPolicies: Rule = (doc) => {
  const findings: Finding[] = [];
  for (const { zone, pointer } of zonesOf(doc)) {
    const ps = asRecord(zone.page_shield);
    if (ps && "prune" in ps && !("policies" in ps)) {
      findings.push({
        pointer: `${pointer}/page_shield/prune`,
        severity: "warning",
        message: "prune has no effect without 'policies': policies are not managed in this zone",
      });
    }
  }
  return findings;
};
