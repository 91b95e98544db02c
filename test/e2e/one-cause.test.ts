// Issue 30 item 5: an error every zone shares is told once, with what to do and the count of zones it
// stopped; a plan that failed prints no Plan: line and no digest. A closed port fails at once (no
// backoff for a port nothing listens on); a base URL without /client/v4 is named as such, not taken
// for zones that do not exist.
import { createServer, type Server } from "node:net";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { TestEmulator, runCli } from "../helpers/cli.js";
import { createFleet } from "../helpers/fleet.js";

const emu = TestEmulator.perFile();

/** A port that was free a moment ago and on which nothing listens now. */
async function closedPort(): Promise<number> {
  const server: Server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

/** Lines of a message that are not the one cause: the same text twice would show here. */
function occurrences(text: string, needle: string): number {
  return text.split(needle).length - 1;
}

describe("one message per cause", () => {
  it(
    "a wrong token over 12 zones: one message saying what to do, 'stopped 12 zones', no Plan or " + "digest line",
    async () => {
      const fleet = await createFleet(emu, 12);
      await emu.clearRequests();
      const r = await runCli(emu, ["plan", "-c", fleet.config], {
        env: { ...fleet.env, CLOUDFLARE_API_TOKEN: "mistyped-token-0000000000000000000000000" },
      });
      expect(r.code).toBe(1);
      expect(r.stdout).toBe("");
      expect(occurrences(r.stderr, "is not a valid API token")).toBe(1);
      expect(r.stderr).toContain("set it to a current token (My Profile → API Tokens)");
      expect(r.stderr).toContain("Stopped 12 zones before they were planned; nothing was changed.");
      expect(r.stderr.trim().split("\n")).toHaveLength(2);
      expect(r.stdout + r.stderr).not.toMatch(/Plan:|Plan digest/);
      // One token check, nothing written, no call tried twice (no retries of a refusal).
      const calls = await emu.calls();
      expect(calls.filter((c) => c === "GET user/tokens/verify")).toHaveLength(1);
      expect(await emu.calls({ writesOnly: true })).toEqual([]);
      expect(new Set(calls).size).toBe(calls.length);
    },
  );

  it(
    "an error every zone shares but the run survives (a refused permission) is one line with the zones " + "it stopped",
    async () => {
      const fleet = await createFleet(emu, 6);
      await emu.clearRequests();
      await emu.fault({
        method: "GET",
        path: "/logpush/jobs$",
        status: 403,
        code: 10000,
        message: "Authentication error",
      });
      const r = await runCli(emu, ["plan", "-c", fleet.config], { env: fleet.env });
      expect(r.code).toBe(1);
      expect(r.stdout).not.toMatch(/Plan:|Plan digest/);
      expect(r.stdout).toContain("6 zones could not be planned");
      expect(r.stdout).not.toContain("Authentication error");
      expect(occurrences(r.stderr, 'GET zones/{zone}/logpush/jobs needs the "Logs: Edit" permission')).toBe(1);
      expect(r.stderr).toContain(
        "stopped 6 zones: fleet-0.example, fleet-1.example, fleet-2.example, fleet-3.example, " +
          "fleet-4.example and 1 more",
      );
      expect(await emu.calls({ writesOnly: true })).toEqual([]);
    },
  );

  it("a closed port fails within 2 seconds, once, naming the URL", async () => {
    const fleet = await createFleet(emu, 12);
    const url = `http://127.0.0.1:${await closedPort()}/client/v4`;
    const started = Date.now();
    const r = await runCli(emu, ["plan", "-c", fleet.config, "--api-url", url], { env: fleet.env });
    expect(Date.now() - started).toBeLessThan(2000);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(occurrences(r.stderr, `cannot connect to the API at ${url} (ECONNREFUSED)`)).toBe(1);
    expect(r.stderr).toContain("Stopped 12 zones before they were planned");
  });

  it("a base URL without /client/v4 is named, with the URL it likely meant; not 'zone not found'", async () => {
    const fleet = await createFleet(emu, 3);
    const bare = emu.url.replace(/\/client\/v4$/, "");
    const r = await runCli(emu, ["plan", "-c", fleet.config, "--api-url", bare], { env: fleet.env });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(occurrences(r.stderr, `the base URL ${bare} does not look like the Cloudflare API`)).toBe(1);
    expect(r.stderr).toContain(`did you mean ${bare}/client/v4?`);
    expect(r.stderr).not.toContain("not found");
    expect(r.stderr).toContain("Stopped 3 zones");
  });

  it("a base URL without /client/v4 that answers an HTML page is named too", async () => {
    const { createServer: createHttp } = await import("node:http");
    const page = createHttp((_req, res) =>
      res.writeHead(404, { "content-type": "text/html" }).end("<html><title>Welcome to nginx</title></html>"),
    );
    await new Promise<void>((r) => page.listen(0, "127.0.0.1", r));
    try {
      const fleet = await createFleet(emu, 2);
      const url = `http://127.0.0.1:${(page.address() as AddressInfo).port}`;
      const r = await runCli(emu, ["plan", "-c", fleet.config, "--api-url", url], { env: fleet.env });
      expect(r.code).toBe(1);
      expect(occurrences(r.stderr, `the base URL ${url} does not look like the Cloudflare API`)).toBe(1);
      expect(r.stderr).toContain(`did you mean ${url}/client/v4?`);
    } finally {
      await new Promise<void>((r) => page.close(() => r()));
    }
  });
});
