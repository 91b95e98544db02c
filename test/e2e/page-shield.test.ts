// Page Shield settings and CSP policies end to end against the emulator: plan → apply → plan with no
// changes, with the exact calls from the emulator's request log.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { planValidator } from "../../src/plan/plan-file.js";
import { TestEmulator, ZONE, runCli, tempDir, writeConfig } from "../helpers/cli.js";

const emu = TestEmulator.perFile();

const header = "version: 1\nzones:\n";
const zoneBlock = (id: string, name: string, body: string) =>
  `  - zone_id: ${id}\n    name: ${name}\n${body
    .split("\n")
    .map((l) => (l ? `    ${l}` : l))
    .join("\n")}\n`;

const policies = `page_shield:
  enabled: true
  policies:
    - description: Checkout allow-list
      action: allow
      expression: http.request.uri.path contains "/checkout"
      value: script-src 'self' https://js.stripe.com
    - description: Report everything
      action: log
      expression: http.host eq "example.com"
      value: script-src 'none'
`;

async function converge(config: string, extra: string[] = []) {
  const plan1 = await runCli(emu, ["plan", "-c", config, "--detailed-exitcode", ...extra]);
  expect(plan1.code, plan1.stderr).toBe(2);
  await emu.clearRequests();
  const apply = await runCli(emu, ["apply", "-c", config, "--auto-approve", ...extra]);
  expect(apply.code, apply.stderr).toBe(0);
  const writes = await emu.calls({ writesOnly: true });
  const plan2 = await runCli(emu, ["plan", "-c", config, "--detailed-exitcode", ...extra]);
  expect(plan2.code, plan2.stdout + plan2.stderr).toBe(0);
  expect(plan2.stdout).toContain("No changes.");
  return { plan1, apply, writes };
}

