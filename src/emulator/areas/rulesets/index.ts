// Rulesets.
// Spec: docs/emulator.md, Rulesets, Logpush and the WAF migration.
import type { EmulatorArea } from "../../area.js";
import { HEX_ID } from "../../ids.js";
import { arrayOf, objectOf, upsert, type RecordedItem } from "../../recorded-items.js";
import type { ZoneState } from "../../types.js";
import { routes } from "./routes.js";
import { seedAccountRulesets } from "./seed.js";
import type { Ruleset } from "./state.js";

const hex = (v: string) => HEX_ID.test(v);

export const rulesets: EmulatorArea = {
  name: "rulesets",
  routes,
  idParams: { ruleset_id: hex, rule_id: hex },
  emptyZone: () => ({ rulesets: [] }),
  // A state document without account_rulesets gets the seeded managed rulesets.
  state: ({ now, input }) => ({
    account_rulesets: Array.isArray(input?.account_rulesets)
      ? (input.account_rulesets as Ruleset[])
      : seedAccountRulesets(now),
  }),
  recorded: [
    { path: "zones/:zone/rulesets", load: (ctx, [z], r) => replaceRulesets(ctx.zone(z!), arrayOf(r, "rulesets")) },
    {
      path: "zones/:zone/rulesets/:id",
      load: (ctx, [z], r) => upsert(ctx.zone(z!).rulesets, asRuleset(objectOf(r, "ruleset"))),
    },
    {
      path: "zones/:zone/rulesets/phases/:phase/entrypoint",
      load: (ctx, [z], r) => upsert(ctx.zone(z!).rulesets, asRuleset(objectOf(r, "ruleset"))),
    },
  ],
};

/** A list answer's rulesets carry no rules: those already stored under the same id are kept. */
function replaceRulesets(zone: ZoneState, items: RecordedItem[]): void {
  zone.rulesets = items.map((item) => {
    const before = zone.rulesets.find((r) => r.id === item.id);
    return asRuleset(item.rules === undefined && before ? { ...item, rules: before.rules } : item);
  });
}

function asRuleset(item: RecordedItem): Ruleset {
  return (Array.isArray(item.rules) ? item : { ...item, rules: [] }) as unknown as Ruleset;
}
