// The hostile corpus (test/fixtures/hostile-corpus.ts) from the live API and from the file, through
// every command's every output, by the CLI against the emulator: plan (text, Markdown, JSON, the saved
// plan), show, drift, audit (text, Markdown, JSON, CSV, SARIF, with a script inventory), inventory (the
// draft, SARIF), csp suggest (text, YAML), certificates (text, JSON). No hostile construct survives live
// in any of them: no Markdown markup, link, image, mention, reference or character reference made of
// data, no embedded SARIF link, no raw control, invisible or bidirectional character; JSON and YAML keep
// the data as it was.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { parse } from "yaml";
import { describe, expect, it } from "vitest";
import { TestEmulator, ZONE, runCli, tempDir, writeConfig, type CliResult } from "../helpers/cli.js";
import { HOSTILE, HOSTILE_URL, liveMarkdown, liveSarif, liveTerminal } from "../fixtures/hostile-corpus.js";

const emu = TestEmulator.perFile();
const Z = ZONE.com;
const PAGE = "example.com/checkout";

type Zone = { id: string; [k: string]: any };

/** The corpus in the live zone: policies, a Logpush job, scripts, a connection, a cookie, a custom hostname. */
async function seed(): Promise<void> {
  for (const description of ["doomed", "Checkout"])
    await emu.api("POST", `zones/${Z}/page_shield/policies`, {
      description,
      action: "allow",
      expression: 'http.host eq "example.com"',
      value: "script-src 'self'",
      enabled: true,
    });
  const job = await emu.api<{ id: number }>("POST", `zones/${Z}/logpush/jobs`, {
    name: "doomed",
    dataset: "http_requests",
    destination_conf: "https://logs.example.com/ingest?region=eu",
    enabled: true,
  });
  // The emulator, as Cloudflare, refuses such text; a broken or hostile server may answer it: set in its state.
  const state = await emu.admin<{ zones: Zone[] }>("GET", "/state");
  const zone = state.zones.find((z) => z.id === Z)!;
  const doomed = zone.policies.find((p: any) => p.description === "doomed");
  Object.assign(doomed, { description: HOSTILE, value: `script-src 'self' ${HOSTILE}` });
  zone.policies.find((p: any) => p.description === "Checkout").value = `script-src ${HOSTILE}`;
  zone.logpush_jobs.find((j: any) => j.id === job.id).name = HOSTILE;
  const script = zone.scripts[0];
  zone.scripts.push(
    {
      ...script,
      id: "e5c0ffee0000000000000000000000e5",
      url: HOSTILE_URL,
      host: HOSTILE,
      js_integrity_score: 3,
      status: "active",
      first_page_url: PAGE,
      page_urls: [PAGE],
      malicious_domain_categories: [HOSTILE],
    },
    {
      ...script,
      id: "e5c0ffee0000000000000000000000e6",
      url: `https://cdn.shop.example/${encodeURIComponent(HOSTILE)}.js`,
      host: "cdn.shop.example",
      js_integrity_score: 90,
      status: "active",
      first_page_url: HOSTILE,
      page_urls: [PAGE, HOSTILE],
    },
  );
  zone.connections.push({
    ...zone.connections[0],
    id: "e5c0ffee0000000000000000000000c1",
    url: HOSTILE_URL,
    host: HOSTILE,
    url_reported_malicious: true,
    first_page_url: HOSTILE,
    status: "active",
  });
  zone.cookies.push({ ...zone.cookies[0], id: "e5c0ffee0000000000000000000000k1", name: HOSTILE, host: HOSTILE });
  zone.custom_hostnames.push({
    ...zone.custom_hostnames[0],
    id: "e5c0ffee-0000-0000-0000-000000000001",
    hostname: HOSTILE,
    ssl: { ...zone.custom_hostnames[0].ssl, certificate_authority: HOSTILE, status: HOSTILE, method: HOSTILE },
  });
  await emu.admin("PUT", "/state", state);
}

/** The file as a pull request may write it: the corpus in the zone's name, a policy and the inventory. */
const config = () =>
  writeConfig(`version: 1
zones:
  - zone_id: ${Z}
    name: ${JSON.stringify(HOSTILE)}
    page_shield:
      policies:
        - description: Checkout
          action: allow
          expression: http.host eq "example.com"
          value: script-src 'self' https://js.stripe.com
        - description: ${JSON.stringify(HOSTILE)}
          action: log
          expression: "true"
          value: script-src 'none'
      script_inventory:
        pages: [${PAGE}]
        authorized:
          - url: https://cdn.shop.example/app.js
            justification: ${JSON.stringify(HOSTILE)}
            owner: ${JSON.stringify(HOSTILE)}
    logs:
      logpush_jobs: []
`);

/** Fails listing what is live in an output, naming the command. */
function expectInert(problems: string[], what: string): void {
  expect(problems, what).toEqual([]);
}

const markdown = (r: CliResult, what: string) => {
  expectInert(liveMarkdown(r.stdout), `${what}: stdout`);
  expectInert(liveTerminal(r.stderr), `${what}: stderr`);
};
const terminal = (r: CliResult, what: string) => expectInert(liveTerminal(r.stdout + r.stderr), what);