describe("page shield end to end", () => {
  it("enables Page Shield and creates policies from nothing, then shows no changes", async () => {
    const config = await writeConfig(header + zoneBlock(ZONE.com, "example.com", policies));
    await emu.clearRequests();
    const { plan1, apply, writes } = await converge(config);
    expect(plan1.stdout).toContain('+ page_shield_policy "Checkout allow-list"');
    expect(plan1.stdout).toContain("~ enabled: false → true");
    expect(plan1.stdout).toContain("Plan: 2 to create, 1 to update, 0 to replace, 0 to delete.");
    expect(apply.stdout).toContain("Apply complete! Resources: 2 created, 1 updated, 0 replaced, 0 deleted.");
    expect(writes).toEqual([
      `PUT zones/${ZONE.com}/page_shield`,
      `POST zones/${ZONE.com}/page_shield/policies`,
      `POST zones/${ZONE.com}/page_shield/policies`,
    ]);
    const log = await emu.requests();
    const put = log.find((r) => r.method === "PUT")!;
    // Every setting the live answer states, with the change.
    expect(put.body).toEqual({
      enabled: true,
      use_cloudflare_reporting_endpoint: true,
      use_connection_url_path: false,
    });
    const live = await emu.api<Array<{ description: string; action: string; enabled: unknown }>>(
      "GET",
      `zones/${ZONE.com}/page_shield/policies`,
    );
    expect(live.map((p) => p.description).sort()).toEqual(["Checkout allow-list", "Report everything"]);
  });

  it("reads with one settings GET and one policies list per zone, nothing more", async () => {
    const config = await writeConfig(header + zoneBlock(ZONE.com, "example.com", policies));
    await emu.clearRequests();
    await runCli(emu, ["plan", "-c", config]);
    expect(await emu.calls()).toEqual(
      expect.arrayContaining([`GET zones/${ZONE.com}/page_shield`, `GET zones/${ZONE.com}/page_shield/policies`]),
    );
    expect(await emu.calls()).toHaveLength(2);
  });

  it(
    "updates a changed policy in place with a word diff, deletes unlisted ones, keeps them with " + "prune: false",
    async () => {
      const config = await writeConfig(header + zoneBlock(ZONE.com, "example.com", policies));
      await converge(config);
      const old = await emu.api<{ id: string }>("POST", `zones/${ZONE.com}/page_shield/policies`, {
        description: "Hand-made",
        action: "log",
        expression: "true",
        value: "script-src 'self'",
        enabled: true,
      });
      const changed = policies.replace("https://js.stripe.com", "https://js.stripe.com https://www.paypal.com");
      const config2 = await writeConfig(header + zoneBlock(ZONE.com, "example.com", changed));
      await emu.clearRequests();
      const { plan1, writes } = await converge(config2);
      expect(plan1.stdout).toContain("{+https://www.paypal.com+}");
      expect(plan1.stdout).toContain(`- page_shield_policy "Hand-made" (id ${old.id})`);
      expect(writes).toEqual([
        expect.stringMatching(new RegExp(`^PUT zones/${ZONE.com}/page_shield/policies/[0-9a-f]+$`)),
        `DELETE zones/${ZONE.com}/page_shield/policies/${old.id}`,
      ]);
      // The PUT carries the whole policy (the emulator's PUT replaces it, as the real API may): the
      // expression, action and description survive a change of the value alone.
      const puts = (await emu.requests()).filter((r) => r.method === "PUT");
      expect(puts.map((r) => r.body)).toEqual([
        {
          description: "Checkout allow-list",
          action: "allow",
          expression: 'http.request.uri.path contains "/checkout"',
          value: "script-src 'self' https://js.stripe.com https://www.paypal.com",
          enabled: true,
        },
      ]);

      await emu.api("POST", `zones/${ZONE.com}/page_shield/policies`, {
        description: "Kept",
        action: "log",
        expression: "true",
        value: "script-src 'self'",
        enabled: true,
      });
      const keep = await writeConfig(
        header +
          zoneBlock(ZONE.com, "example.com", changed.replace("page_shield:\n", "page_shield:\n  prune: false\n")),
      );
      const plan = await runCli(emu, ["plan", "-c", keep, "--detailed-exitcode"]);
      expect(plan.code).toBe(0);
    },
  );

  it(
    "toggles settings off and on; of two policies sharing a description, the one the file pins is kept and " +
      "the other deleted (prune on)",
    async () => {
      const made: string[] = [];
      for (let i = 0; i < 2; i++) {
        made.push(
          (
            await emu.api<{ id: string }>("POST", `zones/${ZONE.com}/page_shield/policies`, {
              description: "Report everything",
              action: "log",
              expression: 'http.host eq "example.com"',
              value: "script-src 'none'",
              enabled: true,
            })
          ).id,
        );
      }
      const config = await writeConfig(
        header +
          zoneBlock(
            ZONE.com,
            "example.com",
            `page_shield:\n  enabled: false\n  use_connection_url_path: true\n  policies:\n    - id: ` +
              `${made[1]}\n      description: Report everything\n      action: log\n      expression: http.host ` +
              `eq "example.com"\n      value: script-src 'none'\n`,
          ),
      );
      const { plan1, writes } = await converge(config);
      expect(plan1.stdout).toContain(`- page_shield_policy "Report everything" (id ${made[0]})`);
      expect(writes).toEqual([
        `PUT zones/${ZONE.com}/page_shield`,
        `DELETE zones/${ZONE.com}/page_shield/policies/${made[0]}`,
      ]);
    },
  );

  it("plans several zones in one run, and limits to one with --zone", async () => {
    const config = await writeConfig(
      header +
        zoneBlock(ZONE.com, "example.com", policies) +
        zoneBlock(ZONE.net, "example.net", "page_shield:\n  enabled: true\n"),
    );
    const only = await runCli(emu, ["plan", "-c", config, "--zone", "example.net"]);
    expect(only.stdout).toContain("example.net");
    expect(only.stdout).not.toContain("example.com (");
    const { writes } = await converge(config);
    expect(writes.filter((w) => w.includes(ZONE.net))).toEqual([`PUT zones/${ZONE.net}/page_shield`]);
    expect(writes.filter((w) => w.includes(ZONE.com))).toHaveLength(3);
  });
});

