// Text from the live API that tries to drive the terminal (issue 15 item 2): a Page Shield policy whose
// description and value hold cursor-up, erase-line and a carriage return, a Logpush job whose name holds
// an ESC, a script URL with escape sequences. plan (text and Markdown) and audit show them escaped,
// never raw, and the delete lines they would hide are still there.
import { describe, expect, it } from "vitest";
import { TestEmulator, ZONE, runCli, writeConfig } from "../helpers/cli.js";
import { runBuilt } from "../attacks/helpers.js";

const emu = TestEmulator.perFile();

const HIDE = "\u001b[1A\u001b[2K";
const DESCRIPTION = `Looks harmless${HIDE}\rnothing to see`;
const DESCRIPTION_SHOWN = "Looks harmless\\u001b[1A\\u001b[2K\\rnothing to see";
const VALUE = `script-src 'self'${HIDE}\r`;
const VALUE_SHOWN = "script-src 'self'\\u001b[1A\\u001b[2K\\r";
const JOB = "exfil\u001b[2K";
const JOB_SHOWN = "exfil\\u001b[2K";

/** ESC, CR and BEL: none may reach the output raw. */
const RAW = /[\u001b\r\u0007]/;

async function seed(): Promise<void> {
  // Deleted by the plan: its title line must show.
  await emu.api("POST", `zones/${ZONE.com}/page_shield/policies`, {
    description: DESCRIPTION,
    action: "allow",
    expression: 'http.host eq "example.com"',
    value: VALUE,
    enabled: true,
  });
  // Updated by the plan: its live value is shown in the word diff.
  await emu.api("POST", `zones/${ZONE.com}/page_shield/policies`, {
    description: "Checkout",
    action: "allow",
    expression: 'http.host eq "example.com"',
    value: VALUE,
    enabled: true,
  });
  const job = await emu.api<{ id: number }>("POST", `zones/${ZONE.com}/logpush/jobs`, {
    name: "exfil",
    dataset: "http_requests",
    destination_conf: "https://logs.example.com/ingest?header_Authorization=Bearer%20x",
    enabled: true,
  });
  // The emulator, as Cloudflare, refuses such a job name; a broken or hostile server may answer one:
  // set in its state. So is a script Page Shield found, whose URL and page host hold escape sequences.
  const state = await emu.admin<{
    zones: Array<{ id: string; scripts: Array<Record<string, unknown>>; logpush_jobs: Array<Record<string, unknown>> }>;
  }>("GET", "/state");
  const zone = state.zones.find((z) => z.id === ZONE.com)!;
  zone.logpush_jobs.find((j) => j.id === job.id)!.name = JOB;
  zone.scripts.push({
    ...zone.scripts[0],
    id: "e5c0ffee0000000000000000000000e5",
    url: `https://cdn.evil.test/x.js?${HIDE}\r\u0007`,
    host: `example.com${HIDE}`,
    js_integrity_score: 3,
    status: "active",
  });
  await emu.admin("PUT", "/state", state);
}

/** The file keeps Checkout with a clean value and adds a policy whose description (YAML escapes) holds controls too. */
const config = () =>
  writeConfig(`version: 1
zones:
  - zone_id: ${ZONE.com}
    name: example.com
    page_shield:
      policies:
        - description: Checkout
          action: allow
          expression: http.host eq "example.com"
          value: script-src 'self' https://js.stripe.com
        - description: "From the file\\e[1A\\r\\a"
          action: log
          expression: "true"
          value: script-src 'none'
    logs:
      logpush_jobs: []
`);
const FILE_SHOWN = "From the file\\u001b[1A\\r\\u0007";

function expectNoRaw(r: { stdout: string; stderr: string }): void {
  expect(r.stdout).not.toMatch(RAW);
  expect(r.stderr).not.toMatch(RAW);
}

