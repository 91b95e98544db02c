// A saved plan is applied only if it is exactly what zoneform plans for the desired state it carries:
// each edit an attacker (or a broken pipeline) could make to plan.json is refused with nothing written,
// whether to what it does or to what it shows (`show` refuses what it can tell without the API; apply
// plans again and names what differs), and so is a plan not made from the configuration given with
// -c; the digest printed by `plan` is the one `apply` applies, in every process, with `${env:…}`
// values; and two applies on the same zones from one machine are refused by a lock.
import { spawn } from "node:child_process";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { runDemo } from "../../src/cli/demo.js";
import { memoryIO } from "../../src/cli/io.js";
import { createClient } from "../../src/cloudflare/client.js";
import { parseConfigText } from "../../src/config/index.js";
import { executePlan } from "../../src/engine/execute.js";
import { planZones } from "../../src/engine/plan.js";
import { planDigest } from "../../src/plan/digest.js";
import { TOKEN, TestEmulator, ZONE, runCli, tempDir, writeConfig } from "../helpers/cli.js";
import { CHECKOUT } from "../helpers/configs.js";

const emu = TestEmulator.perFile();
const STACK = /Internal error|\n\s+at \S/;

const { CONFIG, ENV } = CHECKOUT;

interface PlanDoc {
  format_version: number;
  digest: string;
  created_at: string;
  safety: { max_deletes: number };
  summary: Record<"create" | "update" | "replace" | "delete", number>;
  inputs?: { kdf: Record<string, unknown>; salt: string; names: string[]; hash: string };
  zones: Array<{
    zone_id: string;
    name?: string;
    desired: Record<string, any>;
    warnings: string[];
    errors: string[];
    changes: Array<{
      kind: string;
      resource: string;
      identity: string;
      zone_id: string;
      live_id?: string;
      summary?: string;
      notes?: string[];
      before?: any;
      after?: any;
      fields: Array<{ field: string; before?: unknown; after?: unknown }>;
      operations: Array<{ method: string; path: string; body?: any }>;
    }>;
  }>;
}

/** The plan's change of `resource`. */
const changeOf = (doc: PlanDoc, resource: string) => doc.zones[0]!.changes.find((c) => c.resource === resource)!;

/** The digest a plan edited by hand gets when its editor digests it again (what the Action then reviews). */
function redigested(doc: PlanDoc): PlanDoc {
  const { digest: _old, ...rest } = doc;
  return { ...rest, digest: planDigest(rest as never) };
}

