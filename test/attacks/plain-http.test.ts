// Issue 27, item 7: credentials never go over plain HTTP to another machine. A base URL `http://` to a
// host that is not loopback (127.0.0.0/8, ::1, localhost) is refused by every command that sends
// credentials, and by the library's createClient, before any connection; `--allow-insecure-http`,
// ZONEFORM_ALLOW_INSECURE_HTTP=1 or `allowInsecureHttp: true` opt in, with a warning. The "other machine"
// is `http://0.0.0.0:<port>`: a host the rule does not count as loopback, which Linux nevertheless
// connects to this machine, so the test's server sees any connection that should not
// happen, and no traffic leaves the loopback interface.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createClient } from "../../src/index.js";
import { TOKEN, TestEmulator, ZONE, runCli, tempDir, writeConfig } from "../helpers/cli.js";
import { STACK } from "./helpers.js";

const emu = TestEmulator.perFile();

/** Every connection and request the server saw, with the credentials they carried. */
const seen = { connections: 0, requests: [] as Array<{ path: string; authorization?: string }> };
let server: Server;
let port: number;

beforeAll(async () => {
  // Forwards to the emulator, so an allowed run works end to end.
  server = createServer(async (req, res) => {
    seen.requests.push({ path: req.url ?? "", authorization: req.headers.authorization });
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers))
      if (typeof v === "string" && k !== "host" && k !== "content-length" && k !== "connection") headers[k] = v;
    const upstream = await fetch(`${emu.url}${(req.url ?? "").replace(/^\/client\/v4/, "")}`, {
      method: req.method,
      headers,
      body: chunks.length > 0 ? new Uint8Array(Buffer.concat(chunks)) : undefined,
    });
    res
      .writeHead(upstream.status, { "content-type": upstream.headers.get("content-type") ?? "application/json" })
      .end(Buffer.from(await upstream.arrayBuffer()));
  });
  server.on("connection", () => seen.connections++);
  // Bound to every IPv4 address so that 127.0.0.2 reaches it too; only this machine connects to it.
  await new Promise<void>((resolve) => server.listen(0, "0.0.0.0", resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});
beforeEach(() => {
  seen.connections = 0;
  seen.requests.length = 0;
});

/** A plain-HTTP base URL the rule treats as another machine; its connections reach the test's server. */
const remote = () => `http://0.0.0.0:${port}/client/v4`;

const refusal = (source: string, url: string) =>
  `Error: ${source} ${url} is plain HTTP to a host that is not loopback: the credentials would be sent unencrypted; ` +
  "use https://, or pass --allow-insecure-http (or set ZONEFORM_ALLOW_INSECURE_HTTP=1) to send them anyway\n";

const CONFIG = `version: 1
zones:
  - zone_id: ${ZONE.com}
    name: example.com
    page_shield:
      enabled: true
`;

