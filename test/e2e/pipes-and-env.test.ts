// Issue 16, items 1 and 5, through the built CLI in a child process: a reader that goes away early
// (stdout closed at once, or after its first chunk) leaves no trace and the command's own exit code,
// and an apply still makes every write; the emulator keeps serving with its stdout gone, writes its
// URL to --url-file, saves --state on SIGINT, SIGTERM and SIGHUP, and says so when its port is busy;
// a wrong, expired or disabled token is named as such (token check), a zone the token cannot see too;
// `whoami` in text and JSON.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { createFleet, expectConverged } from "../helpers/fleet.js";
import { TOKEN, TestEmulator, ZONE, tempDir, writeConfig } from "../helpers/cli.js";

const CLI = fileURLToPath(new URL("../../dist/cli/zoneform.js", import.meta.url));
const TRACE = /EPIPE|Internal error|This is a bug|\n\s+at \S/;

const emu = TestEmulator.perFile();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the built CLI. `closeStdout`: "at-once" closes the read end of its stdout before it writes
 * anything, "first-chunk" right after the first chunk arrives (as `| head -1` does).
 */
function runBuilt(
  argv: string[],
  opts: { env?: NodeJS.ProcessEnv; closeStdout?: "at-once" | "first-chunk"; apiUrl?: boolean } = {},
): Promise<Run> {
  const args = opts.apiUrl === false ? argv : [...argv, "--api-url", emu.url];
  const child = spawn(process.execPath, [CLI, ...args], {
    env: { PATH: process.env.PATH, CLOUDFLARE_API_TOKEN: TOKEN, ...opts.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  if (opts.closeStdout === "at-once") child.stdout.destroy();
  else {
    child.stdout.on("data", (d: Buffer) => {
      stdout += d.toString();
      if (opts.closeStdout === "first-chunk") child.stdout.destroy();
    });
  }
  return new Promise((resolve) => child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr })));
}

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

const readIfThere = async (file: string) =>
  existsSync(file) ? (await readFile(file, "utf8")) || undefined : undefined;

/** The Page Shield file of the seed's example.com: plan has changes (exit 2 with --detailed-exitcode). */
const PAGE_SHIELD = `version: 1
zones:
  - zone_id: ${ZONE.com}
    name: example.com
    page_shield:
      enabled: true
      policies:
        - description: Report scripts
          action: log
          expression: http.request.uri.path contains "/"
          value: script-src 'self'
`;

describe.skipIf(!existsSync(CLI))("a reader that goes away", () => {
  it("plan, audit --format json and export exit quietly with their own exit code", async () => {
    const config = await writeConfig(PAGE_SHIELD);
    const commands: Array<[string[], number]> = [
      [["plan", "-c", config, "--detailed-exitcode"], 2],
      [["audit", "--zone", ZONE.com, "--format", "json"], 2],
      [["export", "--zone", ZONE.com], 0],
    ];
    const runs = await Promise.all(
      commands.flatMap(([argv, code]) =>
        (["at-once", "first-chunk"] as const).map(async (mode) => ({
          argv,
          code,
          mode,
          r: await runBuilt(argv, { closeStdout: mode }),
        })),
      ),
    );
    for (const { argv, code, mode, r } of runs) {
      const label = `${argv[0]} with stdout closed ${mode}`;
      expect(r.stderr, label).not.toMatch(TRACE);
      expect(r.signal, label).toBeNull();
      expect(r.code, `${label}: ${r.stderr}`).toBe(code);
    }
  });

  it("apply makes every write and exits 0 although its stdout is gone", async () => {
    const fleet = await createFleet(emu, 4, "pipe");
    await emu.admin("PUT", "/latency", { ms: 10 });
    await emu.clearRequests();
    const r = await runBuilt(["apply", "-c", fleet.config, "--auto-approve"], {
      env: fleet.env,
      closeStdout: "at-once",
    });
    expect(r.stderr).not.toMatch(TRACE);
    expect(r.code, r.stderr).toBe(0);
    const writes = (await emu.requests()).filter((q) => q.method !== "GET");
    expect(writes.length).toBeGreaterThan(4 * 5);
    expect(writes.filter((w) => w.status >= 400 || w.status === 0)).toEqual([]);
    await emu.admin("PUT", "/latency", { ms: 0 });
    await expectConverged(emu, fleet);
  });
});

