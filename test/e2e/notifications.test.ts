// Page Shield alerts as code end to end against the emulator: `notifications:` of an entry of `accounts:`
// (Cloudflare Notifications policies) planned, applied and planned clean with the exact calls from the
// request log; the whole policy in a PUT (what the file does not manage sent back as live); a pinned id;
// two live policies a name matches stop the account with the candidates; prune deletes only Page Shield
// alerts (never other alerting) and `prune: false` nothing; an unknown zone name is a config error. Which
// policies are another team's: notifications-identity.test.ts.
import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { ACCOUNT, TestEmulator, runCli, tempDir, writeConfig, ZONE } from "../helpers/cli.js";

const emu = TestEmulator.perFile();
const P = `accounts/${ACCOUNT}/alerting/v3/policies`;
const HOOK = "b6a1c9e0d2f34e1c8f0a1b2c3d4e5f60";

function file(notifications: string, extra = ""): string {
  return `version: 1
account_id: ${ACCOUNT}
accounts:
  - account_id: ${ACCOUNT}
${extra}    notifications:
${notifications}
zones:
  - zone_id: ${ZONE.com}
    name: example.com
  - zone_id: ${ZONE.net}
    name: example.net
`;
}

const TWO = `      - name: Malicious scripts
        alert_type: scriptmonitor_alert_new_malicious_scripts
        zones: [example.com, ${ZONE.net}]
        email: [secops@example.com]
      - name: Changed scripts
        alert_type: scriptmonitor_alert_new_code_change_detections
        email: [secops@example.com, pci@example.com]
        webhooks: [${HOOK}]
`;

/** Creates a live policy through the API (before the log is cleared) and returns its id. */
async function live(body: Record<string, unknown>): Promise<string> {
  const res = await emu.call("POST", P, { enabled: true, mechanisms: { email: [{ id: "x@example.com" }] }, ...body });
  expect(res.status, JSON.stringify(res.body.errors)).toBe(200);
  return res.body.result.id as string;
}

async function policies(): Promise<Array<Record<string, any>>> {
  return (await emu.call("GET", P)).body.result;
}

