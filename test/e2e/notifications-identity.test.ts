// Notification policies: a name and an alert type are no identity (issue 46, point 7), end to end against
// the emulator. Each scenario is plan → apply → plan clean, with the exact writes from the request log:
// prune keeps another team's alerts (scoped to zones the file does not declare, or to none); an unpinned
// entry whose only match is scoped elsewhere stops the account, two matches too, until the file pins an id
// or renames the entry; one match scoped to the file's zones is updated in place; a pin takes any policy.
import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { ACCOUNT, TestEmulator, runCli, tempDir, writeConfig, ZONE } from "../helpers/cli.js";

const emu = TestEmulator.perFile();
const P = `accounts/${ACCOUNT}/alerting/v3/policies`;
const TYPE = "scriptmonitor_alert_new_malicious_scripts";

/** A file declaring example.com and example.net (example.org and example.dev are another team's). */
function file(notifications: string): string {
  return `version: 1
account_id: ${ACCOUNT}
accounts:
  - account_id: ${ACCOUNT}
    notifications:
${notifications}
zones:
  - zone_id: ${ZONE.com}
    name: example.com
  - zone_id: ${ZONE.net}
    name: example.net
`;
}

/** An entry of `notifications:` (its lines, indented), pinned when `id` is given. */
function entry(name: string, zones: string, id?: string): string {
  return `      - ${id ? `id: ${id}\n        ` : ""}name: ${name}
        alert_type: ${TYPE}
        zones: ${zones}
        email: [secops@example.com]
`;
}

/** Creates a live policy through the API (another team, or the dashboard) and returns its id. */
async function live(name: string, filters: Record<string, unknown>, type = TYPE): Promise<string> {
  const body = { name, alert_type: type, enabled: true, mechanisms: { email: [{ id: "them@example.com" }] }, filters };
  const res = await emu.call("POST", P, body);
  expect(res.status, JSON.stringify(res.body.errors)).toBe(200);
  return res.body.result.id as string;
}

async function byId(): Promise<Record<string, Record<string, any>>> {
  const list: Array<Record<string, any>> = (await emu.call("GET", P)).body.result;
  return Object.fromEntries(list.map((p) => [p.id, p]));
}

