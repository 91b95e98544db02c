// `zoneform show` renders a saved plan as `plan` did, with its digest, reading nothing; `drift` shows
// each drifted field, takes --format and --detailed-exitcode, and its JSON is the plan format.
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { TestEmulator, ZONE, runCli, tempDir, writeConfig } from "../helpers/cli.js";

const emu = TestEmulator.perFile();
const ENV = { LOG_AUTH: "log-secret-value-1234" };
const CONFIG = `version: 1
zones:
  - zone_id: ${ZONE.com}
    name: example.com
    page_shield:
      enabled: true
      policies:
        - { description: Checkout, action: log, expression: 'http.request.uri.path contains "/checkout"', value: "script-src 'self' https://js.stripe.com" }
    logs:
      logpush_jobs:
        - { name: http, dataset: http_requests, destination_conf: "https://logs.example.com/in?header_Authorization=\${env:LOG_AUTH}" }
`;

describe("zoneform show", () => {
  it("renders a saved plan exactly as plan printed it, with the digest, without any API call", async () => {
    const cfg = await writeConfig(CONFIG);
    const file = join(await tempDir(), "plan.json");
    const made = await runCli(emu, ["plan", "-c", cfg, "--out", file], { env: ENV });
    expect(made.code, made.stderr).toBe(0);
    await emu.clearRequests();
    const shown = await runCli(undefined, ["show", file]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toBe(made.stdout);
    expect(shown.stdout).not.toContain(ENV.LOG_AUTH);
    expect(await emu.calls()).toEqual([]);
    const md = await runCli(undefined, ["show", file, "--format", "markdown"]);
    expect(md.stdout).toContain("Plan digest: `sha256:");
    const json = JSON.parse((await runCli(undefined, ["show", file, "--format", "json"])).stdout);
    expect(json.format_version).toBe(5);
    expect(json.digest).toBe(JSON.parse(await readFile(file, "utf8")).digest);
  });

  it("refuses a plan file changed after it was made (exit 1) and a file that is not a plan (exit 3)", async () => {
    const cfg = await writeConfig(CONFIG);
    const file = join(await tempDir(), "plan.json");
    await runCli(emu, ["plan", "-c", cfg, "--out", file], { env: ENV });
    const doc = JSON.parse(await readFile(file, "utf8"));
    doc.zones[0].changes[0].operations[0].body = { enabled: false };
    await writeFile(file, JSON.stringify(doc));
    const edited = await runCli(undefined, ["show", file]);
    expect(edited.code).toBe(1);
    expect(edited.stderr).toContain("was changed after it was made");
    await writeFile(file, "{}");
    expect((await runCli(undefined, ["show", file])).code).toBe(3);
  });
});

describe("zoneform drift", () => {
  it("shows each field that drifted with plan's word diff, exits 2, and takes --detailed-exitcode", async () => {
    const cfg = await writeConfig(CONFIG);
    expect((await runCli(emu, ["apply", "-c", cfg, "--auto-approve"], { env: ENV })).code).toBe(0);
    const [policy] = await emu.api<Array<{ id: string }>>("GET", `zones/${ZONE.com}/page_shield/policies`);
    await emu.api("PUT", `zones/${ZONE.com}/page_shield/policies/${policy!.id}`, {
      description: "Checkout",
      action: "log",
      expression: 'http.request.uri.path contains "/checkout"',
      value: "script-src 'self' https://evil.example",
      enabled: true,
    });
    const r = await runCli(emu, ["drift", "-c", cfg, "--detailed-exitcode"], { env: ENV });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout).toContain('~ page_shield_policy "Checkout"');
    expect(r.stdout).toContain("~ value: script-src 'self' [-https://evil.example-]{+https://js.stripe.com+}");
    expect(r.stdout).toContain("Drift in 1 of 1 zone.");
    const json = JSON.parse((await runCli(emu, ["drift", "-c", cfg, "--format", "json"], { env: ENV })).stdout);
    expect(json.format_version).toBe(5);
    expect(json.zones[0].changes[0].fields[0].field).toBe("value");
    const md = await runCli(emu, ["drift", "-c", cfg, "--format", "markdown"], { env: ENV });
    expect(md.code).toBe(2);
    expect(md.stdout).toContain("Checkout");
  });

  it("exits 0 with no drift", async () => {
    const cfg = await writeConfig(CONFIG);
    await runCli(emu, ["apply", "-c", cfg, "--auto-approve"], { env: ENV });
    const r = await runCli(emu, ["drift", "-c", cfg, "--detailed-exitcode"], { env: ENV });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain("No drift: 1 zone matches the configuration.");
  });
});