describe("notifications: Page Shield alerts as code", () => {
  it("creates the declared policies, deletes a stale Page Shield alert, keeps other alerting, then plans clean", async () => {
    const billing = await live({ name: "Billing", alert_type: "billing_usage_alert" });
    // Scoped to a zone of the file: prune's (an unscoped one may be another team's: notifications-identity).
    const stale = await live({
      name: "Old new-hosts alert",
      alert_type: "scriptmonitor_alert_new_hosts",
      filters: { zones: [ZONE.com] },
    });
    const cfg = await writeConfig(file(TWO));

    const plan = await runCli(emu, ["plan", "-c", cfg, "--detailed-exitcode"]);
    expect(plan.code, plan.stdout + plan.stderr).toBe(2);
    expect(plan.stdout).toContain(`# account ${ACCOUNT}`);
    expect(plan.stdout).toContain("Plan: 2 to create, 0 to update, 0 to replace, 1 to delete.");

    await emu.clearRequests();
    const apply = await runCli(emu, ["apply", "-c", cfg, "--auto-approve"]);
    expect(apply.code, apply.stdout + apply.stderr).toBe(0);
    const writes = (await emu.requests()).filter((r) => r.method !== "GET");
    expect(writes.map((r) => [r.method, r.path.replace(/^\/client\/v4\//, ""), r.body])).toEqual(
      expect.arrayContaining([
        [
          "POST",
          P,
          {
            name: "Malicious scripts",
            alert_type: "scriptmonitor_alert_new_malicious_scripts",
            enabled: true,
            mechanisms: { email: [{ id: "secops@example.com" }] },
            filters: { zones: [ZONE.com, ZONE.net] },
          },
        ],
        [
          "POST",
          P,
          {
            name: "Changed scripts",
            alert_type: "scriptmonitor_alert_new_code_change_detections",
            enabled: true,
            mechanisms: {
              email: [{ id: "secops@example.com" }, { id: "pci@example.com" }],
              webhooks: [{ id: HOOK }],
            },
          },
        ],
        ["DELETE", `${P}/${stale}`, null],
      ]),
    );
    expect(writes).toHaveLength(3);
    const after = await policies();
    expect(after.map((p) => p.name).sort()).toEqual(["Billing", "Changed scripts", "Malicious scripts"]);
    expect(after.find((p) => p.id === billing)?.alert_type).toBe("billing_usage_alert");

    await emu.clearRequests();
    const again = await runCli(emu, ["plan", "-c", cfg, "--detailed-exitcode"]);
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(await emu.calls()).toEqual([`GET ${P}`]);
  });

  it("updates with a PUT of the whole policy: what the file does not manage is sent back as live", async () => {
    const res = await emu.call("POST", P, {
      name: "Malicious scripts",
      alert_type: "scriptmonitor_alert_new_malicious_scripts",
      enabled: false,
      description: "Page Shield: skimmers",
      alert_interval: "1h",
      mechanisms: { email: [{ id: "old@example.com" }], pagerduty: [{ id: "pd-service-1" }] },
      // A zone of the file: an unpinned entry takes only a policy scoped to the file's zones.
      filters: { zones: [ZONE.net], where: ["x"] },
    });
    const id = res.body.result.id as string;
    const cfg = await writeConfig(
      file(`      - name: Malicious scripts
        alert_type: scriptmonitor_alert_new_malicious_scripts
        zones: [example.com]
        email: [secops@example.com]
`),
    );
    await emu.clearRequests();
    const apply = await runCli(emu, ["apply", "-c", cfg, "--auto-approve"]);
    expect(apply.code, apply.stdout + apply.stderr).toBe(0);
    const writes = (await emu.requests()).filter((r) => r.method !== "GET");
    expect(writes.map((r) => [r.method, r.path.replace(/^\/client\/v4\//, ""), r.body])).toEqual([
      [
        "PUT",
        `${P}/${id}`,
        {
          name: "Malicious scripts",
          alert_type: "scriptmonitor_alert_new_malicious_scripts",
          enabled: true,
          description: "Page Shield: skimmers",
          alert_interval: "1h",
          mechanisms: { pagerduty: [{ id: "pd-service-1" }], email: [{ id: "secops@example.com" }] },
          filters: { where: ["x"], zones: [ZONE.com] },
        },
      ],
    ]);
    const again = await runCli(emu, ["plan", "-c", cfg, "--detailed-exitcode"]);
    expect(again.code, again.stdout + again.stderr).toBe(0);
  });

  it("a pinned id renames the policy it names; two live policies a name matches stop the account", async () => {
    const a = await live({ name: "Dup", alert_type: "scriptmonitor_alert_new_resources" });
    const b = await live({ name: "Dup", alert_type: "scriptmonitor_alert_new_resources" });
    const ambiguous = await writeConfig(
      file(`      - name: Dup
        alert_type: scriptmonitor_alert_new_resources
        email: [secops@example.com]
`),
    );
    await emu.clearRequests();
    const stopped = await runCli(emu, ["apply", "-c", ambiguous, "--auto-approve"]);
    expect(stopped.code).toBe(1);
    expect(stopped.stderr + stopped.stdout).toContain("matches 2 live notification policies");
    expect(stopped.stderr + stopped.stdout).toContain(a);
    expect(stopped.stderr + stopped.stdout).toContain(b);
    expect(stopped.stderr + stopped.stdout).toContain("id: <id>");
    expect(await emu.calls({ writesOnly: true })).toEqual([]);

    const pinned = await writeConfig(
      file(
        `      - id: ${b}
        name: New scripts (pinned)
        alert_type: scriptmonitor_alert_new_resources
        email: [secops@example.com]
`,
        "    prune: false\n",
      ),
    );
    await emu.clearRequests();
    const apply = await runCli(emu, ["apply", "-c", pinned, "--auto-approve"]);
    expect(apply.code, apply.stdout + apply.stderr).toBe(0);
    // prune: false: the other "Dup" stays; the pinned one is renamed in place.
    expect(await emu.calls({ writesOnly: true })).toEqual([`PUT ${P}/${b}`]);
    const names = Object.fromEntries((await policies()).map((p) => [p.id, p.name]));
    expect(names).toEqual({ [a]: "Dup", [b]: "New scripts (pinned)" });
    expect((await runCli(emu, ["plan", "-c", pinned, "--detailed-exitcode"])).code).toBe(0);
  });

  it("a create whose answer was lost is found and adopted, never sent twice", async () => {
    const cfg = await writeConfig(file(TWO));
    await emu.fault({ method: "POST", path: "alerting/v3/policies$", reset: true, after: true, count: 1 });
    await emu.clearRequests();
    // One at a time: the first POST's answer is lost (the policy is made) and it is adopted. Whether later
    // creates into the list go in the same run is the engine's rule (src/engine/execute.ts): not asserted.
    const first = await runCli(emu, ["apply", "-c", cfg, "--auto-approve", "--parallelism", "1"]);
    expect(first.stderr + first.stdout).toContain("adopted");
    const posts = (await emu.calls({ writesOnly: true })).filter((c) => c === `POST ${P}`);
    const made = (await policies()).map((p) => p.name);
    // Every POST made one policy, none twice.
    expect(made).toHaveLength(posts.length);
    expect(new Set(made).size).toBe(made.length);
    const second = await runCli(emu, ["apply", "-c", cfg, "--auto-approve"]);
    expect(second.code, second.stdout + second.stderr).toBe(0);
    expect((await policies()).map((p) => p.name).sort()).toEqual(["Changed scripts", "Malicious scripts"]);
    expect((await runCli(emu, ["plan", "-c", cfg, "--detailed-exitcode"])).code).toBe(0);
  });

  it("a zone named in zones: that the file does not declare is a configuration error (exit 3)", async () => {
    const cfg = await writeConfig(
      file(`      - name: Malicious scripts
        alert_type: scriptmonitor_alert_new_malicious_scripts
        zones: [shop.example]
        email: [secops@example.com]
`),
    );
    const res = await runCli(emu, ["validate", "-c", cfg]);
    expect(res.code).toBe(3);
    expect(res.stderr).toContain('no zone of this file is named "shop.example"');
  });
});

describe("audit: the Page Shield alerting of each zone (PCI DSS 11.6.1 evidence)", () => {
  it("lists the policies covering each zone, escaped, and finds the zone no alert covers", async () => {
    const hostile = "Skimmers | <b>now</b> `x`";
    const cfg = await writeConfig(
      file(`      - name: "${hostile}"
        alert_type: scriptmonitor_alert_new_malicious_scripts
        zones: [example.com]
        email: [secops@example.com]
        webhooks: [${HOOK}]
      - name: Changed scripts (off)
        alert_type: scriptmonitor_alert_new_code_change_detections
        enabled: false
        email: [pci@example.com]
`),
    );
    await live({ name: "Billing", alert_type: "billing_usage_alert" });
    const apply = await runCli(emu, ["apply", "-c", cfg, "--auto-approve"]);
    expect(apply.code, apply.stdout + apply.stderr).toBe(0);
    const id = (await policies()).find((p) => p.name === hostile)!.id as string;

    await emu.clearRequests();
    const md = await runCli(emu, ["audit", "-c", cfg, "--format", "markdown", "--fail-on", "none"]);
    expect(md.code, md.stderr).toBe(0);
    const sections = md.stdout.split("## Zone ");
    const com = sections.find((s) => s.startsWith(`\`${ZONE.com}\``))!;
    const net = sections.find((s) => s.startsWith(`\`${ZONE.net}\``))!;
    expect(com).toContain("### Notification policies for the Page Shield alerts (PCI DSS v4.0.1 11.6.1)");
    expect(com).toContain(id);
    expect(com).toContain("secops@example.com");
    expect(com).toContain(HOOK);
    expect(com).toContain("this zone (scoped)");
    expect(com).toContain("**disabled**");
    expect(com).not.toContain("<b>now</b>");
    expect(com).not.toContain("Skimmers | <b>");
    expect(com).not.toContain("**no-alerting**");
    expect(com).not.toContain("Billing");
    // example.net: only the disabled, unscoped policy covers it.
    expect(net).toContain("Changed scripts (off)");
    expect(net).toContain("**no-alerting** (11.6.1, medium)");
    // One read of the account's policies serves both zones.
    expect((await emu.calls()).filter((c) => c === `GET ${P}`)).toHaveLength(1);

    const json = await runCli(emu, ["audit", "-c", cfg, "--format", "json", "--fail-on", "alerting"]);
    expect(json.code).toBe(2);
    const doc = JSON.parse(json.stdout);
    const byZone = Object.fromEntries(doc.zones.map((z: any) => [z.zone_id, z.alerting]));
    expect(byZone[ZONE.com].findings).toEqual([]);
    expect(byZone[ZONE.com].policies.map((p: any) => [p.name, p.scope, p.enabled])).toEqual(
      expect.arrayContaining([
        [hostile, "zone", true],
        ["Changed scripts (off)", "account", false],
      ]),
    );
    expect(byZone[ZONE.com].policies).toHaveLength(2);
    expect(byZone[ZONE.net].findings.map((f: any) => f.type)).toEqual(["no-alerting"]);
    expect(doc.totals).toMatchObject({ alerting_checked: 2, no_alerting: 1 });
  });
});

describe("export --account: the account's Page Shield alerts", () => {
  it("writes every Page Shield alert (not other alerting), pins repeated names, and plans clean", async () => {
    await live({ name: "Billing", alert_type: "billing_usage_alert" });
    const scoped = await live({
      name: "Malicious scripts",
      alert_type: "scriptmonitor_alert_new_malicious_scripts",
      description: "kept as live",
      mechanisms: { email: [{ id: "secops@example.com" }], webhooks: [{ id: HOOK }] },
      filters: { zones: [ZONE.com] },
    });
    const one = await live({ name: "Twice", alert_type: "scriptmonitor_alert_new_hosts", enabled: false });
    const two = await live({ name: "Twice", alert_type: "scriptmonitor_alert_new_hosts" });
    const dir = await tempDir();
    const out = `${dir}/account.yaml`;
    const exported = await runCli(emu, ["export", "--account", ACCOUNT, "--out", out]);
    expect(exported.code, exported.stderr).toBe(0);
    const text = await readFile(out, "utf8");
    expect(text).toContain("notifications:");
    expect(text).not.toContain("Billing");
    expect(text).toContain(`id: ${one}`);
    expect(text).toContain(`id: ${two}`);
    // Its zone is not exported with the account: only its id finds it again.
    expect(text).toContain(`id: ${scoped}`);
    expect(text).toContain("description kept as live");

    await emu.clearRequests();
    const plan = await runCli(emu, ["plan", "-c", out, "--detailed-exitcode"]);
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
    expect((await emu.calls()).sort()).toEqual([`GET ${P}`, `GET accounts/${ACCOUNT}/logpush/jobs`].sort());
  });
});
