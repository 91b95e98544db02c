// No false "No changes": for every section of the registry, a value of the file zoneform can neither
// reach with a write nor confirm stops its zone. `plan --detailed-exitcode` and `drift` exit 1 (never
// 0, never a warning alone), and `apply` writes nothing. Each case shapes the emulator as the real
// API can answer (real-answers.md: an answer without certificate_authority, several rules deploying
// one ruleset, …). One case per section, in the section's test folder (test/sections/<section>/
// unmet.case.ts, its types and helpers in test/sections/unmet-helpers.ts): a section added to the
// registry without one fails the first test.
import { describe, expect, it } from "vitest";
import { TestEmulator, ZONE, runCli, writeConfig } from "../helpers/cli.js";
import { sectionCases } from "../sections/cases.js";
import type { UnmetCase } from "../sections/unmet-helpers.js";

const emu = TestEmulator.perFile();
const Z = ZONE.com;

const { cases, problems } = sectionCases<UnmetCase>(
  import.meta.glob("../sections/*/unmet.case.ts", { eager: true }),
  "unmet.case.ts",
  "unmet",
);

const indent = (text: string) =>
  text
    .split("\n")
    .map((l) => (l ? `    ${l}` : l))
    .join("\n");

describe("a file value zoneform cannot reach is a zone error in every section", () => {
  it("has a case for every section of the registry", () => {
    expect(problems).toEqual([]);
  });

  for (const [section, unmet] of cases) {
    it(`${section}: plan --detailed-exitcode and drift exit 1, apply writes nothing`, async () => {
      const { yaml, says } = await unmet({ emu, zone: Z });
      const file = await writeConfig(`version: 1\nzones:\n  - zone_id: ${Z}\n    name: example.com\n${indent(yaml)}`);
      await emu.clearRequests();
      const plan = await runCli(emu, ["plan", "-c", file, "--detailed-exitcode"]);
      expect(plan.code, plan.stdout + plan.stderr).toBe(1);
      expect(plan.stdout + plan.stderr).toContain(says);
      expect(plan.stdout).not.toContain("No changes.");
      const drift = await runCli(emu, ["drift", "-c", file, "--detailed-exitcode"]);
      expect(drift.code, drift.stdout + drift.stderr).toBe(1);
      const apply = await runCli(emu, ["apply", "-c", file, "--auto-approve"]);
      expect(apply.code, apply.stdout + apply.stderr).toBe(1);
      expect(await emu.calls({ writesOnly: true })).toEqual([]);
    });
  }
});
