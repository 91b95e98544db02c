// Semantic rules of custom_hostnames.
import type { Finding } from "../problems.js";
import { duplicates, zonesOf, type Rule } from "./util.js";

/** A hostname may be listed once per zone (hostnames compare case-insensitively). */
export const uniqueCustomHostnames: Rule = (doc) => {
  const findings: Finding[] = [];
  for (const { zone, pointer } of zonesOf(doc)) {
    findings.push(...duplicates(zone.custom_hostnames, `${pointer}/custom_hostnames`, "hostname", "custom hostname", (h) => h.toLowerCase()));
  }
  return findings;
};