/** `zoneform show` of a plan written to `file`. */
async function showEdited(file: string, doc: unknown) {
  await writeFile(file, JSON.stringify(doc));
  const r = await runCli(undefined, ["show", file]);
  expect(r.stderr).not.toMatch(STACK);
  return r;
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

const CLI = fileURLToPath(new URL("../../dist/cli/zoneform.js", import.meta.url));

/** The built CLI in a process of its own, on the emulator. */
function builtPlan(
  argv: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [CLI, ...argv, "--api-url", emu.url], {
    env: { PATH: process.env.PATH, CLOUDFLARE_API_TOKEN: TOKEN, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, stdout, stderr })));
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

  it("refuses, in show and apply, a plan whose display was edited under its old digest, writing nothing", async () => {
    const { file, doc } = await savedPlan();
    const edits: Array<[string, (d: PlanDoc) => void]> = [
      ["a field", (d) => (changeOf(d, "page_shield_policy").fields[0]!.after = "Checkout other")],
      ["a change's summary", (d) => (changeOf(d, "page_shield_settings").summary = "nothing to see")],
      ["a note", (d) => (changeOf(d, "page_shield_policy").notes = ["reviewed by security"])],
      ["the zone's name", (d) => (d.zones[0]!.name = "example.org")],
      ["the counts", (d) => (d.summary = { create: 0, update: 1, replace: 0, delete: 0 })],
      ["the value before", (d) => (changeOf(d, "page_shield_settings").before = { enabled: true })],
      ["the value after", (d) => (changeOf(d, "page_shield_policy").after = {})],
      ["the warnings", (d) => (d.zones[0]!.warnings = ["all is well"])],
      ["the errors", (d) => (d.zones[0]!.errors = ["made up"])],
    ];
    for (const [what, edit] of edits) {
      const edited = structuredClone(doc);
      edit(edited);
      const shown = await showEdited(file, edited);
      expect(shown.code, what).toBe(1);
      expect(shown.stderr, what).toContain(`the plan file ${file} was changed after it was made`);
      expect(shown.stdout, what).toBe("");
      const r = await applyEdited(file, edited, ["-c", await writeConfig(CONFIG), "--expect-digest", doc.digest]);
      expect(r.code, what).toBe(1);
      expect(r.stderr, what).toContain("was changed after it was made");
      expect(await emu.calls(), what).toEqual([]);
    }
  });

  it("refuses a display edited and digested again: show where it can tell offline, apply naming what differs", async () => {
    const { file, doc } = await savedPlan();
    // What show tells without the API: counts, a field against the body sent, a kind, a zone's name.
    const offline: Array<[string, (d: PlanDoc) => void, string]> = [
      [
        "the counts",
        (d) => (d.summary = { create: 0, update: 2, replace: 0, delete: 0 }),
        'its summary says "0 to create, 2 to update, 0 to replace, 0 to delete.", its changes make "1 to create, ' +
          '1 to update, 0 to replace, 0 to delete."',
      ],
      [
        "a field",
        (d) => (changeOf(d, "page_shield_settings").fields[0]!.after = false),
        'example.com: update page_shield_settings "settings" shows enabled as another value than its call sends',
      ],
      [
        "a kind",
        (d) => {
          changeOf(d, "page_shield_settings").kind = "delete";
          d.summary = { create: 1, update: 0, replace: 0, delete: 1 };
        },
        'example.com: delete page_shield_settings "settings" is shown as a delete, but its calls are PUT',
      ],
      [
        "the zone's name",
        (d) => (d.zones[0]!.name = "example.org"),
        `zone ${ZONE.com} is shown as "example.org", its desired state names it "example.com"`,
      ],
    ];
    for (const [what, edit, named] of offline) {
      const edited = structuredClone(doc);
      edit(edited);
      const forged = redigested(edited);
      const shown = await showEdited(file, forged);
      expect(shown.code, what).toBe(1);
      expect(shown.stderr, what).toContain(`the plan file ${file} shows what its operations do not do`);
      expect(shown.stderr, what).toContain(named);
      const r = await applyEdited(file, forged, ["--expect-digest", forged.digest]);
      expect(r.code, what).toBe(1);
      expect(r.stderr, what).toContain(named);
      expect(await emu.calls(), what).toEqual([]);
    }
    // What only the re-plan tells (texts, re-digested): `show`, offline, cannot tell them from zoneform's
    // own (docs/commands/show.md says so); apply, reading the zone again, names what differs.
    const texts: Array<[string, (d: PlanDoc) => void, string]> = [
      [
        "a change's summary",
        (d) => (changeOf(d, "page_shield_settings").summary = "nothing to see"),
        'page_shield_settings "settings": the file shows its summary otherwise than zoneform plans now',
      ],
      [
        "a note",
        (d) => (changeOf(d, "page_shield_policy").notes = ["reviewed by security"]),
        'page_shield_policy "Checkout ${env:SUFFIX}": the file shows its notes otherwise than zoneform plans now',
      ],
      [
        "the warnings",
        (d) => (d.zones[0]!.warnings = ["all is well"]),
        "example.com: the file shows other warnings than zoneform finds now",
      ],
    ];
    for (const [what, edit, named] of texts) {
      const edited = structuredClone(doc);
      edit(edited);
      const forged = redigested(edited);
      const r = await applyEdited(file, forged, ["--expect-digest", forged.digest]);
      expect(r.code, what).toBe(1);
      expect(r.stderr, what).toContain(
        "the saved plan is not what zoneform plans for the desired state it carries; nothing was written",
      );
      expect(r.stderr, what).toContain(named);
      expect(r.writes, what).toEqual([]);
    }
  });

  it("refuses bound values made with other KDF parameters or under another salt, even digested again", async () => {
    const { file, doc } = await savedPlan();
    expect(doc.inputs!.kdf).toEqual({ name: "scrypt", n: 16384, r: 10, p: 1 });
    const weak = structuredClone(doc);
    weak.inputs!.kdf = { name: "scrypt", n: 1024, r: 1, p: 1 };
    const salted = structuredClone(doc);
    salted.inputs!.salt = "0".repeat(32);
    const raised = structuredClone(doc);
    raised.inputs!.kdf = { name: "scrypt", n: 32768, r: 8, p: 1 };
    for (const [what, edited, named] of [
      ["weaker parameters", weak, "are weaker than zoneform allows"],
      ["another salt", salted, "the salt of its bound values is not the one derived from its content"],
    ] as const) {
      const forged = redigested(edited);
      const shown = await showEdited(file, forged);
      expect(shown.code, what).toBe(1);
      expect(shown.stderr, what).toContain(named);
      const r = await applyEdited(file, forged, ["--expect-digest", forged.digest]);
      expect(r.code, what).toBe(1);
      expect(r.stderr, what).toContain(named);
      expect(await emu.calls(), what).toEqual([]);
    }
    // Parameters within bounds but not the ones the hashes were made with: the values do not match.
    const forged = redigested(raised);
    const r = await applyEdited(file, forged, ["--expect-digest", forged.digest]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("${env:SUFFIX} has another value than when the plan was made");
    expect(await emu.calls()).toEqual([]);
  });

  it("refuses a re-digested summary text in a plan with no reference (show cannot tell; apply can)", async () => {
    const { file, doc } = await savedPlan(CONFIG.replaceAll("${env:SUFFIX}", "stripe"));
    expect(doc.inputs).toBeUndefined();
    const edited = structuredClone(doc);
    changeOf(edited, "page_shield_settings").summary = "nothing to see";
    const forged = redigested(edited);
    // Nothing in the file says the summary text is not zoneform's: show shows it (the digest is the forged one).
    const shown = await showEdited(file, forged);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain(`Plan digest: ${forged.digest}`);
    const r = await applyEdited(file, forged, ["--expect-digest", forged.digest]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      'example.com: page_shield_settings "settings": the file shows its summary otherwise than zoneform plans now',
    );
    expect(r.writes).toEqual([]);
  });

  it("applies a plan with -c only when it was made from that configuration, zone by zone and section by section", async () => {
    const { file, doc } = await savedPlan();
    const other = CONFIG.replace("enabled: true", "enabled: false");
    const changed = await applyEdited(file, doc, ["-c", await writeConfig(other), "--expect-digest", doc.digest]);
    expect(changed.code).toBe(1);
    expect(changed.stderr).toContain(`Error: the plan file ${file} was not made from the configuration `);
    expect(changed.stderr).toContain(
      `; nothing was read or written:\n  example.com (${ZONE.com}): page_shield differs\n` +
        "Make the plan again from this configuration and review it.",
    );
    expect(await emu.calls()).toEqual([]);
    const twoZones = `${CONFIG}  - zone_id: ${ZONE.net}\n    name: example.net\n    page_shield: { enabled: true }\n`;
    const more = await applyEdited(file, doc, ["-c", await writeConfig(twoZones)]);
    expect(more.code).toBe(1);
    expect(more.stderr).toContain(`example.net (${ZONE.net}): in the configuration, not in the plan`);
    expect(await emu.calls()).toEqual([]);
    // --zone keeps the same zones of both: the plan of example.com is the configuration's example.com.
    const selected = await applyEdited(file, doc, [
      "-c",
      await writeConfig(twoZones),
      "--zone",
      "example.com",
      "--expect-digest",
      doc.digest,
      "--auto-approve",
    ]);
    expect(selected.code, selected.stderr).toBe(0);
    expect(selected.stdout).toContain(`Applying plan ${doc.digest}`);
    expect(selected.writes).toEqual([
      `PUT zones/${ZONE.com}/page_shield`,
      `POST zones/${ZONE.com}/page_shield/policies`,
    ]);
    const again = await runCli(emu, ["plan", "-c", await writeConfig(CONFIG), "--detailed-exitcode"], { env: ENV });
    expect(again.code, again.stdout).toBe(0);
  });

  it("gives the same digest in every process for the same file, zone and values, and another for another value", async () => {
    const cfg = await writeConfig(CONFIG);
    const run = (env: Record<string, string>, now: string) =>
      builtPlan(["plan", "-c", cfg], { ...env, ZONEFORM_NOW: now });
    const first = await run(ENV, "2026-11-22T00:00:00.000Z");
    const second = await run(ENV, "2026-11-23T12:00:00.000Z");
    const other = await run({ SUFFIX: "paypal" }, "2026-11-22T00:00:00.000Z");
    for (const r of [first, second, other]) expect(r.code, r.stderr).toBe(0);
    const digestOf = (out: string) => /^Plan digest: (sha256:[0-9a-f]{64})$/m.exec(out)?.[1];
    expect(digestOf(first.stdout)).toMatch(/^sha256:/);
    expect(digestOf(second.stdout)).toBe(digestOf(first.stdout));
    expect(digestOf(other.stdout)).not.toBe(digestOf(first.stdout));
    // In this process too, and apply -c applies (and prompts with) that very digest.
    const here = await runCli(emu, ["plan", "-c", cfg], { env: ENV });
    expect(digestOf(here.stdout)).toBe(digestOf(first.stdout));
    const prompted = await runCli(emu, ["apply", "-c", cfg], { env: ENV, answers: ["no"] });
    expect(prompted.code).toBe(1);
    expect(prompted.stdout).toContain(`Plan digest: ${digestOf(first.stdout)}\n`);
    const applied = await runCli(emu, ["apply", "-c", cfg, "--auto-approve"], { env: ENV });
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toContain(`Applying plan ${digestOf(first.stdout)}\n`);
  });

  it("runs the demo with one digest: the one plan prints is the one apply applies", async () => {
    const { io, stdout, stderr } = memoryIO({ env: {} });
    expect(await runDemo(io), stderr()).toBe(0);
    const planned = /^Plan digest: (sha256:[0-9a-f]{64})$/m.exec(stdout())?.[1];
    const applied = /^Applying plan (sha256:[0-9a-f]{64})$/m.exec(stdout())?.[1];
    expect(planned).toMatch(/^sha256:/);
    expect(applied).toBe(planned);
    expect(stdout()).toContain(`apply applied the plan whose digest plan printed (${planned})`);
  });

  it("refuses an edited body even when the recorded digest is removed: the re-plan differs", async () => {
    const { file, doc } = await savedPlan();
    const { digest: _d, ...rest } = doc;
    // The body alone: it sends another value than the field shows (show and apply tell without the API).
    rest.zones[0]!.changes[1]!.operations[0]!.body.value = "script-src *";
    const shown = await showEdited(file, rest);
    expect(shown.code).toBe(1);
    expect(shown.stderr).toContain(
      `the plan file ${file} shows what its operations do not do; nothing was read or written:\n` +
        '  example.com: create page_shield_policy "Checkout ${env:SUFFIX}" shows value as another value than its ' +
        "call sends",
    );
    const alone = await applyEdited(file, rest);
    expect(alone.code).toBe(1);
    expect(alone.stderr).toContain("shows value as another value than its call sends");
    expect(await emu.calls()).toEqual([]);
    // The field edited with it: only the re-plan tells.
    rest.zones[0]!.changes[1]!.fields.find((f) => f.field === "value")!.after = "script-src *";
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
    rest.zones[0]!.changes[1]!.fields.find((f) => f.field === "value")!.after = "${env:CLOUDFLARE_API_TOKEN}";
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
    added.summary.delete += 1;
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
      const report = await executePlan(plan, { client, secrets: desired.secrets });
      // The description holds a reference: every line shows it hidden.
      expect(report.failed).toEqual([
        `example.com: + page_shield_policy "Checkout (sensitive)": page_shield_policy "Checkout (sensitive)" now ` +
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
