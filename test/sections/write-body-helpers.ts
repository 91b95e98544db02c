// What the write-body cases (test/sections/<section>/write-body.case.ts, collected by
// test/unit/sections/write-bodies.test.ts) share: a zone of a file, the one change a kind plans, the
// body fields of the official SDK's update, a live ruleset entrypoint.
import { expect } from "vitest";
import { parseConfigText } from "../../src/config/index.js";
import type { Change } from "../../src/model/plan.js";
import { SECTIONS, type DesiredZone } from "../../src/sections/index.js";
import type { LiveRule } from "../../src/sections/shared/entrypoint.js";
import { sdkFields } from "../helpers/sdk-declarations.js";

/**
 * A section's case: it asserts that each write updating a live object of the section carries the
 * object whole, as far as the section writes it (test/unit/sections/write-bodies.test.ts).
 */
export type WriteBodyCase = () => void;

const Z = "0123456789abcdef0123456789abcdef";
const RULESET = "1111111111111111111111111111111a";

/** The zone of a file holding `body` (indented under the zone), normalized as plan sees it. */
export function zoneOf(body: string): DesiredZone {
  const yaml = `version: 1\nzones:\n  - zone_id: ${Z}\n${body
    .split("\n")
    .map((l) => (l ? `    ${l}` : l))
    .join("\n")}`;
  return parseConfigText(yaml, "bodies.yaml", {}).desired.zones[0]!;
}

/** The one change a kind of `section` plans for `zone` against `live`. */
export function onlyChange(section: string, kind: string, zone: DesiredZone, live: unknown): Change {
  const k = SECTIONS.find((s) => s.name === section)!.kinds.find((x) => x.name === kind)!;
  const { changes, errors } = k.diff(zone, live);
  expect(errors ?? []).toEqual([]);
  expect(changes).toHaveLength(1);
  return changes[0]!;
}

/** The body fields of an SDK update (its path parameters left out). */
export const sdkBody = (file: string, iface: string) =>
  sdkFields(file, iface)
    .map((f) => f.name)
    .filter((n) => n !== "zone_id" && n !== "account_id");

/** A live entrypoint ruleset of `phase` holding `rule`. */
export const entrypoint = (phase: string, rule: LiveRule) => ({
  id: RULESET,
  name: "default",
  phase,
  version: "3",
  rules: [rule],
});
