// No false "No changes": for every section of the registry, a value of the file zoneform can neither
// reach with a write nor confirm stops its zone. `plan --detailed-exitcode` and `drift` exit 1 (never
// 0, never a warning alone), and `apply` writes nothing. Each scenario shapes the emulator as the real
// API can answer (real-answers.md: an answer without certificate_authority, several rules deploying
// one ruleset, …); a section added to the registry without a scenario here fails the first test.
import { describe, expect, it } from "vitest";
import { SECTIONS } from "../../src/sections/index.js";
import { CLOUDFLARE_MANAGED_RULESET_ID } from "../../src/sections/waf/managed-ruleset.js";
import { TestEmulator, ZONE, runCli, writeConfig } from "../helpers/cli.js";

const emu = TestEmulator.perFile();
const Z = ZONE.com;

interface Scenario {
  /** Shapes the live zone (through the API or the state the emulator holds). */
  setup(): Promise<unknown>;
  /** The zone's part of the file (under `- zone_id: …`), indented by 4. */
  yaml: () => string;
  /** What the zone's error says. */
  says: string;
}

const entrypoint = (phase: string, rules: unknown[]) =>
  emu.api("PUT", `zones/${Z}/rulesets/phases/${phase}/entrypoint`, { name: "default", rules });

let pinnedJob = 0;

const SCENARIOS: Record<string, Scenario> = {
  // A setting the file manages that the answer does not hold: never read as "off".
  page_shield: {
    setup: async () => {
      // The emulator answers the settings it holds; one it does not hold is left out of the answer.
      const settings = emu.state().zones.find((z) => z.id === Z)!.page_shield as Record<string, unknown>;
      delete settings.use_connection_url_path;
    },
    yaml: () => "page_shield:\n  use_connection_url_path: true\n",
    says: "use_connection_url_path is missing",
  },
  // enabled: false, and a second enabled execute rule keeps the ruleset deployed.
  waf: {
    setup: () =>
      entrypoint(
        "http_request_firewall_managed",
        [1, 2].map((n) => ({
          action: "execute",
          expression: n === 1 ? "true" : 'http.host eq "api.example.com"',
          description: `deploy ${n}`,
          action_parameters: { id: CLOUDFLARE_MANAGED_RULESET_ID },
        })),
      ),
    yaml: () => "waf:\n  cloudflare_managed:\n    enabled: false\n",
    says: "2 execute rules deploy the Cloudflare Managed Ruleset",
  },
  // A second enabled log_custom_field rule logs a cookie the file does not list.
  custom_fields: {
    setup: () =>
      entrypoint("http_log_custom_fields", [
        { action: "log_custom_field", expression: "true", action_parameters: { request_fields: [{ name: "a" }] } },
        {
          action: "log_custom_field",
          expression: 'http.host eq "api.example.com"',
          action_parameters: { cookie_fields: [{ name: "session" }] },
        },
      ]),
    yaml: () => "logs:\n  custom_fields:\n    request_headers: [a]\n",
    says: "log fields of their own, so the file's could not be met",
  },
  // A job pinned by id whose dataset differs: it cannot change in place, nor be replaced under a pin.
  logpush_jobs: {
    setup: async () => {
      const job = await emu.api<{ id: number }>("POST", `zones/${Z}/logpush/jobs`, {
        name: "edge-logs",
        dataset: "http_requests",
        destination_conf: "https://logs.example.com/in",
        enabled: true,
      });
      pinnedJob = job.id;
    },
    yaml: () =>
      `logs:\n  logpush_jobs:\n    - id: ${pinnedJob}\n      name: edge-logs\n      dataset: firewall_events\n` +
      "      destination_conf: https://logs.example.com/in\n",
    says: "whose dataset cannot change in place",
  },
  // A CA the file names, on a hostname whose answer states none and whose issuer tells nothing.
  custom_hostnames: {
    setup: async () => {
      const h = emu
        .state()
        .zones.find((z) => z.id === Z)!
        .custom_hostnames.find((x) => x.hostname === "app.globex-com.example")!;
      h.ssl = { ...(h.ssl as Record<string, unknown>), certificate_authority: null };
    },
    yaml: () => "custom_hostnames:\n  - hostname: app.globex-com.example\n    certificate_authority: ssl_com\n",
    says: "so zoneform cannot tell whether it is already ssl_com",
  },
};

const indent = (text: string) =>
  text
    .split("\n")
    .map((l) => (l ? `    ${l}` : l))
    .join("\n");

describe("a file value zoneform cannot reach is a zone error in every section", () => {
  it("has a scenario for every section of the registry", () => {
    expect(Object.keys(SCENARIOS).sort()).toEqual(SECTIONS.map((s) => s.name).sort());
  });

  for (const section of SECTIONS) {
    it(`${section.name}: plan --detailed-exitcode and drift exit 1, apply writes nothing`, async () => {
      const scenario = SCENARIOS[section.name]!;
      await scenario.setup();
      const file = await writeConfig(
        `version: 1\nzones:\n  - zone_id: ${Z}\n    name: example.com\n${indent(scenario.yaml())}`,
      );
      await emu.clearRequests();
      const plan = await runCli(emu, ["plan", "-c", file, "--detailed-exitcode"]);
      expect(plan.code, plan.stdout + plan.stderr).toBe(1);
      expect(plan.stdout + plan.stderr).toContain(scenario.says);
      expect(plan.stdout).not.toContain("No changes.");
      const drift = await runCli(emu, ["drift", "-c", file, "--detailed-exitcode"]);
      expect(drift.code, drift.stdout + drift.stderr).toBe(1);
      const apply = await runCli(emu, ["apply", "-c", file, "--auto-approve"]);
      expect(apply.code, apply.stdout + apply.stderr).toBe(1);
      expect(await emu.calls({ writesOnly: true })).toEqual([]);
    });
  }
});
