// A saved plan is applied only if it is exactly what zoneform plans for the desired state it carries:
// each edit an attacker (or a broken pipeline) could make to plan.json is refused with nothing written,
// the digest printed by `plan` is the one `apply` applies, and two applies on the same zones from one
// machine are refused by a lock.
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createClient } from "../../src/cloudflare/client.js";
import { parseConfigText } from "../../src/config/index.js";
import { executePlan } from "../../src/engine/execute.js";
import { planZones } from "../../src/engine/plan.js";
import { TOKEN, TestEmulator, ZONE, runCli, tempDir, writeConfig } from "../helpers/cli.js";
import { CHECKOUT } from "../helpers/configs.js";

const emu = TestEmulator.perFile();
const STACK = /Internal error|\n\s+at \S/;

const { CONFIG, ENV } = CHECKOUT;

interface PlanDoc {
  digest: string;
  safety: { max_deletes: number };
  zones: Array<{
    zone_id: string;
    desired: Record<string, any>;
    changes: Array<{
      kind: string;
      resource: string;
      identity: string;
      zone_id: string;
      fields: unknown[];
      operations: Array<{ method: string; path: string; body?: any }>;
    }>;
  }>;
}

async function savedPlan(config = CONFIG): Promise<{ file: string; doc: PlanDoc; stdout: string }> {
  const cfg = await writeConfig(config);
  const file = join(await tempDir(), "plan.json");
  const r = await runCli(emu, ["plan", "-c", cfg, "--out", file], { env: ENV });
  expect(r.code, r.stderr).toBe(0);
  return { file, doc: JSON.parse(await readFile(file, "utf8")), stdout: r.stdout };
}

async function applyEdited(file: string, doc: unknown, extra: string[] = [], env: NodeJS.ProcessEnv = ENV) {
  await writeFile(file, JSON.stringify(doc));
  await emu.clearRequests();
  const r = await runCli(emu, ["apply", file, ...extra], { env });
  expect(r.stderr).not.toMatch(STACK);
  return { ...r, writes: await emu.calls({ writesOnly: true }) };
}

