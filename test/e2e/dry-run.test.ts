// Issue 35: Cloudflare's own check before the first write. apply sends every ruleset write of the plan with
// `?dry_run=true` (the `cloudflare` SDK 7.3.0 documents it on the Rulesets writes: "Validates the request without
// persisting changes … Responses that normally return 200 return `result: null`") before it writes anything;
// a refusal stops the run with nothing written, so a zone is never left half applied (a Page Shield write made,
// then the OWASP write refused). `plan --verify` makes the same checks. Each case asserts the exact requests from
// the emulator's request log: a dry run is logged with its query.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  TestEmulator,
  ZONE,
  isDryRun,
  isWrite,
  runCli,
  tempDir,
  writeConfig,
  writesCheckedFirst,
  type LoggedRequest,
} from "../helpers/cli.js";
import { envelope, useHostileProxy } from "../attacks/helpers.js";

const emu = TestEmulator.perFile();
const hostile = useHostileProxy(emu);

const Z = ZONE.com;
const PHASE = "http_request_firewall_managed";
const OWASP = "4814384a9e5d4991b9815dcfc25d2f1f";
const CFM = "efb7b8c949ac4650a09736fc376e9aee";
const entrypoint = (zone: string) => `zones/${zone}/rulesets/phases/${PHASE}/entrypoint`;

const rel = (r: LoggedRequest) => `${r.method} ${r.path.replace(/^\/client\/v4\//, "")}`;
const owasp = (p: number, t: string) => `owasp: { enabled: true, paranoia_level: ${p}, score_threshold: ${t} }`;
const config = (zone: string, name: string, waf: string, pageShield = true) =>
  writeConfig(
    `version: 1\nzones:\n  - zone_id: ${zone}\n    name: ${name}\n` +
      `${pageShield ? "    page_shield: { enabled: true }\n" : ""}    waf:\n      ${waf.split("\n").join("\n      ")}\n`,
  );

/** A zone still on the previous WAF: Cloudflare refuses to deploy a managed ruleset there (until it migrates). */
async function legacyZone(): Promise<string> {
  return (
    await emu.admin<{ id: string }>("POST", "/zones", {
      name: "legacy.example",
      plan: "pro",
      waf_migration: "previous",
    })
  ).id;
}

/** The refusal Cloudflare (the emulator) answers for an execute rule on a zone on the previous WAF. */
const PREVIOUS_WAF = "still uses the previous WAF managed rules; migrate it first";