describe("saved plans, safety and failures", () => {
  it("applies a saved plan, and refuses a stale one without writing anything", async () => {
    const dir = await tempDir();
    const config = await writeConfig(header + zoneBlock(ZONE.com, "example.com", policies), "zoneform.yaml", dir);
    const out = join(dir, "plan.json");
    const plan = await runCli(emu, ["plan", "-c", config, "--out", out]);
    expect(plan.code, plan.stderr).toBe(0);
    const doc = JSON.parse(await readFile(out, "utf8"));
    expect((await planValidator())(doc)).toBe(true);

    await emu.api("PUT", `zones/${ZONE.com}/page_shield`, { use_connection_url_path: true });
    await emu.clearRequests();
    const stale = await runCli(emu, ["apply", out]);
    expect(stale.code).toBe(1);
    expect(stale.stderr).toContain("stale");
    expect(stale.stderr).toContain("page_shield_settings/settings changed");
    expect(await emu.calls({ writesOnly: true })).toEqual([]);

    await emu.reset();
    const fresh = await runCli(emu, ["plan", "-c", config, "--out", out, "--force"]);
    expect(fresh.code).toBe(0);
    const applied = await runCli(emu, ["apply", out]);
    expect(applied.code, applied.stderr).toBe(0);
    expect((await runCli(emu, ["plan", "-c", config, "--detailed-exitcode"])).code).toBe(0);
  });

  it("refuses more deletes than safety.max_deletes unless --force, showing the plan first", async () => {
    for (let i = 0; i < 3; i++) {
      await emu.api("POST", `zones/${ZONE.com}/page_shield/policies`, {
        description: `p${i}`,
        action: "log",
        expression: "true",
        value: "script-src 'self'",
        enabled: true,
      });
    }
    const config = await writeConfig(
      `version: 1\nsafety: { max_deletes: 2 }\nzones:\n` +
        zoneBlock(ZONE.com, "example.com", "page_shield:\n  policies: []\n"),
    );
    await emu.clearRequests();
    const refused = await runCli(emu, ["apply", "-c", config, "--auto-approve"]);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain("Plan: 0 to create, 0 to update, 0 to replace, 3 to delete.");
    expect(refused.stderr).toContain("[example.com] too many deletes, 3 is over 2");
    expect(await emu.calls({ writesOnly: true })).toEqual([]);
    const forced = await runCli(emu, ["apply", "-c", config, "--auto-approve", "--force"]);
    expect(forced.code, forced.stderr).toBe(0);
    expect(await emu.calls({ writesOnly: true })).toHaveLength(3);
  });

  it("stops part-way with exit 4 and a report when a write fails, and a re-run converges", async () => {
    const config = await writeConfig(header + zoneBlock(ZONE.com, "example.com", policies));
    // Writes are PUT settings and two POSTs made at once (each policy is an object of its own): the
    // first POST to arrive fails with a 400 the client does not retry; the other was already sent.
    await emu.admin("POST", "/faults", {
      method: "POST",
      path: "page_shield/policies$",
      status: 400,
      code: 10001,
      count: 1,
    });
    await emu.clearRequests();
    const partial = await runCli(emu, ["apply", "-c", config, "--auto-approve"]);
    await emu.admin("DELETE", "/faults");
    expect(partial.code).toBe(4);
    expect(partial.stderr).toContain("apply stopped part-way: 2 change(s) made, 1 failed, 0 not attempted.");
    expect(partial.stderr).toMatch(
      /failed: +example.com: \+ page_shield_policy "(Checkout allow-list|Report everything)"/,
    );
    expect(partial.stderr).toMatch(
      /done: +example.com: \+ page_shield_policy "(Checkout allow-list|Report everything)"/,
    );
    expect((await emu.calls({ writesOnly: true })).sort()).toEqual(
      [
        `PUT zones/${ZONE.com}/page_shield`,
        `POST zones/${ZONE.com}/page_shield/policies`,
        `POST zones/${ZONE.com}/page_shield/policies`,
      ].sort(),
    );
    const rerun = await runCli(emu, ["apply", "-c", config, "--auto-approve"]);
    expect(rerun.code, rerun.stderr).toBe(0);
    expect((await runCli(emu, ["plan", "-c", config, "--detailed-exitcode"])).code).toBe(0);
  });

  it("asks for confirmation on a terminal and needs --auto-approve otherwise", async () => {
    const config = await writeConfig(header + zoneBlock(ZONE.com, "example.com", "page_shield:\n  enabled: true\n"));
    const noTty = await runCli(emu, ["apply", "-c", config]);
    expect(noTty.code).toBe(1);
    expect(noTty.stderr).toContain("--auto-approve");
    const no = await runCli(emu, ["apply", "-c", config], { answers: ["no"] });
    expect(no.code).toBe(1);
    expect(no.stderr).toContain("cancelled");
    const yes = await runCli(emu, ["apply", "-c", config], { answers: ["yes"] });
    expect(yes.code, yes.stderr).toBe(0);
  });

  it("drift exits 2 with a compact report, then 0 once applied", async () => {
    const config = await writeConfig(header + zoneBlock(ZONE.com, "example.com", policies));
    const drift = await runCli(emu, ["drift", "-c", config]);
    expect(drift.code).toBe(2);
    expect(drift.stdout).toMatch(/^example.com: drift \(2 create, 1 update, 0 replace, 0 delete\)/m);
    await runCli(emu, ["apply", "-c", config, "--auto-approve"]);
    const clean = await runCli(emu, ["drift", "-c", config]);
    expect(clean.code).toBe(0);
    expect(clean.stdout).toContain("No drift");
  });

  it("renders JSON that validates against schemas/plan.schema.json, and Markdown for a PR comment", async () => {
    const config = await writeConfig(header + zoneBlock(ZONE.com, "example.com", policies));
    const json = await runCli(emu, ["plan", "-c", config, "--format", "json"]);
    expect((await planValidator())(JSON.parse(json.stdout))).toBe(true);
    const md = await runCli(emu, ["plan", "-c", config, "--format", "markdown"]);
    expect(md.stdout).toContain("### zoneform plan");
    expect(md.stdout).toContain("```diff");
  });
});

