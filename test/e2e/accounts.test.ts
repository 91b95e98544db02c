// An estate of several accounts end to end against the emulator: `accounts:` with one token each (an
// account-owned token, its own rate limit), the account-level Logpush jobs (created, updated, deleted,
// pinned ids, prune: false), plan → apply → plan with no changes, and from the request log every call
// with the token of the zone or account it addresses (never another account's).
import { describe, expect, it } from "vitest";
import { TestEmulator, runCli, writeConfig, type LoggedRequest } from "../helpers/cli.js";

const emu = TestEmulator.perFile();

const A = "0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a";
const B = "0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b";
const env = { TOKEN_A: "token-of-a", TOKEN_B: "token-of-b", AUDIT_AUTH: "audit-secret-1" };

interface Seeded {
  zones: Array<{ name: string; id: string }>;
}

/** Accounts A (2 zones) and B (1 zone), each with its own account-owned token named token-a / token-b. */
async function seedEstate(tokens: { TOKEN_A: string; TOKEN_B: string } = env): Promise<{ a: Seeded; b: Seeded }> {
  const a = await emu.admin<Seeded>("POST", "accounts", {
    account_id: A,
    token: tokens.TOKEN_A,
    token_name: "token-a",
    zones: 2,
    domain: "a.test",
  });
  const b = await emu.admin<Seeded>("POST", "accounts", {
    account_id: B,
    token: tokens.TOKEN_B,
    token_name: "token-b",
    zones: 1,
    domain: "b.test",
  });
  return { a, b };
}

const AUDIT_DEST = "https://logs.example.com/audit?header_Authorization=${env:AUDIT_AUTH}";

function estateFile(a: Seeded, b: Seeded, accountA: string, accountB = ""): string {
  return `version: 1
accounts:
  - account_id: ${A}
    api_token: \${env:TOKEN_A}
${accountA}
  - account_id: ${B}
    api_token: \${env:TOKEN_B}
${accountB}
zones:
  - zone_id: ${a.zones[0]!.id}
    name: ${a.zones[0]!.name}
    account_id: ${A}
    logs:
      logpush_jobs:
        - name: http
          dataset: http_requests
          destination_conf: https://logs.example.com/zone-a1
  - zone_id: ${a.zones[1]!.id}
    name: ${a.zones[1]!.name}
    account_id: ${A}
    logs:
      logpush_jobs: []
  - zone_id: ${b.zones[0]!.id}
    name: ${b.zones[0]!.name}
    account_id: ${B}
    logs:
      logpush_jobs: []
`;
}

const call = (r: LoggedRequest) => `${r.method} ${r.path.replace(/^\/client\/v4\//, "")}`;