describe.skipIf(!existsSync(CLI))("zoneform emulator", () => {
  /**
   * Starts `zoneform emulator --port 0` with --url-file and --state. `urlFrom`: "url-file" closes its
   * stdout at once and waits for the file; "stdout" reads the first line and then closes stdout, as
   * `read -r URL < <(zoneform emulator --port 0)` does.
   */
  async function startBuiltEmulator(dir: string, urlFrom: "url-file" | "stdout") {
    const urlFile = join(dir, "url");
    const stateFile = join(dir, "state.json");
    const child = spawn(
      process.execPath,
      [CLI, "emulator", "--port", "0", "--url-file", urlFile, "--state", stateFile],
      {
        env: { PATH: process.env.PATH },
        stdio: ["pipe", "pipe", "pipe"],
      },
    );
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
    let url: string;
    if (urlFrom === "url-file") {
      child.stdout.destroy();
      url = (await waitFor("the URL file", () => readIfThere(urlFile))).trim();
      expect(await readFile(urlFile, "utf8")).toBe(`${url}\n`);
    } else {
      url = await new Promise<string>((resolve) =>
        child.stdout.once("data", (d: Buffer) => {
          child.stdout.destroy();
          resolve(d.toString().split("\n")[0]!);
        }),
      );
      expect((await readFile(urlFile, "utf8")).trim()).toBe(url);
    }
    return { child, url, urlFile, stateFile, exited, stderr: () => stderr };
  }

  const zones = async (url: string) =>
    (await fetch(`${url}/zones`, { headers: { authorization: `Bearer emulator-token` } })).status;

  it(
    "keeps serving with stdout and stdin closed, writes --url-file, and saves --state on SIGINT, SIGTERM " +
      "and SIGHUP",
    async () => {
      await Promise.all(
        (["SIGINT", "SIGTERM", "SIGHUP"] as const).map(async (signal) => {
          const e = await startBuiltEmulator(
            await tempDir("zoneform-emu-"),
            signal === "SIGINT" ? "stdout" : "url-file",
          );
          expect(e.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/client\/v4$/);
          e.child.stdin.end();
          expect(await zones(e.url)).toBe(200);
          await sleep(300);
          expect(await zones(e.url), `${signal}: still serving after its stdout closed`).toBe(200);
          const added = await fetch(`${e.url.replace(/\/client\/v4$/, "")}/__emulator/zones`, {
            method: "POST",
            // The admin API takes JSON bodies only (docs/emulator.md, "Admin API").
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ name: `${signal.toLowerCase()}.test`, plan: "pro" }),
          });
          expect(added.status).toBe(200);
          e.child.kill(signal);
          expect(await e.exited, e.stderr()).toBe(0);
          expect(e.stderr()).not.toMatch(TRACE);
          const saved = JSON.parse(await readFile(e.stateFile, "utf8")) as { zones: Array<{ name: string }> };
          expect(
            saved.zones.map((z) => z.name),
            signal,
          ).toContain(`${signal.toLowerCase()}.test`);
          expect(existsSync(e.urlFile), "the URL file is removed on exit").toBe(false);
        }),
      );
    },
  );

  it("answers the token check as the real API does", async () => {
    const get = async (path: string, token: string) => {
      const res = await fetch(`${emu.url}/${path}`, { headers: { authorization: `Bearer ${token}` } });
      return {
        status: res.status,
        body: (await res.json()) as {
          result: Record<string, unknown> | null;
          errors: Array<{ code: number; message: string }>;
        },
      };
    };
    const ok = await get("user/tokens/verify", TOKEN);
    expect(ok.status).toBe(200);
    expect(ok.body.result).toEqual({ id: expect.stringMatching(/^[0-9a-f]{32}$/), status: "active" });
    const unknown = await get("user/tokens/verify", "nope");
    expect(unknown.status).toBe(401);
    expect(unknown.body.errors).toEqual([
      { code: 1000, message: "Invalid API Token", documentation_url: "https://developers.cloudflare.com/api" },
    ]);
    // Elsewhere an unknown token stays 403 / 10000, and so does an expired one.
    await emu.admin("PUT", "/tokens", { token: "old-token", expires_on: "2024-01-01T00:00:00Z" });
    expect((await get("zones", "nope")).status).toBe(403);
    expect((await get("zones", "old-token")).body.errors).toEqual([
      { code: 10000, message: "Authentication error", documentation_url: "https://developers.cloudflare.com/api" },
    ]);
    expect((await get("user/tokens/verify", "old-token")).body.result).toMatchObject({
      status: "expired",
      expires_on: "2024-01-01T00:00:00Z",
    });
    // A token's policies are shown only when the state lists them.
    expect((await get(`user/tokens/${ok.body.result!.id as string}`, TOKEN)).status).toBe(403);
    const refused = await emu
      .admin("PUT", "/tokens", { token: "x", status: "sleeping", colour: 1 })
      .catch((e: Error) => e.message);
    expect(refused).toContain("status must be one of active, disabled, expired");
    expect(refused).toContain('unknown field \\"colour\\"');
  });

  it("says a busy port is in use, with exit 1", async () => {
    const port = new URL(emu.url).port;
    const r = await runBuilt(["emulator", "--port", port], { apiUrl: false });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`Error: port ${port} on 127.0.0.1 is in use: `);
    expect(r.stderr).toContain("; pick another with --port, or --port 0 for any free port");
    expect(r.stderr).not.toMatch(TRACE);
  });
});