describe("a plain-HTTP base URL to a host that is not loopback", () => {
  let config: string;
  let lockDir: string;
  beforeAll(async () => {
    config = await writeConfig(CONFIG);
    lockDir = await tempDir("zoneform-locks-");
  });

  const commands: string[][] = [
    ["whoami"],
    ["plan", "-c", "CONFIG"],
    ["apply", "-c", "CONFIG", "--auto-approve"],
    ["drift", "-c", "CONFIG"],
    ["export", "--zone", ZONE.com],
    ["audit", "--zone", ZONE.com],
    ["inventory", "--zone", ZONE.com, "--pages", "example.com/checkout*"],
    ["certificates", "--zone", ZONE.com],
    ["csp", "suggest", "--zone", ZONE.com],
    ["logpush", "challenge", "--zone", ZONE.com, "--destination", "s3://logs-bucket/zone?region=us-east-1"],
    ["waf-migration", "status", "--zone", ZONE.com],
    ["waf-migration", "check", "--zone", ZONE.com],
  ];

  for (const argv of commands) {
    it(`is refused by \`zoneform ${argv.slice(0, 2).join(" ")}\` with exit 3 before any connection`, async () => {
      const args = argv.map((a) => (a === "CONFIG" ? config : a));
      await emu.clearRequests();
      const started = Date.now();
      const r = await runCli(emu, [...args, "--api-url", remote()], { env: { ZONEFORM_LOCK_DIR: lockDir } });
      expect(r.stderr).toBe(refusal("--api-url", remote()));
      expect(r.code).toBe(3);
      expect(Date.now() - started).toBeLessThan(5000);
      expect(seen.connections, "a connection reached the server").toBe(0);
      expect(await emu.calls()).toEqual([]);
    });
  }

  it(
    "is refused from CLOUDFLARE_API_BASE_URL, naming the variable, and ZONEFORM_ALLOW_INSECURE_HTTP=0 does " +
      "not opt in",
    async () => {
      for (const allow of [undefined, "", "0", "false"]) {
        const env: Record<string, string> = {
          CLOUDFLARE_API_BASE_URL: remote(),
          ...(allow === undefined ? {} : { ZONEFORM_ALLOW_INSECURE_HTTP: allow }),
        };
        const r = await runCli(undefined, ["whoami"], { env });
        expect(r.stderr).toBe(refusal("CLOUDFLARE_API_BASE_URL", remote()));
        expect(r.code).toBe(3);
      }
      expect(seen.connections).toBe(0);
    },
  );

  it("refuses a name that resolves nowhere the same way, at once: no DNS lookup decides it", async () => {
    const started = Date.now();
    const r = await runCli(undefined, ["whoami", "--api-url", "http://api.example.invalid/client/v4"]);
    expect(r.stderr).toBe(refusal("--api-url", "http://api.example.invalid/client/v4"));
    expect(r.code).toBe(3);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it("refuses an opt-in variable of another value as a usage error", async () => {
    const r = await runCli(undefined, ["whoami"], {
      env: { CLOUDFLARE_API_BASE_URL: remote(), ZONEFORM_ALLOW_INSECURE_HTTP: "yes please" },
    });
    expect(r.stderr).toBe(
      "Error: ZONEFORM_ALLOW_INSECURE_HTTP must be 1 (or true) to allow plain HTTP, or 0 (or unset); got " +
        '"yes please"\n',
    );
    expect(r.code).toBe(3);
    expect(seen.connections).toBe(0);
  });

  it("is sent, with a warning, when --allow-insecure-http opts in", async () => {
    await emu.clearRequests();
    const r = await runCli(emu, ["whoami", "--api-url", remote(), "--allow-insecure-http"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe(
      `warning: --api-url ${remote()} is plain HTTP to a host that is not loopback: the credentials are ` +
        `sent unencrypted\n`,
    );
    expect(r.stderr).not.toMatch(STACK);
    expect(seen.requests.length).toBeGreaterThan(0);
    expect(seen.requests.every((q) => q.authorization === `Bearer ${TOKEN}`)).toBe(true);
    expect((await emu.calls())[0]).toBe("GET user/tokens/verify");
  });

  it("is sent, with a warning, when ZONEFORM_ALLOW_INSECURE_HTTP=1 opts in", async () => {
    // No emulator given: runCli would add --api-url, which wins over the variable.
    const r = await runCli(undefined, ["certificates", "--zone", ZONE.com], {
      env: { CLOUDFLARE_API_BASE_URL: remote(), ZONEFORM_ALLOW_INSECURE_HTTP: "1" },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe(
      `warning: CLOUDFLARE_API_BASE_URL ${remote()} is plain HTTP to a host that is not loopback: the ` +
        `credentials are sent unencrypted\n`,
    );
    expect(seen.requests.length).toBeGreaterThan(0);
  });
});

describe("loopback over plain HTTP", () => {
  for (const host of ["127.0.0.1", "127.0.0.2", "localhost", "127.1"]) {
    it(`keeps working, without a warning, on http://${host}`, async () => {
      const r = await runCli(emu, ["whoami", "--api-url", `http://${host}:${port}/client/v4`]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toBe("");
      expect(seen.requests.length).toBeGreaterThan(0);
    });
  }
});

describe("the library's createClient", () => {
  it("throws before any connection on a plain-HTTP baseUrl to a host that is not loopback", () => {
    expect(() => createClient({ baseUrl: remote(), auth: { token: TOKEN } })).toThrow(
      `baseUrl ${remote()} is plain HTTP to a host that is not loopback: the credentials would be sent ` +
        `unencrypted; use https://, or pass allowInsecureHttp: true to send them anyway`,
    );
    expect(() => createClient({ baseUrl: remote(), auth: { token: TOKEN } })).toThrow(
      expect.objectContaining({ exitCode: 3 }),
    );
    expect(seen.connections).toBe(0);
  });

  it("sends when allowInsecureHttp: true opts in", async () => {
    const client = createClient({ baseUrl: remote(), auth: { token: TOKEN }, allowInsecureHttp: true });
    try {
      expect(await client.request("GET", "user/tokens/verify")).toMatchObject({ status: "active" });
    } finally {
      await client.close();
    }
    expect(seen.requests.map((q) => q.authorization)).toEqual([`Bearer ${TOKEN}`]);
  });

  it("takes loopback and https without the option", async () => {
    const client = createClient({ baseUrl: `http://127.0.0.1:${port}/client/v4`, auth: { token: TOKEN } });
    await client.close();
    const remoteTls = createClient({ baseUrl: "https://api.example.invalid/client/v4", auth: { token: TOKEN } });
    await remoteTls.close();
  });
});