describe("apply: Cloudflare checks the ruleset writes before the first write", () => {
  it("a Page Shield change, then an OWASP change Cloudflare refuses: exit 1, zero writes, its message per write", async () => {
    const zone = await legacyZone();
    const file = await config(zone, "legacy.example", owasp(1, "medium"));
    const plan = await runCli(emu, ["plan", "-c", file]);
    expect(plan.stdout).toContain('~ page_shield_settings "settings"');
    expect(plan.stdout).toContain('+ waf_managed_rules "owasp"');
    await emu.clearRequests();
    const r = await runCli(emu, ["apply", "-c", file, "--auto-approve"]);
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(r.stderr).toContain(
      "Error: Cloudflare refused 1 of the plan's 1 ruleset write(s) when they were checked first (dry_run=true); " +
        "nothing was written.\n",
    );
    expect(r.stderr).toContain(
      `  refused:     legacy.example: + waf_managed_rules "owasp": POST zones/${zone}/rulesets was rejected with ` +
        "HTTP 400 (Cloudflare: zone legacy.example",
    );
    expect(r.stderr).toContain(PREVIOUS_WAF);
    // Refused before the question: no "Applying plan", nothing asked.
    expect(r.stdout).not.toContain("Applying plan");
    const log = await emu.requests();
    expect(log.filter((q) => q.method !== "GET").map((q) => `${rel(q)}?${new URLSearchParams(q.query)}`)).toEqual([
      `POST zones/${zone}/rulesets?dry_run=true`,
    ]);
    expect(log.filter(isWrite)).toEqual([]);
    expect((await emu.api<{ enabled: boolean }>("GET", `zones/${zone}/page_shield`)).enabled).toBe(false);
  });

  it("the same from a saved plan: apply plan.json re-plans, checks, and writes nothing", async () => {
    const zone = await legacyZone();
    const file = await config(zone, "legacy.example", owasp(1, "medium"));
    const out = join(await tempDir(), "plan.json");
    const plan = await runCli(emu, ["plan", "-c", file, "--out", out]);
    expect(plan.code, plan.stderr).toBe(0);
    await emu.clearRequests();
    const r = await runCli(emu, ["apply", out]);
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(r.stderr).toContain(PREVIOUS_WAF);
    expect((await emu.requests()).filter(isWrite)).toEqual([]);
    expect((await emu.requests()).filter(isDryRun).map(rel)).toEqual([`POST zones/${zone}/rulesets`]);
  });

  it("plan → apply → plan: each ruleset write checked first with its very body, the checks counted; no changes after", async () => {
    const file = await config(Z, "example.com", `${owasp(2, "high")}\ncloudflare_managed: { enabled: true }`);
    const plan1 = await runCli(emu, ["plan", "-c", file, "--detailed-exitcode"]);
    expect(plan1.code, plan1.stderr).toBe(2);
    await emu.clearRequests();
    const r = await runCli(emu, ["apply", "-c", file, "--auto-approve"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain("Checking 1 ruleset write(s) with Cloudflare first (dry_run=true)\n");
    expect(r.stderr).toContain("Cloudflare accepted the 1 ruleset write(s) checked (dry_run=true)\n");
    const log = await emu.requests();
    // One POST creates the entry point with both rules: one check, then the Page Shield PUT and the POST.
    expect(writesCheckedFirst(log).map(rel)).toEqual([`PUT zones/${Z}/page_shield`, `POST zones/${Z}/rulesets`]);
    expect(await emu.calls({ dryRuns: true })).toEqual([`POST zones/${Z}/rulesets?dry_run=true`]);

    // A second change: the two execute rules patched, each checked first.
    const file2 = await config(
      Z,
      "example.com",
      `${owasp(3, "low")}\ncloudflare_managed: { enabled: true, action: log }`,
    );
    await emu.clearRequests();
    const r2 = await runCli(emu, ["apply", "-c", file2, "--auto-approve"]);
    expect(r2.code, r2.stderr).toBe(0);
    expect(r2.stderr).toContain("Cloudflare accepted the 2 ruleset write(s) checked (dry_run=true)\n");
    const writes = writesCheckedFirst(await emu.requests());
    expect(writes.map((w) => w.method)).toEqual(["PATCH", "PATCH"]);
    expect((await emu.calls({ dryRuns: true })).sort()).toEqual(writes.map((w) => `${rel(w)}?dry_run=true`).sort());
    await emu.clearRequests();
    const plan2 = await runCli(emu, ["plan", "-c", file2, "--detailed-exitcode"]);
    expect(plan2.code, plan2.stdout + plan2.stderr).toBe(0);
    expect(plan2.stdout).toContain("No changes.");
    expect(await emu.calls({ dryRuns: true })).toEqual([]);
  });

  it("a 502 on a dry run: sent again (a check persists nothing), accepted, then written once", async () => {
    const file = await config(Z, "example.com", owasp(1, "medium"), false);
    await emu.fault({ method: "POST", path: "rulesets$", status: 502, count: 1 });
    await emu.clearRequests();
    const r = await runCli(emu, ["apply", "-c", file, "--auto-approve"]);
    expect(r.code, r.stderr).toBe(0);
    expect(
      (await emu.requests()).filter((q) => q.method !== "GET").map((q) => `${rel(q)} ${q.status} ${q.query.dry_run}`),
    ).toEqual([
      `POST zones/${Z}/rulesets 502 true`,
      `POST zones/${Z}/rulesets 200 true`,
      `POST zones/${Z}/rulesets 200 undefined`,
    ]);
  });

  it("a dry run answered 500 every time: the check could not be made, exit 1, nothing written", async () => {
    const file = await config(Z, "example.com", owasp(1, "medium"));
    await emu.fault({ method: "POST", path: "rulesets$", status: 500 });
    await emu.clearRequests();
    const r = await runCli(emu, ["apply", "-c", file, "--auto-approve", "--retries", "1"]);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain(
      `POST zones/${Z}/rulesets?dry_run=true: the check could not be made: Cloudflare answered HTTP 500`,
    );
    expect(r.stderr).toContain("nothing was written.");
    expect(r.stderr).not.toContain("may have been");
    const log = await emu.requests();
    expect(log.filter(isWrite)).toEqual([]);
    expect(log.filter(isDryRun)).toHaveLength(2);
  });

  it("a 403 on a dry run: exit 1 naming the permission the write needs, nothing written", async () => {
    const file = await config(Z, "example.com", owasp(1, "medium"));
    await emu.fault({ method: "POST", path: "rulesets$", status: 403, code: 10000, message: "Authentication error" });
    await emu.clearRequests();
    const r = await runCli(emu, ["apply", "-c", file, "--auto-approve"]);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain(`POST zones/${Z}/rulesets needs the "Zone WAF: Edit" permission`);
    expect(r.stderr).toContain("Give the token the permission named");
    expect((await emu.requests()).filter(isWrite)).toEqual([]);
  });

  it('a "dry run" answered with a ruleset (as a write answers): may have been made, exit 4, nothing else sent', async () => {
    const file = await config(Z, "example.com", owasp(1, "medium"));
    hostile.proxy.spoil = (req, res) => {
      if (req.query.get("dry_run") !== "true") return false;
      res.writeHead(200, { "content-type": "application/json" }).end(envelope({ id: "f".repeat(32), rules: [] }));
      return true;
    };
    const r = await runCli(emu, ["apply", "-c", file, "--auto-approve", "--api-url", hostile.proxy.url]);
    expect(r.code, r.stderr).toBe(4);
    expect(r.stderr).toContain(
      "with a result, as it answers a write and never a dry run: those writes may have been made",
    );
    expect(r.stderr).toContain(
      `  may be made: example.com: + waf_managed_rules "owasp": POST zones/${Z}/rulesets?dry_run=true was answered with a result`,
    );
    expect(hostile.proxy.log.filter((q) => q.method !== "GET").map((q) => `${q.method} ${q.path}${q.query}`)).toEqual([
      `POST zones/${Z}/rulesets?dry_run=true`,
    ]);
  });
});

describe("plan --verify", () => {
  it("with a token that may write: the checks pass, the plan is shown, its exit code unchanged", async () => {
    const file = await config(Z, "example.com", owasp(1, "medium"));
    await emu.clearRequests();
    const r = await runCli(emu, ["plan", "-c", file, "--verify", "--detailed-exitcode"]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout).toContain('+ waf_managed_rules "owasp"');
    expect(r.stderr).toContain("Cloudflare accepted the 1 ruleset write(s) checked (dry_run=true)");
    expect(await emu.calls({ dryRuns: true })).toEqual([`POST zones/${Z}/rulesets?dry_run=true`]);
    expect((await emu.requests()).filter(isWrite)).toEqual([]);
  });

  it("with a read-only token (403 on the dry run): a warning, the plan shown, exit as without --verify", async () => {
    const file = await config(Z, "example.com", owasp(1, "medium"));
    await emu.fault({ method: "POST", path: "rulesets$", status: 403, code: 10000, message: "Authentication error" });
    const r = await runCli(emu, ["plan", "-c", file, "--verify"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('+ waf_managed_rules "owasp"');
    expect(r.stdout).toContain("Plan digest: sha256:");
    expect(r.stderr).toContain(
      "Warning: the token may not make 1 of the 1 ruleset write(s) (a read-only token?): Cloudflare refused to " +
        "check them, so they are shown unchecked",
    );
    expect(r.stderr).toContain(`POST zones/${Z}/rulesets needs the "Zone WAF: Edit" permission`);
    expect(r.stderr).not.toContain("Error:");
  });

  it("a write Cloudflare refuses: shown per change, exit 1, the plan shown but not saved", async () => {
    const zone = await legacyZone();
    const file = await config(zone, "legacy.example", owasp(1, "medium"));
    const out = join(await tempDir(), "plan.json");
    await emu.clearRequests();
    const r = await runCli(emu, ["plan", "-c", file, "--verify", "--out", out]);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toContain('+ waf_managed_rules "owasp"');
    expect(r.stderr).toContain(
      `  refused:     legacy.example: + waf_managed_rules "owasp": POST zones/${zone}/rulesets was rejected with ` +
        "HTTP 400 (Cloudflare: zone legacy.example",
    );
    expect(r.stderr).toContain(PREVIOUS_WAF);
    expect(r.stderr).toContain("Applying this plan would fail there: fix the cause, then plan again.");
    expect(existsSync(out)).toBe(false);
    expect((await emu.requests()).filter(isWrite)).toEqual([]);
  });

  it("without --verify nothing but reads is sent", async () => {
    const file = await config(Z, "example.com", owasp(1, "medium"));
    await emu.clearRequests();
    const r = await runCli(emu, ["plan", "-c", file]);
    expect(r.code, r.stderr).toBe(0);
    expect((await emu.requests()).every((q) => q.method === "GET")).toBe(true);
  });
});

describe("the emulator's dry run", () => {
  it("validates as the write does (the same refusal), changes nothing, and answers success with result null", async () => {
    const body = {
      name: "Zone-level phase entry point",
      kind: "zone",
      phase: PHASE,
      rules: [{ action: "execute", expression: "true", action_parameters: { id: OWASP } }],
    };
    const dry = await emu.call("POST", `zones/${Z}/rulesets?dry_run=true`, body);
    expect(dry.status).toBe(200);
    expect(dry.body).toEqual({ success: true, errors: [], messages: [], result: null });
    expect((await emu.call("GET", entrypoint(Z))).status).toBe(404);
    const made = await emu.api<{ id: string; version: string }>("POST", `zones/${Z}/rulesets`, body);
    const bad = { action: "execute", expression: "true", action_parameters: { id: "0".repeat(32) } };
    const refusedDry = await emu.call("POST", `zones/${Z}/rulesets/${made.id}/rules?dry_run=true`, bad);
    const refused = await emu.call("POST", `zones/${Z}/rulesets/${made.id}/rules`, bad);
    expect(refusedDry.status).toBe(400);
    expect(refusedDry.body).toEqual(refused.body);
    const rule = { action: "execute", expression: "true", action_parameters: { id: CFM } };
    expect((await emu.call("POST", `zones/${Z}/rulesets/${made.id}/rules?dry_run=true`, rule)).body.result).toBeNull();
    const after = await emu.api<{ version: string; rules: unknown[] }>("GET", entrypoint(Z));
    expect([after.version, after.rules.length]).toEqual([made.version, 1]);
    expect((await emu.calls({ dryRuns: true })).length).toBe(3);
    // The request log keeps the query, so a dry run is told apart from the write.
    const log = await emu.requests();
    expect(log.filter(isDryRun).every((q) => q.query.dry_run === "true")).toBe(true);
  });
});
