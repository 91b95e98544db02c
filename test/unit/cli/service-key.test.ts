// Service Key authentication ended on 2026-09-30: a Service Key in the environment gets one line saying
// so and what to use instead, and fails nothing a token carries on its own.
import { describe, expect, it } from "vitest";
import { serviceKeyNotice, serviceKeyVariables } from "../../../src/cli/service-key.js";
import { TestEmulator, runCli, writeConfig, ZONE } from "../../helpers/cli.js";

const emu = TestEmulator.perFile();

describe("a Service Key in the environment", () => {
  it("is found by the names Cloudflare's tools gave it, never another product's SERVICE_KEY", () => {
    expect(
      serviceKeyVariables({
        CLOUDFLARE_API_USER_SERVICE_KEY: "v1.0-abc",
        CF_API_USER_SERVICE_KEY: "v1.0-abc",
        "X-Auth-User-Service-Key": "v1.0-abc",
        CLOUDFLARE_SERVICE_KEY: "v1.0-abc",
        SUPABASE_SERVICE_KEY: "x",
        CLOUDFLARE_API_TOKEN: "t",
        CF_API_USER_SERVICE_KEY_EMPTY: "",
      }),
    ).toEqual([
      "CF_API_USER_SERVICE_KEY",
      "CLOUDFLARE_API_USER_SERVICE_KEY",
      "CLOUDFLARE_SERVICE_KEY",
      "X-Auth-User-Service-Key",
    ]);
    expect(serviceKeyVariables({ CLOUDFLARE_API_USER_SERVICE_KEY: "  " })).toEqual([]);
    expect(serviceKeyNotice({ SUPABASE_SERVICE_KEY: "x" })).toBeUndefined();
    expect(serviceKeyNotice({ CLOUDFLARE_API_USER_SERVICE_KEY: "v1.0-secret-value" })).toBe(
      "warning: CLOUDFLARE_API_USER_SERVICE_KEY is set, but Service Key authentication ended on 2026-09-30 and " +
        "zoneform never sends one: use an API token in CLOUDFLARE_API_TOKEN instead " +
        "(https://github.com/zoneform/zoneform/blob/main/docs/connecting.md#credentials-and-endpoint)",
    );
  });

  it("gets one line on stderr and fails nothing when a token is set; never its value", async () => {
    const config = await writeConfig(
      `version: 1\nzones:\n  - zone_id: ${ZONE.com}\n    name: example.com\n    page_shield:\n      enabled: false\n`,
    );
    const env = { CF_API_USER_SERVICE_KEY: "v1.0-0123456789abcdef-secret" };
    const r = await runCli(emu, ["plan", "-c", config, "--detailed-exitcode"], { env });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const lines = r.stderr.split("\n").filter((l) => l.includes("Service Key"));
    expect(lines).toEqual([
      "warning: CF_API_USER_SERVICE_KEY is set, but Service Key authentication ended on 2026-09-30 and zoneform " +
        "never sends one: use an API token in CLOUDFLARE_API_TOKEN instead " +
        "(https://github.com/zoneform/zoneform/blob/main/docs/connecting.md#credentials-and-endpoint)",
    ]);
    expect(r.stdout + r.stderr).not.toContain("0123456789abcdef-secret");
    // The run went on with the token: the zone was read.
    expect(await emu.calls()).toContain(`GET zones/${ZONE.com}/page_shield`);
  });

  it("without a token, says so before the missing credentials stop the run (exit 1)", async () => {
    const config = await writeConfig(`version: 1\nzones:\n  - zone_id: ${ZONE.com}\n    page_shield: {}\n`);
    const r = await runCli(emu, ["plan", "-c", config], {
      env: { CLOUDFLARE_API_TOKEN: "", CLOUDFLARE_API_USER_SERVICE_KEY: "v1.0-abc" },
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^warning: CLOUDFLARE_API_USER_SERVICE_KEY is set, but Service Key authentication ended/);
    expect(r.stderr).toContain("no Cloudflare credentials: set CLOUDFLARE_API_TOKEN");
  });
});