describe("--shard", () => {
  it("plans only the zones of one shard, and the shards together cover the file", async () => {
    const config = await writeConfig(
      header +
        zoneBlock(ZONE.com, "example.com", "page_shield:\n  enabled: true\n") +
        zoneBlock(ZONE.net, "example.net", "page_shield:\n  enabled: true\n") +
        zoneBlock(ZONE.org, "example.org", "page_shield:\n  enabled: true\n"),
    );
    const seen: string[] = [];
    for (const k of [1, 2]) {
      await emu.clearRequests();
      const r = await runCli(emu, ["plan", "-c", config, "--shard", `${k}/2`]);
      expect(r.code, r.stderr).toBe(0);
      seen.push(...(await emu.calls()).map((c) => c.split("/")[1]!));
    }
    expect(seen.sort()).toEqual([ZONE.com, ZONE.net, ZONE.org].sort());
    const bad = await runCli(emu, ["plan", "-c", config, "--shard", "3/2"]);
    expect(bad.code).toBe(3);
    expect(bad.stderr).toContain("--shard 3/2");
  });
});

describe("saved plans with redacted secrets", () => {
  it("refuses to apply a plan whose call bodies were edited (here to hold (sensitive)), writing nothing", async () => {
    const dir = await tempDir();
    const config = await writeConfig(header + zoneBlock(ZONE.com, "example.com", policies), "zoneform.yaml", dir);
    const out = join(dir, "plan.json");
    expect((await runCli(emu, ["plan", "-c", config, "--out", out])).code).toBe(0);
    const doc = JSON.parse(await readFile(out, "utf8"));
    doc.zones[0].changes.at(-1).operations[0].body.value = "(sensitive)";
    const { writeFile } = await import("node:fs/promises");
    await writeFile(out, JSON.stringify(doc));
    await emu.clearRequests();
    const r = await runCli(emu, ["apply", out]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("was changed after it was made");
    expect(await emu.calls()).toEqual([]);
  });
});