/** Each logged call whose path addresses a zone or account, with the token that carried it. */
function tokensByPath(log: readonly LoggedRequest[], owner: (path: string) => string | undefined): string[] {
  return log.flatMap((r) => {
    const want = owner(r.path.replace(/^\/client\/v4\//, ""));
    return want === undefined || r.credential === want ? [] : [`${call(r)} carried ${r.credential}, not ${want}`];
  });
}

describe("an estate of two accounts, a token each", () => {
  it("plans, applies and plans clean; every call carries the token of its zone or account", async () => {
    const { a, b } = await seedEstate();
    const cfg = await writeConfig(
      estateFile(
        a,
        b,
        `    logpush_jobs:
      - name: audit
        dataset: audit_logs
        destination_conf: "${AUDIT_DEST}"`,
        `    logpush_jobs:
      - name: dns
        dataset: gateway_dns
        destination_conf: https://logs.example.com/dns
        output_options: { field_names: [Datetime, QueryName, ResolverDecision] }`,
      ),
    );
    const plan1 = await runCli(emu, ["plan", "-c", cfg, "--detailed-exitcode"], { env });
    expect(plan1.code, plan1.stdout + plan1.stderr).toBe(2);
    expect(plan1.stdout).toContain(`# account ${A}`);
    expect(plan1.stdout).toContain(`# account ${B}`);
    expect(plan1.stdout).toContain("Plan: 3 to create, 0 to update, 0 to replace, 0 to delete.");

    await emu.clearRequests();
    const apply = await runCli(emu, ["apply", "-c", cfg, "--auto-approve"], { env });
    expect(apply.code, apply.stdout + apply.stderr).toBe(0);
    const log = await emu.requests();
    const writes = log.filter((r) => r.method !== "GET" && !r.path.includes("/validate"));
    expect(writes.map((r) => `${call(r)} [${r.credential}]`).sort()).toEqual(
      [
        `POST accounts/${A}/logpush/jobs [token-a]`,
        `POST accounts/${B}/logpush/jobs [token-b]`,
        `POST zones/${a.zones[0]!.id}/logpush/jobs [token-a]`,
      ].sort(),
    );
    // The account jobs' checks went to the account's own endpoints, with its own token.
    expect(log.map((r) => `${call(r)} [${r.credential}]`)).toEqual(
      expect.arrayContaining([
        `POST accounts/${A}/logpush/validate/destination [token-a]`,
        `GET accounts/${B}/logpush/datasets/gateway_dns/fields [token-b]`,
      ]),
    );
    const owner = ownerOf(a, b);
    expect(tokensByPath(log, owner)).toEqual([]);
    // Nothing of the estate went with the default token.
    expect(log.filter((r) => r.credential !== "token-a" && r.credential !== "token-b").map(call)).toEqual([]);

    const jobsA = await emu.api<Array<Record<string, unknown>>>("GET", `accounts/${A}/logpush/jobs`);
    expect(jobsA).toMatchObject([
      {
        name: "audit",
        dataset: "audit_logs",
        destination_conf: AUDIT_DEST.replace("${env:AUDIT_AUTH}", env.AUDIT_AUTH),
      },
    ]);

    await emu.clearRequests();
    const plan2 = await runCli(emu, ["plan", "-c", cfg, "--detailed-exitcode"], { env });
    expect(plan2.code, plan2.stdout + plan2.stderr).toBe(0);
    expect(plan2.stdout).toContain("No changes. 3 zones and 2 accounts match the configuration.");
    // Reads still the minimum: one list per zone and per account, each with its own token.
    expect((await emu.requests()).map((r) => `${call(r)} [${r.credential}]`).sort()).toEqual(
      [
        `GET accounts/${A}/logpush/jobs [token-a]`,
        `GET accounts/${B}/logpush/jobs [token-b]`,
        `GET zones/${a.zones[0]!.id}/logpush/jobs [token-a]`,
        `GET zones/${a.zones[1]!.id}/logpush/jobs [token-a]`,
        `GET zones/${b.zones[0]!.id}/logpush/jobs [token-b]`,
      ].sort(),
    );
  });

  it("updates and deletes account jobs, keeps pinned ids apart, and prune: false deletes nothing", async () => {
    const { a, b } = await seedEstate();
    // Two live jobs of A share name and dataset: only their ids tell them apart.
    const made = [];
    for (const path of ["one", "two", "stray"]) {
      made.push(
        await emu.api<{ id: number }>("POST", `accounts/${A}/logpush/jobs`, {
          name: path === "stray" ? "stray" : "audit",
          dataset: "audit_logs",
          destination_conf: `https://logs.example.com/${path}`,
          enabled: true,
        }),
      );
    }
    const keepB = await emu.api<{ id: number }>("POST", `accounts/${B}/logpush/jobs`, {
      name: "unlisted",
      dataset: "gateway_http",
      destination_conf: "https://logs.example.com/b",
      enabled: true,
    });
    const cfg = await writeConfig(
      estateFile(
        a,
        b,
        `    logpush_jobs:
      - id: ${made[0]!.id}
        name: audit
        dataset: audit_logs
        destination_conf: https://logs.example.com/one
      - id: ${made[1]!.id}
        name: audit
        dataset: audit_logs
        destination_conf: https://logs.example.com/two
        enabled: false`,
        `    prune: false
    logpush_jobs: []`,
      ),
    );
    const plan1 = await runCli(emu, ["plan", "-c", cfg, "--detailed-exitcode"], { env });
    expect(plan1.code, plan1.stdout + plan1.stderr).toBe(2);
    expect(plan1.stdout).toContain(`~ logpush_job "audit" (id ${made[1]!.id})`);
    expect(plan1.stdout).toContain(`- logpush_job "stray" (id ${made[2]!.id})`);
    await emu.clearRequests();
    const apply = await runCli(emu, ["apply", "-c", cfg, "--auto-approve"], { env });
    expect(apply.code, apply.stdout + apply.stderr).toBe(0);
    const writes = (await emu.requests()).filter((r) => r.method !== "GET" && !r.path.includes("/validate"));
    expect(writes.map((r) => `${call(r)} [${r.credential}]`).sort()).toEqual(
      [
        `DELETE accounts/${A}/logpush/jobs/${made[2]!.id} [token-a]`,
        `POST zones/${a.zones[0]!.id}/logpush/jobs [token-a]`,
        `PUT accounts/${A}/logpush/jobs/${made[1]!.id} [token-a]`,
      ].sort(),
    );
    expect(writes.find((r) => r.method === "PUT")!.body).toEqual({ name: "audit", enabled: false });
    const liveB = await emu.api<Array<{ id: number }>>("GET", `accounts/${B}/logpush/jobs`);
    expect(liveB.map((j) => j.id)).toEqual([keepB.id]);
    const plan2 = await runCli(emu, ["plan", "-c", cfg, "--detailed-exitcode"], { env });
    expect(plan2.code, plan2.stdout + plan2.stderr).toBe(0);
  });

  it("drift shows an account job changed by hand, labelled with its account", async () => {
    const { a, b } = await seedEstate();
    const cfg = await writeConfig(
      estateFile(
        a,
        b,
        `    logpush_jobs:
      - name: audit
        dataset: audit_logs
        destination_conf: https://logs.example.com/audit`,
      ),
    );
    const apply = await runCli(emu, ["apply", "-c", cfg, "--auto-approve"], { env });
    expect(apply.code, apply.stdout + apply.stderr).toBe(0);
    const [job] = await emu.api<Array<{ id: number }>>("GET", `accounts/${A}/logpush/jobs`);
    await emu.api("PUT", `accounts/${A}/logpush/jobs/${job!.id}`, { enabled: false });
    const drift = await runCli(emu, ["drift", "-c", cfg], { env });
    expect(drift.code, drift.stdout + drift.stderr).toBe(2);
    expect(drift.stdout).toContain(`account ${A}: drift (0 create, 1 update, 0 replace, 0 delete)`);
    // Zones and accounts counted apart: only the account drifted.
    expect(drift.stdout).toContain("Drift in 0 of 3 zones and 1 of 2 accounts");
    const json = JSON.parse((await runCli(emu, ["drift", "-c", cfg, "--format", "json"], { env })).stdout);
    expect(json.zones.map((z: { zone_id: string }) => z.zone_id)).not.toContain(A);
    expect(json.accounts.map((u: { account_id: string }) => u.account_id)).toEqual([A, B]);
    expect(json.accounts[0].changes[0]).toMatchObject({ account_id: A, kind: "update" });
    const md = await runCli(emu, ["plan", "-c", cfg, "--format", "markdown"], { env });
    expect(md.stdout).toContain(`<summary>account <code>${A}</code></summary>`);
  });

  it("a saved plan carries the account units and applies with each token", async () => {
    const { a, b } = await seedEstate();
    const cfg = await writeConfig(
      estateFile(
        a,
        b,
        `    logpush_jobs:
      - name: workers
        dataset: workers_trace_events
        destination_conf: https://logs.example.com/workers`,
      ),
    );
    const out = cfg.replace(/zoneform\.yaml$/, "plan.json");
    const plan = await runCli(emu, ["plan", "-c", cfg, "--out", out], { env });
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
    const saved = JSON.parse(await (await import("node:fs/promises")).readFile(out, "utf8"));
    // Accounts in a list of their own, never among the zones (plan format 5).
    expect(saved.zones.map((z: { zone_id: string }) => z.zone_id)).toEqual([...a.zones, ...b.zones].map((z) => z.id));
    const units = saved.accounts;
    expect(units.map((u: { account_id: string }) => u.account_id)).toEqual([A, B]);
    // The reference, never the token.
    expect(units[0].desired.api_token).toBe("${env:TOKEN_A}");
    expect(JSON.stringify(saved)).not.toContain(env.TOKEN_A);
    await emu.clearRequests();
    const apply = await runCli(emu, ["apply", out, "--auto-approve"], { env });
    expect(apply.code, apply.stdout + apply.stderr).toBe(0);
    const writes = (await emu.requests()).filter((r) => r.method !== "GET" && !r.path.includes("/validate"));
    expect(writes.map((r) => `${call(r)} [${r.credential}]`).sort()).toEqual(
      [`POST accounts/${A}/logpush/jobs [token-a]`, `POST zones/${a.zones[0]!.id}/logpush/jobs [token-a]`].sort(),
    );
    expect(tokensByPath(await emu.requests(), ownerOf(a, b))).toEqual([]);
  });

  it("a token on another account's objects is refused, and the plan says where", async () => {
    const { a, b } = await seedEstate();
    // The zone of B declared as A's: its calls carry A's token, which the API refuses.
    const text = estateFile(a, b, "").replace(
      `zone_id: ${b.zones[0]!.id}\n    name: ${b.zones[0]!.name}\n    account_id: ${B}`,
      `zone_id: ${b.zones[0]!.id}\n    name: ${b.zones[0]!.name}\n    account_id: ${A}`,
    );
    const cfg = await writeConfig(text);
    await emu.clearRequests();
    const plan = await runCli(emu, ["plan", "-c", cfg], { env });
    expect(plan.code, plan.stdout + plan.stderr).toBe(1);
    expect(plan.stdout + plan.stderr).toContain(b.zones[0]!.name);
    const refused = (await emu.requests()).filter((r) => r.status === 403);
    expect(refused.map((r) => `${call(r)} [${r.credential}]`)).toContain(
      `GET zones/${b.zones[0]!.id}/logpush/jobs [token-a]`,
    );
  });
});

describe("token problems over an estate", () => {
  it("names the variable and the account, once: an invalid token, and another account's in its place", async () => {
    const { a, b } = await seedEstate();
    const cfg = await writeConfig(estateFile(a, b, ""));
    const bad = await runCli(emu, ["plan", "-c", cfg], { env: { ...env, CLOUDFLARE_API_TOKEN: "", TOKEN_B: "wrong" } });
    expect(bad.code).toBe(1);
    const invalid = `TOKEN_B (for account ${B}) is not a valid API token`;
    expect(bad.stderr).toContain(invalid);
    expect(bad.stderr.split(invalid)).toHaveLength(2);
    expect(bad.stderr).not.toMatch(/CLOUDFLARE_API_TOKEN is|permission/);
    // A's token given as B's: the message names whose it is and the fix, not a permission to add.
    const swapped = await runCli(emu, ["plan", "-c", cfg], {
      env: { ...env, CLOUDFLARE_API_TOKEN: "", TOKEN_B: env.TOKEN_A },
    });
    expect(swapped.code).toBe(1);
    expect(swapped.stderr).toMatch(
      new RegExp(
        `TOKEN_B holds a token of account ${A} \\(id [0-9a-f]{32}\\), which reaches that account's zones and objects only, not account ${B}'s: set TOKEN_B to a token of account ${B}`,
      ),
    );
    expect(swapped.stderr).not.toMatch(/add it to the token|CLOUDFLARE_API_TOKEN/);
  });
});

describe("commands over an estate", () => {
  it("export --account writes an accounts: entry that plans clean, pinning ids where name and dataset repeat", async () => {
    await seedEstate();
    const made = [];
    for (const [name, path] of [
      ["audit", "one"],
      ["audit", "two"],
    ]) {
      made.push(
        await emu.api<{ id: number }>("POST", `accounts/${A}/logpush/jobs`, {
          name,
          dataset: "audit_logs",
          destination_conf: `https://logs.example.com/${path}`,
          enabled: true,
          output_options: { field_names: ["ActorEmail", "When"] },
        }),
      );
    }
    await emu.api("POST", `accounts/${A}/logpush/jobs`, {
      name: "workers",
      dataset: "workers_trace_events",
      destination_conf: "https://logs.example.com/w",
      enabled: false,
    });
    const out = (await writeConfig("", "unused.yaml")).replace(/unused\.yaml$/, "export.yaml");
    const exported = await runCli(emu, ["export", "--account", A, "--sections", "logpush", "--out", out]);
    expect(exported.code, exported.stdout + exported.stderr).toBe(0);
    const text = await (await import("node:fs/promises")).readFile(out, "utf8");
    expect(text).toContain(`# from account ${A}; sections: logpush_jobs.`);
    expect(text).toContain(`accounts:\n  - account_id: ${A}\n    logpush_jobs:\n`);
    // Name and dataset repeat live: each entry pins its id.
    expect(text).toContain(`id: ${made[0]!.id}`);
    expect(text).toContain(`id: ${made[1]!.id}`);
    expect(text).toContain("zones: []");
    await emu.clearRequests();
    const plan = await runCli(emu, ["plan", "-c", out, "--detailed-exitcode"]);
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
    expect(plan.stdout).toContain("No changes. 1 account matches the configuration.");
    expect(await emu.calls()).toEqual([`GET accounts/${A}/logpush/jobs`]);
  });

  it("validate --verbose names each account's token and lists; --show-merged keeps accounts:", async () => {
    const { a, b } = await seedEstate();
    const cfg = await writeConfig(
      estateFile(
        a,
        b,
        `    logpush_jobs:
      - name: audit
        dataset: audit_logs
        destination_conf: "${AUDIT_DEST}"`,
      ),
    );
    const v = await runCli(emu, ["validate", "-c", cfg, "--verbose"], { env });
    expect(v.code, v.stderr).toBe(0);
    expect(v.stdout).toContain(`  account ${A} (token \${env:TOKEN_A}): logpush (1 job)`);
    expect(v.stdout).toContain(`  account ${B} (token \${env:TOKEN_B}): nothing managed`);
    const merged = await runCli(emu, ["validate", "-c", cfg, "--show-merged"], { env });
    expect(merged.code, merged.stderr).toBe(0);
    expect(merged.stdout).toContain(`accounts:\n  - account_id: ${A}\n    api_token: \${env:TOKEN_A}\n`);
    const again = await writeConfig(merged.stdout);
    const replan = await runCli(emu, ["validate", "-c", again], { env });
    expect(replan.code, replan.stderr).toBe(0);
  });

  it("audit -c audits every zone of the file, each with its account's token, in one report", async () => {
    const { a, b } = await seedEstate();
    const cfg = await writeConfig(estateFile(a, b, ""));
    await emu.clearRequests();
    const audit = await runCli(emu, ["audit", "-c", cfg, "--format", "json"], { env });
    expect(audit.code, audit.stdout + audit.stderr).toBe(0);
    const report = JSON.parse(audit.stdout);
    const audited = JSON.stringify(report);
    for (const z of [...a.zones, ...b.zones]) expect(audited).toContain(z.id);
    const log = await emu.requests();
    for (const z of [...a.zones, ...b.zones])
      expect(log.some((r) => r.path.includes(`/zones/${z.id}/page_shield`))).toBe(true);
    expect(tokensByPath(log, ownerOf(a, b))).toEqual([]);
  });

  it("whoami checks each token and names it by its variable, with the part of the file it serves", async () => {
    const { a, b } = await seedEstate();
    const cfg = await writeConfig(
      estateFile(
        a,
        b,
        `    logpush_jobs:
      - name: audit
        dataset: audit_logs
        destination_conf: "${AUDIT_DEST}"`,
      ),
    );
    const text = await runCli(emu, ["whoami", "-c", cfg], { env });
    expect(text.code, text.stdout + text.stderr).toBe(0);
    expect(text.stdout).toContain("CLOUDFLARE_API_TOKEN (every zone and account without a token of its own):");
    expect(text.stdout).toContain(`TOKEN_A (account ${A} and 2 zones):`);
    expect(text.stdout).toContain(`TOKEN_B (account ${B} and 1 zone):`);
    expect(text.stdout).not.toContain(env.TOKEN_A);
    const json = await runCli(emu, ["whoami", "-c", cfg, "--format", "json"], { env });
    expect(json.code, json.stderr).toBe(0);
    const doc = JSON.parse(json.stdout);
    expect(
      doc.account_tokens.map((t: { variable: string; accounts: string[]; zones: string[] }) => t.variable),
    ).toEqual(["TOKEN_A", "TOKEN_B"]);
    expect(doc.account_tokens[0].credentials.state).toBe("active");
    expect(doc.account_tokens[0].zones).toEqual(a.zones.map((z) => z.id));
    const logs = doc.account_tokens[0].permissions.needed.find((n: { scope: string }) => n.scope === "account");
    expect(logs).toMatchObject({ permission: "Logs", plan: "Edit", on: [A], sections: ["accounts[].logpush_jobs"] });
    // With every zone and account on its own token, the default token may be unset.
    const alone = await runCli(emu, ["whoami", "-c", cfg, "--format", "json"], {
      env: { ...env, CLOUDFLARE_API_TOKEN: "" },
    });
    expect(alone.code, alone.stderr).toBe(0);
    expect(JSON.parse(alone.stdout).credentials).toBeNull();
    // A token that does not work fails the command, named by its variable.
    const bad = await runCli(emu, ["whoami", "-c", cfg], { env: { ...env, TOKEN_B: "not-a-token" } });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain(`Error: TOKEN_B (for account ${B}) is not a valid API token: `);
    expect(bad.stderr).not.toContain("CLOUDFLARE_API_TOKEN is");
    // A's token given as B's: B's check refuses it, A's takes it, and the message says whose it is.
    const swapped = await runCli(emu, ["whoami", "-c", cfg], { env: { ...env, TOKEN_B: env.TOKEN_A } });
    expect(swapped.code).toBe(1);
    expect(swapped.stderr).toMatch(
      new RegExp(
        `Error: TOKEN_B holds a token of account ${A} \\(id [0-9a-f]{32}\\), which reaches that account's zones and objects only, not account ${B}'s: set TOKEN_B to a token of account ${B}`,
      ),
    );
  });

  it("whoami checks an account-owned token (cfat_) by its account, and reads its policies there", async () => {
    const owned = { ...env, TOKEN_A: "cfat_tokenofaccounta", TOKEN_B: "cfat_tokenofaccountb" };
    const { a, b } = await seedEstate(owned);
    const policies = [{ effect: "allow", resources: { [`com.cloudflare.api.account.${A}`]: "*" } }];
    const { id } = await emu.admin<{ id: string }>("PUT", "tokens", {
      token: owned.TOKEN_A,
      name: "token-a",
      account_id: A,
      policies,
    });
    const cfg = await writeConfig(estateFile(a, b, ""));
    await emu.clearRequests();
    const json = await runCli(emu, ["whoami", "-c", cfg, "--format", "json"], { env: owned });
    expect(json.code, json.stdout + json.stderr).toBe(0);
    const doc = JSON.parse(json.stdout);
    expect(doc.account_tokens.map((t: { credentials: unknown }) => t.credentials)).toEqual([
      expect.objectContaining({ state: "active", id, account_id: A }),
      expect.objectContaining({ state: "active", account_id: B }),
    ]);
    expect(doc.credentials).toMatchObject({ state: "active", account_id: null });
    expect(doc.account_tokens[0].permissions.known).toBe(true);
    // Each account's token to its account's check, never the user's; the default token to the user's.
    const log = await emu.requests();
    expect(log.map((r) => `${call(r)} [${r.credential}] ${r.status}`)).toEqual([
      expect.stringMatching(/^GET user\/tokens\/verify \[token [0-9a-f]{32}\] 200$/),
      `GET accounts/${A}/tokens/verify [token-a] 200`,
      `GET accounts/${A}/tokens/${id} [token-a] 200`,
      `GET accounts/${B}/tokens/verify [token-b] 200`,
      // B's token may not read its own policies (no "Account API Tokens: Read" in the state): said, not fatal.
      `GET accounts/${B}/tokens/${doc.account_tokens[1].credentials.id} [token-b] 403`,
    ]);
    expect(doc.account_tokens[1].permissions.why_unknown).toContain('"Account API Tokens: Read"');
    const text = await runCli(emu, ["whoami", "-c", cfg], { env: owned });
    expect(text.stdout).toContain(`API token ${id} (of account ${A}): active`);
    expect(text.stdout).toContain(`The token's permissions were read from Cloudflare (GET accounts/${A}/tokens/<id>).`);
    // Another account's token named under B: B's check refuses it.
    const C = "0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c";
    await emu.admin("POST", "accounts", { account_id: C, token: "cfat_tokenofaccountc" });
    const crossed = await runCli(emu, ["whoami", "-c", cfg], { env: { ...owned, TOKEN_B: "cfat_tokenofaccountc" } });
    expect(crossed.code).toBe(1);
    expect(crossed.stderr).toContain(
      `Error: TOKEN_B (for account ${B}) is not a valid API token: Cloudflare's token check (GET accounts/${B}/` +
        `tokens/verify) answered HTTP 403 "Unauthorized to access requested resource [9109]". It may be mistyped, ` +
        "deleted, rolled or another account's",
    );
  });

  it("a token of the older format the user's check refuses is checked by its account", async () => {
    const { a, b } = await seedEstate();
    const cfg = await writeConfig(estateFile(a, b, ""));
    // As reported of the real API: the user's check does not know an account's token (401 / 1000).
    await emu.admin("POST", "faults", {
      method: "GET",
      path: "^user/tokens/verify$",
      status: 401,
      code: 1000,
      message: "Invalid API Token",
    });
    await emu.clearRequests();
    const json = await runCli(emu, ["whoami", "-c", cfg, "--format", "json"], {
      env: { ...env, CLOUDFLARE_API_TOKEN: "" },
    });
    expect(json.code, json.stdout + json.stderr).toBe(0);
    const doc = JSON.parse(json.stdout);
    expect(doc.account_tokens.map((t: { credentials: { account_id: string } }) => t.credentials.account_id)).toEqual([
      A,
      B,
    ]);
    // Its policies are read where its check answered (refused here: the state lists none).
    expect((await emu.requests()).map(call)).toEqual([
      "GET user/tokens/verify",
      `GET accounts/${A}/tokens/verify`,
      `GET accounts/${A}/tokens/${doc.account_tokens[0].credentials.id}`,
      "GET user/tokens/verify",
      `GET accounts/${B}/tokens/verify`,
      `GET accounts/${B}/tokens/${doc.account_tokens[1].credentials.id}`,
    ]);
  });

  it("a refused call of an account-owned token is explained by its account's check", async () => {
    const owned = { ...env, TOKEN_A: "cfat_tokenofaccounta", TOKEN_B: "cfat_tokenofaccountb" };
    const { a, b } = await seedEstate(owned);
    const cfg = await writeConfig(estateFile(a, b, ""));
    await emu.admin("POST", "faults", {
      method: "GET",
      path: `^zones/${a.zones[1]!.id}/logpush/jobs$`,
      status: 403,
      code: 10000,
      message: "Authentication error",
    });
    await emu.clearRequests();
    const plan = await runCli(emu, ["plan", "-c", cfg], { env: owned });
    expect(plan.code, plan.stdout + plan.stderr).toBe(1);
    expect(plan.stdout + plan.stderr).toContain(`the API token lacks it (the API token in TOKEN_A (id `);
    expect(plan.stdout + plan.stderr).toContain(
      `is valid and active, a token of account ${A}): add it to the token (account ${A}: Manage Account → Account ` +
        "API Tokens → Edit)",
    );
    const checks = (await emu.requests()).filter((r) => r.path.endsWith("/verify")).map(call);
    expect(checks).toEqual([`GET accounts/${A}/tokens/verify`]);
  });

  it("logpush challenge --account asks the account's ownership endpoint, and the account job applies with it", async () => {
    const { a, b } = await seedEstate();
    const dest = "s3://audit-bucket/acct/{DATE}?region=eu-west-1";
    const challenge = await runCli(emu, ["logpush", "challenge", "--account", A, "--destination", dest]);
    expect(challenge.code, challenge.stdout + challenge.stderr).toBe(0);
    expect(challenge.stdout).toContain("filename: acct/ownership-challenge-");
    expect(await emu.calls({ writesOnly: true })).toEqual([`POST accounts/${A}/logpush/ownership`]);
    const owned = await emu.admin<{ token: string }>("GET", `ownership/${A}?destination=${encodeURIComponent(dest)}`);
    const cfg = await writeConfig(
      estateFile(
        a,
        b,
        `    logpush_jobs:
      - name: audit-s3
        dataset: audit_logs
        destination_conf: "${dest}"`,
      ),
    );
    const missing = await runCli(emu, ["plan", "-c", cfg], { env });
    expect(missing.code).toBe(1);
    expect(missing.stdout + missing.stderr).toContain(`zoneform logpush challenge --account ${A} --destination`);
    const withChallenge = await writeConfig(
      estateFile(
        a,
        b,
        `    logpush_jobs:
      - name: audit-s3
        dataset: audit_logs
        destination_conf: "${dest}"
        ownership_challenge: \${env:CHALLENGE}`,
      ),
    );
    const apply = await runCli(emu, ["apply", "-c", withChallenge, "--auto-approve"], {
      env: { ...env, CHALLENGE: owned.token },
    });
    expect(apply.code, apply.stdout + apply.stderr).toBe(0);
    const live = await emu.api<Array<{ name: string }>>("GET", `accounts/${A}/logpush/jobs`);
    expect(live.map((j) => j.name)).toEqual(["audit-s3"]);
  });
});

/** The token name each zone's and account's calls must carry. */
function ownerOf(a: Seeded, b: Seeded): (path: string) => string | undefined {
  const tokenOf = new Map<string, string>([
    [`accounts/${A}`, "token-a"],
    [`accounts/${B}`, "token-b"],
    ...a.zones.map((z): [string, string] => [`zones/${z.id}`, "token-a"]),
    ...b.zones.map((z): [string, string] => [`zones/${z.id}`, "token-b"]),
  ]);
  return (path) => {
    const m = /^(zones|accounts)\/[0-9a-f]{32}/.exec(path);
    return m ? tokenOf.get(m[0]) : undefined;
  };
}