/** Applies the file and returns its writes as `METHOD path` with their bodies. */
async function applied(cfg: string): Promise<Array<[string, string, unknown]>> {
  await emu.clearRequests();
  const apply = await runCli(emu, ["apply", "-c", cfg, "--auto-approve"]);
  expect(apply.code, apply.stdout + apply.stderr).toBe(0);
  return (await emu.requests())
    .filter((r) => r.method !== "GET")
    .map((r) => [r.method, r.path.replace(/^\/client\/v4\//, ""), r.body]);
}

/** Plans the file again: no change, and only the one read of the account's policies. */
async function plansClean(cfg: string): Promise<string> {
  await emu.clearRequests();
  const again = await runCli(emu, ["plan", "-c", cfg, "--detailed-exitcode"]);
  expect(again.code, again.stdout + again.stderr).toBe(0);
  expect(await emu.calls()).toEqual([`GET ${P}`]);
  return again.stdout + again.stderr;
}

/** Plan and apply both stop on the account, write nothing, and say `message`. */
async function stops(cfg: string, ...message: string[]): Promise<void> {
  await emu.clearRequests();
  for (const command of ["plan", "apply"]) {
    const res = await runCli(emu, [command, "-c", cfg, ...(command === "apply" ? ["--auto-approve"] : [])]);
    expect(res.code, res.stdout + res.stderr).toBe(1);
    for (const m of message) expect(res.stdout + res.stderr).toContain(m);
  }
  expect(await emu.calls({ writesOnly: true })).toEqual([]);
}

describe("notifications: prune deletes only alerts scoped to the file's zones", () => {
  it("keeps another team's alert (their zones only) and an unscoped one, with how to take them over", async () => {
    const theirs = await live("Their skimmer alert", { zones: [ZONE.org] });
    const everyZone = await live("Account-wide skimmers", {});
    const mixed = await live("Shared", { zones: [ZONE.com, ZONE.dev] });
    const stale = await live("Old alert", { zones: [ZONE.com, ZONE.net] });
    const cfg = await writeConfig(file(entry("Malicious scripts", "[example.com]")));

    const plan = await runCli(emu, ["plan", "-c", cfg, "--detailed-exitcode"]);
    expect(plan.code, plan.stdout + plan.stderr).toBe(2);
    expect(plan.stdout).toContain("Plan: 1 to create, 0 to update, 0 to replace, 1 to delete.");
    const said = plan.stdout + plan.stderr;
    for (const id of [theirs, everyZone, mixed]) expect(said).toContain(`pin it: write \`id: ${id}\``);
    expect(said).toContain(`zone ${ZONE.org}, which this configuration does not declare`);
    expect(said).toContain("names no zone (it alerts on every zone of the account)");

    expect(await applied(cfg)).toEqual([
      [
        "POST",
        P,
        {
          name: "Malicious scripts",
          alert_type: TYPE,
          enabled: true,
          mechanisms: { email: [{ id: "secops@example.com" }] },
          filters: { zones: [ZONE.com] },
        },
      ],
      ["DELETE", `${P}/${stale}`, null],
    ]);
    const after = await byId();
    for (const id of [theirs, everyZone, mixed])
      expect(after[id]?.mechanisms).toEqual({ email: [{ id: "them@example.com" }] });
    expect(after[stale]).toBeUndefined();
    expect(await plansClean(cfg)).toContain(`pin it: write \`id: ${theirs}\``);
  });
});

describe("notifications: an unpinned entry takes a policy only when it is scoped to the file's zones", () => {
  it("stops on its one match scoped to another team's zone; renamed, it creates its own", async () => {
    const theirs = await live("Malicious scripts", { zones: [ZONE.org] });
    const cfg = await writeConfig(file(entry("Malicious scripts", "[example.com]")));
    await stops(
      cfg,
      `matches id ${theirs} (name "Malicious scripts", alert_type ${TYPE}) by its hints only`,
      `zone ${ZONE.org}, which this configuration does not declare`,
      `To take it over, pin it: write \`id: ${theirs}\` under the entry`,
      "rename the entry",
    );

    const renamed = await writeConfig(file(entry("Malicious scripts on the shop", "[example.com]")));
    const writes = await applied(renamed);
    expect(writes.map(([m, p]) => `${m} ${p}`)).toEqual([`POST ${P}`]);
    expect(writes[0]![2]).toMatchObject({ name: "Malicious scripts on the shop", filters: { zones: [ZONE.com] } });
    expect((await byId())[theirs]?.filters).toEqual({ zones: [ZONE.org] });
    await plansClean(renamed);
  });

  it("stops on two matches, even scoped to the file's zones; pinned, it takes one and prune the other", async () => {
    const a = await live("Malicious scripts", { zones: [ZONE.com] });
    const b = await live("Malicious scripts", { zones: [ZONE.net] });
    const cfg = await writeConfig(file(entry("Malicious scripts", "[example.com]")));
    await stops(cfg, "matches 2 live notification policies", a, b, "or rename the entry to create a new one");

    const pinned = await writeConfig(file(entry("Malicious scripts", "[example.com]", b)));
    expect((await applied(pinned)).map(([m, p]) => `${m} ${p}`).sort()).toEqual(
      [`DELETE ${P}/${a}`, `PUT ${P}/${b}`].sort(),
    );
    expect((await byId())[b]?.filters).toEqual({ zones: [ZONE.com] });
    await plansClean(pinned);
  });

  it("updates in place its one match scoped to the file's zones only", async () => {
    const ours = await live("Malicious scripts", { zones: [ZONE.net] });
    const cfg = await writeConfig(file(entry("Malicious scripts", "[example.com, example.net]")));
    expect(await applied(cfg)).toEqual([
      [
        "PUT",
        `${P}/${ours}`,
        {
          name: "Malicious scripts",
          alert_type: TYPE,
          enabled: true,
          mechanisms: { email: [{ id: "secops@example.com" }] },
          filters: { zones: [ZONE.com, ZONE.net] },
        },
      ],
    ]);
    await plansClean(cfg);
  });

  it("a pinned id is taken over whatever its filter names: another team's zone, or none", async () => {
    const theirs = await live("Malicious scripts", { zones: [ZONE.org] });
    const everyZone = await live("Everywhere", {});
    const cfg = await writeConfig(
      file(
        entry("Malicious scripts", "[example.com]", theirs) +
          `      - id: ${everyZone}
        name: Everywhere
        alert_type: ${TYPE}
        email: [secops@example.com]
`,
      ),
    );
    const writes = await applied(cfg);
    expect(writes.map(([m, p]) => `${m} ${p}`).sort()).toEqual([`PUT ${P}/${everyZone}`, `PUT ${P}/${theirs}`].sort());
    const after = await byId();
    expect(after[theirs]?.filters).toEqual({ zones: [ZONE.com] });
    expect(after[everyZone]?.mechanisms).toEqual({ email: [{ id: "secops@example.com" }] });
    await plansClean(cfg);
  });
});

describe("export: pins what its hints would not find again", () => {
  it("pins a policy scoped beyond the exported zones or unscoped, not one on them; the file plans clean", async () => {
    const onCom = await live("On the shop", { zones: [ZONE.com] });
    const onOrg = await live("Theirs", { zones: [ZONE.org] });
    const unscoped = await live("Everywhere", {});
    const out = `${await tempDir()}/zoneform.yaml`;
    const exported = await runCli(emu, ["export", "--zone", "example.com", "--account", ACCOUNT, "--out", out]);
    expect(exported.code, exported.stderr).toBe(0);
    const text = await readFile(out, "utf8");
    expect(text).not.toContain(`id: ${onCom}`);
    expect(text).toContain(`id: ${onOrg}`);
    expect(text).toContain(`id: ${unscoped}`);
    await emu.clearRequests();
    const plan = await runCli(emu, ["plan", "-c", out, "--detailed-exitcode"]);
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
  });
});
