// Semantic rules of the custom_hostnames section.
// Spec: docs/configuration.md, `custom_hostnames`.
import { duplicates, itemsOf, literalOnly, zonesOf, type Finding, type Rule } from "../rules.js";

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

/** A hostname is read by name (`?hostname=`) before any review. */
const literalHostnames: Rule = literalOnly(function* (doc) {
  for (const { zone, pointer } of zonesOf(doc))
    for (const { pointer: at } of itemsOf(zone.custom_hostnames, `${pointer}/custom_hostnames`))
      yield { pointer: `${at}/hostname`, what: "a custom hostname" };
});

export const CUSTOM_HOSTNAMES_RULES: readonly Rule[] = [uniqueCustomHostnames, literalHostnames];