describe.skipIf(!existsSync(CLI))("credentials the API refuses", () => {
  it(
    "names a wrong, an expired and a disabled token as such; a valid token lacking a permission keeps the " +
      "permission message",
    async () => {
      const config = await writeConfig(PAGE_SHIELD);
      await emu.admin("PUT", "/tokens", { token: "old-token", status: "expired", expires_on: "2024-01-01T00:00:00Z" });
      await emu.admin("PUT", "/tokens", { token: "off-token", status: "disabled" });
      const [wrong, expired, disabled] = (await Promise.all(
        ["not-a-token", "old-token", "off-token"].map((token) =>
          runBuilt(["plan", "-c", config], { env: { CLOUDFLARE_API_TOKEN: token } }),
        ),
      )) as [Run, Run, Run];
      for (const r of [wrong, expired, disabled]) {
        expect(r.code, r.stderr).toBe(1);
        expect(r.stderr).not.toMatch(TRACE);
        expect(r.stderr).not.toContain("lacks permission");
      }
      expect(wrong.stderr).toContain(
        "CLOUDFLARE_API_TOKEN is not a valid API token: Cloudflare's token check (GET user/tokens/verify) " +
          'answered HTTP 401 "Invalid API Token [1000]; see https://developers.cloudflare.com/api"',
      );
      expect(wrong.stderr).not.toContain("not-a-token");
      expect(expired.stderr).toMatch(
        /the API token in CLOUDFLARE_API_TOKEN \(id [0-9a-f]{32}\) has expired \(expires_on 2024-01-01T00:00:00Z\)/,
      );
      expect(disabled.stderr).toMatch(/the API token in CLOUDFLARE_API_TOKEN \(id [0-9a-f]{32}\) is disabled/);
      // One token check per run, however many calls were refused.
      const verifies = (await emu.requests()).filter((q) => q.path.endsWith("/user/tokens/verify"));
      expect(verifies).toHaveLength(3);

      await emu.admin("POST", "/faults", {
        path: "page_shield",
        status: 403,
        code: 10000,
        message: "Authentication error",
      });
      const lacking = await runBuilt(["plan", "-c", config]);
      expect(lacking.code).toBe(1);
      // The permission the call needs first, then the token's state as Cloudflare's token check answers it.
      expect(lacking.stderr).toContain(
        `GET zones/${ZONE.com}/page_shield needs the "Page Shield: Read" permission on the zone, and was refused ` +
          "(HTTP 403; Cloudflare: Authentication error [10000]",
      );
      expect(lacking.stderr).toMatch(
        /the API token lacks it \(the API token in CLOUDFLARE_API_TOKEN \(id [0-9a-f]{32}\) is valid and active\)/,
      );
    },
  );

  it("says the token cannot see a zone, naming it", async () => {
    const unknown = "f".repeat(32);
    const config = await writeConfig(PAGE_SHIELD.replace(ZONE.com, unknown).replace("example.com", "hidden.example"));
    const r = await runBuilt(["plan", "-c", config]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `[hidden.example] reading page_shield_settings: zone ${unknown} not found or not accessible with this ` +
        `token: no such zone, or this token cannot see it`,
    );
    expect(r.stderr).not.toMatch(TRACE);
  });
});

