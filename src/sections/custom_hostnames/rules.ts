// Semantic rules of the custom_hostnames section.
import { duplicates, zonesOf, type Finding, type Rule } from "../rules.js";

/** A hostname may be listed once per zone (hostnames compare case-insensitively). */
export const uniqueCustomHostnames: Rule = (doc) => {
  const findings: Finding[] = [];
  for (const { zone, pointer } of zonesOf(doc)) {
    findings.push(
      ...duplicates(zone.custom_hostnames, `${pointer}/custom_hostnames`, "hostname", "custom hostname", (h) =>
        h.toLowerCase(),
      ),
    );
  }
  return findings;
};

export const CUSTOM_HOSTNAMES_RULES: readonly Rule[] = [uniqueCustomHostnames];
