// planAndApply (src/engine/apply.ts) starts Cloudflare's checks of a plan's ruleset writes (the dry runs) as soon as
// the plan is made, when it will be put to them (changes, no zone errors, within the safety limits): they are in
// flight while the values are bound, the digest made and the plan shown, and what they say is told after the plan.
// A plan that will not be checked (zone errors, over the limits) sends none, as before. Then plan → apply → plan
// shows no change, with the exact calls.
import { describe, expect, it } from "vitest";
import { createClient, loadConfig } from "../../src/index.js";
import { planAndApply } from "../../src/engine/index.js";
import type { DesiredState } from "../../src/sections/index.js";
import { ACCOUNT, TOKEN, TestEmulator, ZONE, writeConfig } from "../helpers/cli.js";

const emu = TestEmulator.perFile();

const CONFIG = `version: 1
account_id: ${ACCOUNT}
zones:
  - zone_id: ${ZONE.com}
    name: example.com
    waf:
      owasp: { enabled: true, paranoia_level: 2, score_threshold: medium, action: log }
`;

const DRY_RUN = `POST zones/${ZONE.com}/rulesets?dry_run=true`;

/** Polls the emulator's log until `done` holds of it, for at most `ms` (false then). */
async function until(done: (calls: string[]) => boolean, ms = 5_000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (done(await emu.calls())) return true;
    await new Promise((r) => setTimeout(r, 10));
  }
  return false;
}

async function desiredOf(config: string): Promise<DesiredState> {
  return (await loadConfig(await writeConfig(config), { env: {} })).desired;
}

describe("apply from a file: Cloudflare's checks", () => {
  it("are in flight while the plan is shown, and told after it; then the writes, and a plan with no change", async () => {
    await emu.reset();
    const client = createClient({ baseUrl: emu.url, auth: { token: TOKEN } });
    const events: string[] = [];
    try {
      const desired = await desiredOf(CONFIG);
      const report = await planAndApply(desired, {
        client,
        // Shown only once the dry run has reached the emulator: without the early start this would wait in vain.
        onPlan: async () => {
          const sent = await until((calls) => calls.includes(DRY_RUN));
          events.push(`plan shown (dry run sent before: ${sent})`);
        },
        execution: { progress: (line) => events.push(line) },
        confirm: () => void events.push("confirmed"),
      });
      expect(report.failed).toEqual([]);
      expect(events).toEqual([
        "plan shown (dry run sent before: true)",
        "Checking 1 ruleset write(s) with Cloudflare first (dry_run=true)",
        "Cloudflare accepted the 1 ruleset write(s) checked (dry_run=true)",
        "confirmed",
        ...events.slice(4),
      ]);
      const calls = await emu.calls();
      // One dry run, before the first write; the write is the body it checked.
      expect(calls.filter((c) => c === DRY_RUN)).toHaveLength(1);
      expect(calls.indexOf(DRY_RUN)).toBeLessThan(calls.indexOf(`POST zones/${ZONE.com}/rulesets`));
      expect(await emu.calls({ writesOnly: true })).toEqual([`POST zones/${ZONE.com}/rulesets`]);
      await emu.clearRequests();
      const again = await planAndApply(desired, { client });
      expect(again.done).toEqual([]);
      expect(await emu.calls({ writesOnly: true })).toEqual([]);
      expect(await emu.calls({ dryRuns: true })).toEqual([]);
    } finally {
      await client.close();
    }
  });

  it("are not sent for a plan over the safety limits: refused with nothing sent but the reads", async () => {
    await emu.reset();
    const client = createClient({ baseUrl: emu.url, auth: { token: TOKEN } });
    try {
      // Deployed first with a Page Shield policy; then a file that changes the OWASP action (a write Cloudflare
      // would check) and drops the policy: its delete is over max_deletes 0.
      const policy = `    page_shield:
      enabled: true
      policies:
        - description: Checkout
          action: log
          expression: 'http.request.uri.path contains "/checkout"'
          value: "script-src 'self'"
`;
      await planAndApply(await desiredOf(CONFIG + policy), { client });
      await emu.clearRequests();
      const without = `${CONFIG.replace("action: log", "action: block")}    page_shield:
      enabled: true
      policies: []
`.replace("account_id:", "safety: { max_deletes: 0 }\naccount_id:");
      const desired = await desiredOf(without);
      let shown = false;
      await expect(
        planAndApply(desired, {
          client,
          onPlan: () => {
            shown = true;
          },
        }),
      ).rejects.toThrow(/max_deletes|--force/);
      expect(shown).toBe(true);
      const calls = await emu.calls();
      expect(calls.every((c) => c.startsWith("GET "))).toBe(true);
    } finally {
      await client.close();
    }
  });
});
