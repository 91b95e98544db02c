// What the unmet-value cases (test/sections/<section>/unmet.case.ts, collected by
// test/e2e/unmet-values.test.ts) receive and share.
import type { TestEmulator } from "../helpers/cli.js";

/** What a case works on: the suite's emulator (reset to the seed before each case) and the zone of the file. */
export interface UnmetContext {
  emu: TestEmulator;
  zone: string;
}

/** A value of the file zoneform can neither reach with a write nor confirm, and what its zone's error says. */
interface Unmet {
  /** The zone's part of the file (what goes under `- zone_id: …`), unindented. */
  yaml: string;
  /** What the zone's error says. */
  says: string;
}

/**
 * A section's case: it shapes the live zone as the real API can answer (through the API or the state
 * the emulator holds), then gives the file's value that cannot be met there.
 */
export type UnmetCase = (ctx: UnmetContext) => Promise<Unmet>;

/** Replaces the rules of the zone's entrypoint ruleset of `phase` (through the API). */
export const putEntrypoint = ({ emu, zone }: UnmetContext, phase: string, rules: unknown[]) =>
  emu.api("PUT", `zones/${zone}/rulesets/phases/${phase}/entrypoint`, { name: "default", rules });