describe("saved plan integrity", () => {
  it("applies an untouched plan, printing the digest plan printed, then plans no change", async () => {
    const { file, doc, stdout } = await savedPlan();
    expect(stdout).toContain(`Plan digest: ${doc.digest}`);
    expect(doc.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    // The desired state is carried as written: references, never the values.
    expect(JSON.stringify(doc.zones[0]!.desired)).toContain("Checkout ${env:SUFFIX}");
    await emu.clearRequests();
    const r = await runCli(emu, ["apply", file, "--expect-digest", doc.digest], { env: ENV });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`Applying plan ${doc.digest}`);
    expect(await emu.calls({ writesOnly: true })).toEqual([
      `PUT zones/${ZONE.com}/page_shield`,
      `POST zones/${ZONE.com}/page_shield/policies`,
    ]);
    const again = await runCli(emu, ["plan", "-c", await writeConfig(CONFIG), "--detailed-exitcode"], { env: ENV });
    expect(again.code, again.stdout).toBe(0);
  });

  it("refuses a plan whose body was edited (the digest no longer matches), writing nothing", async () => {
    const { file, doc } = await savedPlan();
    doc.zones[0]!.changes[1]!.operations[0]!.body.value = "script-src *";
    const r = await applyEdited(file, doc);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`the plan file ${file} was changed after it was made`);
    expect(r.writes).toEqual([]);
  });

  it("refuses an edited body even when the recorded digest is removed: the re-plan differs", async () => {
    const { file, doc } = await savedPlan();
    const { digest: _d, ...rest } = doc;
    rest.zones[0]!.changes[1]!.operations[0]!.body.value = "script-src *";
    const r = await applyEdited(file, rest);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      "the saved plan is not what zoneform plans for the desired state it carries; nothing was written",
    );
    expect(r.stderr).toContain('page_shield_policy "Checkout ${env:SUFFIX}": the body of POST');
    expect(r.writes).toEqual([]);
  });

  it("never sends ${env:CLOUDFLARE_API_TOKEN} written into a body or into the desired state", async () => {
    const { file, doc } = await savedPlan();
    const { digest: _d, ...rest } = doc;
    rest.zones[0]!.changes[1]!.operations[0]!.body.value = "${env:CLOUDFLARE_API_TOKEN}";
    const inBody = await applyEdited(file, rest);
    expect(inBody.code).toBe(1);
    expect(inBody.writes).toEqual([]);
    rest.zones[0]!.desired.page_shield.policies[0].value = "${env:CLOUDFLARE_API_TOKEN}";
    const inDesired = await applyEdited(file, rest);
    expect(inDesired.code).toBe(3);
    expect(inDesired.stderr).toContain(
      "'${env:CLOUDFLARE_API_TOKEN}' is zoneform's own API credential; it is never written into a zone",
    );
    expect(inDesired.writes).toEqual([]);
    expect(inBody.stdout + inBody.stderr + inDesired.stdout + inDesired.stderr).not.toContain("emulator-token");
  });

  it("refuses an operation pointed at another zone, and an added DELETE", async () => {
    const { file, doc } = await savedPlan();
    const moved = structuredClone(doc);
    moved.zones[0]!.changes[0]!.operations[0]!.path = `zones/${ZONE.net}/page_shield`;
    const r1 = await applyEdited(file, moved);
    expect(r1.code).toBe(3);
    expect(r1.stderr).toContain(
      `has operations that do not address the zone they belong to (zone ${ZONE.com}: PUT ` +
        `zones/${ZONE.net}/page_shield)`,
    );
    const { digest: _d, ...added } = structuredClone(doc);
    added.zones[0]!.changes.push({
      kind: "delete",
      resource: "page_shield_policy",
      zone_id: ZONE.com,
      identity: "x",
      fields: [],
      operations: [{ method: "DELETE", path: `zones/${ZONE.com}/rulesets/abc/rules/def` }],
    });
    const r2 = await applyEdited(file, added);
    expect(r2.code).toBe(1);
    expect(r2.stderr).toContain('has delete page_shield_policy "x" that zoneform does not plan now');
    expect([...r1.writes, ...r2.writes]).toEqual([]);
  });

  it("takes max_deletes from the desired state it re-validates, and a raised one changes the digest", async () => {
    await emu.api("POST", `zones/${ZONE.com}/page_shield/policies`, {
      description: "old",
      action: "log",
      expression: "true",
      value: "script-src 'self'",
      enabled: true,
    });
    const { file, doc } = await savedPlan();
    expect(doc.zones[0]!.changes.map((c) => c.kind)).toContain("delete");
    const refused = await applyEdited(file, doc);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("too many deletes, 1 is over 0 (safety.max_deletes)");
    const raised = { ...doc, safety: { max_deletes: 10 } };
    const r = await applyEdited(file, raised, ["--expect-digest", doc.digest]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/was changed after it was made|is sha256:[0-9a-f]+, not the reviewed/);
    expect([...refused.writes, ...r.writes]).toEqual([]);
  });

  it("refuses a plan whose variables are unset, naming them, before any call", async () => {
    const { file, doc } = await savedPlan();
    const r = await applyEdited(file, doc, [], {});
    expect(r.code).toBe(3);
    expect(r.stderr).toContain("environment variable SUFFIX is not set");
    expect(await emu.calls()).toEqual([]);
  });

  it("refuses a second apply on the same zone from this machine while one holds the lock", async () => {
    const dir = await tempDir("zoneform-locks-");
    await mkdir(dir, { recursive: true });
    // A live process (this test's) holds the lock of example.com on this emulator's API.
    const { createHash } = await import("node:crypto");
    const { hostname } = await import("node:os");
    const lock = join(dir, `${ZONE.com}-${createHash("sha256").update(emu.url).digest("hex").slice(0, 12)}.lock`);
    await writeFile(
      lock,
      JSON.stringify({ pid: process.pid, host: hostname(), command: "apply", started_at: "2026-11-22T00:00:00.000Z" }),
    );
    const cfg = await writeConfig(CONFIG);
    await emu.clearRequests();
    const r = await runCli(emu, ["apply", "-c", cfg, "--auto-approve"], { env: { ...ENV, ZONEFORM_LOCK_DIR: dir } });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `zone ${ZONE.com} is being applied by another zoneform (pid ${process.pid} on ${hostname()}, ` +
        `\`apply\`, since 2026-11-22T00:00:00.000Z); nothing was written`,
    );
    expect(await emu.calls()).toEqual([]);
    // A lock left by a process that is gone is taken over.
    await writeFile(
      lock,
      JSON.stringify({
        pid: 2 ** 22 + 12345,
        host: hostname(),
        command: "apply",
        started_at: "2026-11-22T00:00:00.000Z",
      }),
    );
    const ok = await runCli(emu, ["apply", "-c", cfg, "--auto-approve"], { env: { ...ENV, ZONEFORM_LOCK_DIR: dir } });
    expect(ok.code, ok.stderr).toBe(0);
  });

  it("stops a zone instead of duplicating when a policy it creates appeared meanwhile", async () => {
    const { file } = await savedPlan();
    // Someone else makes the policy between the re-plan and the create: simulated by a slow answer to
    // the re-plan's list read, during which the policy is created.
    await emu.admin("POST", "/faults", { method: "GET", path: "page_shield/policies$", delay_ms: 400, count: 1 });
    await emu.clearRequests();
    const pending = runCli(emu, ["apply", file], { env: ENV });
    await new Promise((resolve) => setTimeout(resolve, 150));
    await emu.api("POST", `zones/${ZONE.com}/page_shield/policies`, {
      description: "Checkout stripe",
      action: "log",
      expression: "true",
      value: "x",
      enabled: true,
    });
    const r = await pending;
    expect(r.stderr).not.toMatch(STACK);
    const policies = await emu.api<Array<{ description: string }>>("GET", `zones/${ZONE.com}/page_shield/policies`);
    expect(policies.filter((p) => p.description === "Checkout stripe")).toHaveLength(1);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/made by someone else since the plan read the zone|stale/);
  });

  it("checks before each create that nothing with its identity appeared since the plan read the zone", async () => {
    const client = createClient({ baseUrl: emu.url, auth: { token: TOKEN } });
    try {
      const { desired } = parseConfigText(CONFIG, "z.yaml", ENV);
      const plan = await planZones({ client, desired });
      // Another apply, elsewhere, makes the policy after this plan was made.
      const other = await emu.api<{ id: string }>("POST", `zones/${ZONE.com}/page_shield/policies`, {
        description: "Checkout stripe",
        action: "log",
        expression: "true",
        value: "x",
        enabled: true,
      });
      await emu.clearRequests();
      const report = await executePlan(plan, { client });
      expect(report.failed).toEqual([
        `example.com: + page_shield_policy "Checkout stripe": page_shield_policy "Checkout stripe" now ` +
          `exists in example.com (id ${other.id}), made by someone else since the plan read the zone (another ` +
          `apply?); it was not created again, and nothing more is written to this zone. Run plan again.`,
      ]);
      expect(report.uncertain).toEqual([]);
      expect(await emu.calls({ writesOnly: true })).toEqual([`PUT zones/${ZONE.com}/page_shield`]);
    } finally {
      await client.close();
    }
  });
});