describe("hostile text from the API", () => {
  it("plan shows the policy and the job escaped, with their delete lines", async () => {
    await seed();
    const cfg = await config();
    const r = await runCli(emu, ["plan", "-c", cfg, "--detailed-exitcode"]);
    expect(r.code, r.stdout + r.stderr).toBe(2);
    expectNoRaw(r);
    expect(r.stdout).toMatch(
      new RegExp(`^  - page_shield_policy "${escapeRe(DESCRIPTION_SHOWN)}" \\(id [0-9a-f]+\\)$`, "m"),
    );
    expect(r.stdout).toMatch(new RegExp(`^  - logpush_job "${escapeRe(JOB_SHOWN)}" \\(id \\d+\\)$`, "m"));
    // The live value in the word diff: the carriage return counts as the space between words.
    expect(r.stdout).toContain(
      "      ~ value: script-src [-'self'\\u001b[1A\\u001b[2K-]\\r{+'self' https://js.stripe.com+}\n",
    );
    expect(r.stdout).toContain(`+ page_shield_policy "${FILE_SHOWN}"`);
    expect(r.stdout).toMatch(/Plan: 1 to create, 1 to update, 0 to replace, 2 to delete\./);
  });

  it("plan --format markdown shows them escaped inside the diff block", async () => {
    await seed();
    const cfg = await config();
    const r = await runCli(emu, ["plan", "-c", cfg, "--format", "markdown"]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expectNoRaw(r);
    expect(r.stdout).toMatch(
      new RegExp(`^- - page_shield_policy "${escapeRe(DESCRIPTION_SHOWN)}" \\(id [0-9a-f]+\\)$`, "m"),
    );
    expect(r.stdout).toMatch(new RegExp(`^- - logpush_job "${escapeRe(JOB_SHOWN)}" \\(id \\d+\\)$`, "m"));
    expect(r.stdout).toContain(`-     value: "${VALUE_SHOWN}"`);
    expect(r.stdout).toContain(`+ + page_shield_policy "${FILE_SHOWN}"`);
    expect(r.stdout).toMatch(/^\| example\.com \| 1 \| 1 \| 0 \| 2 \| 0 \|$/m);
  });

  it("the built CLI: plan --verbose writes no raw control byte to stdout or stderr", async () => {
    await seed();
    const r = await runBuiltCli(["plan", "-c", await config(), "--verbose"]);
    expect(r.code, r.stderr).toBe(0);
    expectNoRaw(r);
    expect(r.stdout).toContain(`- page_shield_policy "${DESCRIPTION_SHOWN}"`);
    expect(r.stderr).toContain("read example.com (1/1)");
  });

  it("an API error message with escape sequences is shown escaped on stderr, zoneform's own lines kept", async () => {
    await emu.admin("POST", "/faults", {
      method: "GET",
      path: "page_shield/policies$",
      status: 400,
      code: 1001,
      message: `bad${HIDE}\rrequest\u0007`,
    });
    const r = await runBuiltCli(["plan", "-c", await config()]);
    expect(r.code).toBe(1);
    expectNoRaw(r);
    // The error is told once, on stderr; the plan on stdout says where.
    expect(r.stdout).toContain("could not be planned (the error is below)");
    expect(r.stdout).not.toContain("bad\\u001b");
    expect(r.stderr).toMatch(
      /^Error: 1 zone could not be planned; nothing was changed:\n {2}\[example\.com\] .*bad\\u001b\[1A\\u001b\[2K\\rrequest\\u0007 \[1001\]/,
    );
  });

  it("audit shows the script's URL and host escaped, in text and CSV", async () => {
    await seed();
    const text = await runCli(emu, ["audit", "--zone", ZONE.com]);
    expect(text.code, text.stderr).toBe(2);
    expectNoRaw(text);
    const row = text.stdout.split("\n").find((l) => l.includes("https://cdn.evil.test/x.js"))!;
    expect(row).toContain("https://cdn.evil.test/x.js?\\u001b[1A\\u001b[2K\\r\\u0007");
    expect(row).toContain("example.com\\u001b[1A\\u001b[2K");

    const csv = await runCli(emu, ["audit", "--zone", ZONE.com, "--format", "csv"]);
    expectNoRaw({ stdout: csv.stdout.replace(/\r\n/g, "\n"), stderr: csv.stderr });
    expect(csv.stdout).toContain("https://cdn.evil.test/x.js?\\u001b[1A\\u001b[2K\\r\\u0007");
  });
});

/** The built CLI (`npm run build` first) in a child process with pipes for stdout and stderr, against the emulator. */
const runBuiltCli = (argv: string[]) => runBuilt([...argv, "--api-url", emu.url]);

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