describe.skipIf(!existsSync(CLI))("zoneform whoami", () => {
  const FULL = `version: 1
account_id: 0123456789abcdef0123456789abcdef
zones:
  - zone_id: ${ZONE.com}
    name: example.com
    page_shield: { enabled: true }
    waf:
      owasp: { enabled: true }
    logs:
      logpush_jobs: []
  - zone_id: ${ZONE.net}
    name: example.net
    page_shield: { enabled: true }
`;
  const zoneRes = (id: string) => ({ [`com.cloudflare.api.account.zone.${id}`]: "*" });

  it("shows the token and the permissions the file needs, and which it lacks when the API tells", async () => {
    const dir = await tempDir("zoneform-whoami-");
    await writeConfig(FULL, "zoneform.yaml", dir);
    await emu.admin("PUT", "/tokens", {
      token: "scoped-token",
      expires_on: "2999-01-01T00:00:00Z",
      policies: [
        {
          id: "p1",
          effect: "allow",
          resources: zoneRes(ZONE.com),
          permission_groups: [
            { id: "g1", name: "Page Shield Write" },
            { id: "g2", name: "Zone WAF Write" },
            { id: "g3", name: "Zone Read" },
          ],
        },
        {
          id: "p2",
          effect: "allow",
          resources: zoneRes(ZONE.net),
          permission_groups: [
            { id: "g4", name: "Page Shield Read" },
            { id: "g3", name: "Zone Read" },
          ],
        },
        {
          id: "p3",
          effect: "allow",
          resources: { "com.cloudflare.api.account.0123456789abcdef0123456789abcdef": "*" },
          permission_groups: [{ id: "g5", name: "Account Rulesets Read" }],
        },
      ],
    });
    const run = (token: string, extra: string[] = []) =>
      new Promise<Run>((resolve) => {
        const child = spawn(process.execPath, [CLI, "whoami", "--api-url", emu.url, ...extra], {
          cwd: dir,
          env: { PATH: process.env.PATH, CLOUDFLARE_API_TOKEN: token },
          stdio: ["ignore", "pipe", "pipe"],
        });
        let stdout = "";
        let stderr = "";
        child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
        child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
        child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
      });
    const [text, json, seedToken, wrong] = await Promise.all([
      run("scoped-token"),
      run("scoped-token", ["--format", "json"]),
      run(TOKEN),
      run("nope", ["--format", "json"]),
    ]);

    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/^API token [0-9a-f]{32}: active \(expires 2999-01-01T00:00:00Z\)\n/);
    expect(text.stdout).toMatch(/Page Shield +Read \/ Edit +page_shield +lacks Edit \(for apply\) on example\.net/);
    expect(text.stdout).toMatch(/Logs +Edit +logs\.logpush_jobs +lacks Edit on example\.com/);
    expect(text.stdout).toMatch(/Zone WAF +Read \/ Edit +waf +has it/);
    expect(text.stdout).toMatch(/Account Rulesets \(account\) +Read +waf \(managed rulesets\) +has it/);

    expect(json.code, json.stderr).toBe(0);
    const doc = JSON.parse(json.stdout);
    expect(doc).toMatchObject({
      format_version: 1,
      credentials: { kind: "token", state: "active", status: "active" },
      permissions: { known: true, why_unknown: null },
    });
    const byName = Object.fromEntries(doc.permissions.needed.map((n: { permission: string }) => [n.permission, n]));
    expect(byName["Page Shield"]).toMatchObject({
      plan: "Read",
      apply: "Edit",
      on: [ZONE.com, ZONE.net],
      lacking: { plan: [], apply: [ZONE.net] },
    });
    expect(byName.Logs).toMatchObject({
      plan: "Edit",
      apply: "Edit",
      lacking: { plan: [ZONE.com], apply: [ZONE.com] },
    });

    // The seed's token: the API does not show its permissions.
    expect(seedToken.code).toBe(0);
    expect(seedToken.stdout).toContain(
      "Whether the token has them: cannot tell: Cloudflare shows a token's permissions only to a token " +
        'with the "API Tokens: Read" permission',
    );

    expect(wrong.code).toBe(1);
    expect(JSON.parse(wrong.stdout)).toMatchObject({ format_version: 1, credentials: { state: "invalid" } });
    expect(wrong.stderr).toMatch(/Error: CLOUDFLARE_API_TOKEN \(for account [0-9a-f]{32}\) is not a valid API token/);
  });

  it("names the user of a global API key", async () => {
    const r = await runBuilt(["whoami"], {
      env: { CLOUDFLARE_API_TOKEN: "", CLOUDFLARE_EMAIL: "user@example.com", CLOUDFLARE_API_KEY: "emulator-key" },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^Global API key of user@example\.com \(user [0-9a-f]{32}\): active\n/);
  });
});
