// Issue 47.3: a host name that does not resolve stops the run at once, with one message and nothing retried; a
// resolver's temporary failure (EAI_AGAIN) is tried a few times first. Node's dns.lookup, which every connection
// asks, is wrapped to count the lookups (and to fail them), so no test is timed.
import dns from "node:dns";
import { afterEach, describe, expect, it } from "vitest";
import { RESOLVER_RETRIES } from "../../src/cloudflare/retry.js";
import { TestEmulator, ZONE, runCli, writeConfig } from "../helpers/cli.js";

const emu = TestEmulator.perFile();
/** RFC 6761: a name under .invalid never resolves. */
const HOST = "nonexistent.invalid";
const URL_OF_HOST = `https://${HOST}/client/v4`;

type Lookup = typeof dns.lookup;
const realLookup: Lookup = dns.lookup;
afterEach(() => {
  dns.lookup = realLookup;
});

/** Every lookup of `host` counted; `fail(n)` answers the n-th (1-based) with that error code instead. */
function watchLookups(host: string, fail?: (n: number) => string | undefined): { count: () => number } {
  let n = 0;
  dns.lookup = ((name: string, options: unknown, callback?: unknown) => {
    const cb = (typeof options === "function" ? options : callback) as (err: Error | null, ...rest: unknown[]) => void;
    if (name !== host) return (realLookup as (...a: unknown[]) => void)(name, options, callback);
    n += 1;
    const code = fail?.(n);
    if (code === undefined) return (realLookup as (...a: unknown[]) => void)(name, options, callback);
    const err = Object.assign(new Error(`getaddrinfo ${code} ${name}`), {
      code,
      syscall: "getaddrinfo",
      hostname: name,
    });
    process.nextTick(() => cb(err));
  }) as Lookup;
  return { count: () => n };
}

/** What this machine's resolver answers for a .invalid name: ENOTFOUND where a resolver answers at all. */
const here = await new Promise<string | undefined>((resolve) =>
  realLookup(HOST, (err) => resolve((err as NodeJS.ErrnoException | null)?.code)),
);

const zoneYaml = (id: string) => `  - zone_id: ${id}\n    page_shield:\n      enabled: true\n`;
const threeZones = () => writeConfig(`version: 1\nzones:\n${[ZONE.com, ZONE.net, ZONE.org].map(zoneYaml).join("")}`);

describe.skipIf(here !== "ENOTFOUND")("a host name that does not resolve (real DNS)", () => {
  it("--api-url: one lookup, nothing retried, one message naming the URL, its host and --api-url, exit 1", async () => {
    const config = await threeZones();
    const lookups = watchLookups(HOST);
    const r = await runCli(emu, ["plan", "-c", config, "--api-url", URL_OF_HOST, "--parallelism", "1"]);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toBe("");
    expect(lookups.count()).toBe(1);
    expect(r.stderr.trim().split("\n")).toEqual([
      `Error: cannot connect to the API at ${URL_OF_HOST} (ENOTFOUND): its host name ${HOST} does not resolve. ` +
        "The URL comes from --api-url: check it (Cloudflare's is https://api.cloudflare.com/client/v4) and the network",
      "Stopped 3 zones before they were planned; nothing was changed.",
    ]);
  });

  it("CLOUDFLARE_API_BASE_URL, calls in parallel: each call resolves once and is never retried", async () => {
    const config = await threeZones();
    const lookups = watchLookups(HOST);
    const r = await runCli(undefined, ["plan", "-c", config, "--verbose"], {
      env: { CLOUDFLARE_API_BASE_URL: URL_OF_HOST },
    });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toBe("");
    const failed = r.stderr.split("\n").filter((l) => /^GET \S+ failed \(ENOTFOUND\)/.test(l));
    // One lookup per call sent (the three zones' first reads at most), each call once: no retries= note.
    expect(failed.length, r.stderr).toBeGreaterThanOrEqual(1);
    expect(lookups.count()).toBe(failed.length);
    expect(lookups.count()).toBeLessThanOrEqual(3);
    expect(r.stderr).not.toMatch(/retr(y|ies)/);
    // The verbose log says when the run stops; the error is told once.
    expect(r.stderr.split("\nError: cannot connect to the API at").length - 1, r.stderr).toBe(1);
    expect(r.stderr).toContain(`its host name ${HOST} does not resolve. The URL comes from CLOUDFLARE_API_BASE_URL`);
    expect(r.stderr).toContain("Stopped 3 zones before they were planned; nothing was changed.");
  });
});

describe("a resolver that fails for a while (EAI_AGAIN)", () => {
  it(`is tried ${RESOLVER_RETRIES} times more, then stops the run with one message, exit 1`, async () => {
    const config = await threeZones();
    const lookups = watchLookups(HOST, () => "EAI_AGAIN");
    const r = await runCli(undefined, ["plan", "-c", config, "--parallelism", "1"], {
      env: { CLOUDFLARE_API_BASE_URL: URL_OF_HOST },
    });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toBe("");
    expect(lookups.count()).toBe(1 + RESOLVER_RETRIES);
    expect(r.stderr.trim().split("\n")).toEqual([
      `Error: cannot connect to the API at ${URL_OF_HOST} (EAI_AGAIN): the resolver could not look up its host name ` +
        `${HOST} (a temporary failure, ${1 + RESOLVER_RETRIES} tries). The URL comes from CLOUDFLARE_API_BASE_URL: ` +
        "check it (Cloudflare's is https://api.cloudflare.com/client/v4) and the network",
      "Stopped 3 zones before they were planned; nothing was changed.",
    ]);
  });

  it("goes on once the name resolves: the plan is made, exit 0", async () => {
    // localhost is loopback by its name, so the emulator's plain HTTP is taken; its first two lookups fail.
    const url = emu.url.replace("127.0.0.1", "localhost");
    const config = await writeConfig(
      `version: 1\nzones:\n  - zone_id: ${ZONE.com}\n    page_shield:\n      enabled: true\n`,
    );
    const lookups = watchLookups("localhost", (n) => (n <= 2 ? "EAI_AGAIN" : undefined));
    const r = await runCli(emu, ["plan", "-c", config, "--api-url", url, "--parallelism", "1"]);
    expect(r.code, r.stderr).toBe(0);
    expect(lookups.count()).toBeGreaterThanOrEqual(3);
    expect(r.stdout).toMatch(/Plan: |No changes\./);
    expect(r.stderr).not.toContain("cannot connect");
  });
});