describe("the hostile corpus through every command", () => {
  it("plan, the saved plan, show and drift, in every format", async () => {
    await seed();
    const cfg = await config();
    const file = join(await tempDir(), "plan.json");
    const text = await runCli(emu, ["plan", "-c", cfg, "--verbose", "--out", file]);
    expect(text.code, text.stderr).toBe(0);
    terminal(text, "plan");
    // The change lines the corpus would hide are there (the file's policy is the live one by its description).
    expect(text.stdout).toMatch(/^ {2}~ page_shield_policy "<img src=x onerror=alert\(1\)>.*\(id [0-9a-f]+\)$/m);
    expect(text.stdout).toMatch(/^ {2}- logpush_job "<img src=x.*\(id \d+\)$/m);
    const saved = await readFile(file, "utf8");
    expectInert(liveTerminal(saved), "the plan file");
    expect(JSON.parse(saved).zones[0].name).toBe(HOSTILE);
    const md = await runCli(emu, ["plan", "-c", cfg, "--format", "markdown"]);
    expect(md.code, md.stderr).toBe(0);
    markdown(md, "plan --format markdown");
    expect(md.stdout).toContain("<summary><code>&lt;img src=x onerror=alert(1)&gt; &lt;/details&gt;");
    const json = await runCli(emu, ["plan", "-c", cfg, "--format", "json"]);
    terminal(json, "plan --format json");
    expect(JSON.parse(json.stdout).zones[0].name).toBe(HOSTILE);

    const showText = await runCli(undefined, ["show", file, "--verbose"]);
    expect(showText.code, showText.stderr).toBe(0);
    terminal(showText, "show");
    markdown(await runCli(undefined, ["show", file, "--format", "markdown"]), "show --format markdown");
    const showJson = await runCli(undefined, ["show", file, "--format", "json"]);
    terminal(showJson, "show --format json");
    expect(JSON.parse(showJson.stdout).zones[0].name).toBe(HOSTILE);

    const drift = await runCli(emu, ["drift", "-c", cfg]);
    expect(drift.code, drift.stderr).toBe(2);
    terminal(drift, "drift");
    markdown(await runCli(emu, ["drift", "-c", cfg, "--format", "markdown"]), "drift --format markdown");
    terminal(await runCli(emu, ["drift", "-c", cfg, "--format", "json"]), "drift --format json");
  });

  it("audit with the script inventory, in every format", async () => {
    await seed();
    const cfg = await config();
    const text = await runCli(emu, ["audit", "-c", cfg, "--verbose"]);
    expect(text.code, text.stderr).toBe(2);
    terminal(text, "audit");
    const md = await runCli(emu, ["audit", "-c", cfg, "--format", "markdown"]);
    markdown(md, "audit --format markdown");
    expect(md.stdout).toContain("### Script inventory of the payment pages");
    const csv = await runCli(emu, ["audit", "-c", cfg, "--format", "csv"]);
    expectInert(liveTerminal(csv.stdout.replace(/\r\n/g, "\n") + csv.stderr), "audit --format csv");
    const json = await runCli(emu, ["audit", "-c", cfg, "--format", "json"]);
    terminal(json, "audit --format json");
    const doc = JSON.parse(json.stdout);
    expect(doc.zones[0].findings.some((f: { subject: string }) => f.subject === HOSTILE_URL)).toBe(true);
    expect(doc.zones[0].script_inventory.authorized[0].justification).toBe(HOSTILE);
    const sarif = await runCli(emu, ["audit", "-c", cfg, "--format", "sarif"]);
    expectInert(liveSarif(sarif.stdout), "audit --format sarif");
    expect(JSON.parse(sarif.stdout).runs[0].results.length).toBeGreaterThan(2);
  });

  it("inventory (draft and SARIF), csp suggest (text and YAML), certificates (text and JSON)", async () => {
    await seed();
    const cfg = await config();
    const draft = await runCli(emu, ["inventory", "--zone", Z, "--pages", PAGE]);
    expect(draft.code, draft.stderr).toBe(0);
    terminal(draft, "inventory");
    const urls = (parse(draft.stdout).script_inventory.authorized as Array<{ url: string }>).map((a) => a.url);
    expect(urls).toContain(`https://cdn.shop.example/${encodeURIComponent(HOSTILE)}.js`);
    const merged = await runCli(emu, ["inventory", "--zone", Z, "--pages", PAGE, "--format", "sarif", "--merge", cfg]);
    expectInert(liveSarif(merged.stdout), "inventory --format sarif");
    expectInert(liveTerminal(merged.stderr), "inventory --format sarif: stderr");

    const csp = await runCli(emu, ["csp", "suggest", "--zone", Z]);
    expect(csp.code, csp.stderr).toBe(0);
    terminal(csp, "csp suggest");
    const yaml = await runCli(emu, ["csp", "suggest", "--zone", Z, "--format", "yaml"]);
    terminal(yaml, "csp suggest --format yaml");
    expect(parse(yaml.stdout)).toHaveLength(1);

    const certs = await runCli(emu, ["certificates", "--zone", Z]);
    expect(certs.code, certs.stderr).toBe(0);
    terminal(certs, "certificates");
    const certsJson = await runCli(emu, ["certificates", "--zone", Z, "--format", "json"]);
    terminal(certsJson, "certificates --format json");
    expect(JSON.stringify(JSON.parse(certsJson.stdout))).toContain(JSON.stringify(HOSTILE).slice(1, 40));
  });
});
