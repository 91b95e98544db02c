// Decisions made on attacker-chosen text (issue 34), end to end over real HTTP against the emulator:
// Page Shield reports script URLs a skimmer chooses (seeded through the emulator's admin API,
// POST /__emulator/scripts). Each scenario asserts the exit code, the exact calls (nothing written to
// the zone unless an apply was asked for), what is written to disk, and what the outputs hold.
// - look-alike hosts (the suffix trick, user info, a zero-width character, an IDN homograph, one edit
//   away) are their own finding in every format, fail the audit, and are never drafted or merged;
// - a url pattern whose * would extend the host is refused by validate, with the fix, before any call;
// - `;` and `,` in a seen host never reach a CSP value, and validate refuses a value holding them;
// - `${env:…}` in a seen URL is written `$${…}`: the merged file plans without reading the variable.
import { readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { parse } from "yaml";
import { beforeEach, describe, expect, it } from "vitest";
import { TestEmulator, runCli, tempDir, zoneId } from "../helpers/cli.js";

const emu = TestEmulator.perFile();
const NAME = "pay.example";
const ZID = zoneId(NAME);
const PAGE = "pay.example/checkout";
const LIST = `GET zones/${ZID}/page_shield/scripts`;

/** What the emulator's payment pages load (src/emulator/areas/page_shield/inventory.ts), authorized. */
const AUTHORIZED = [
  "https://js.stripe.com/v3/*",
  "https://www.pay.example/assets/checkout.js",
  "https://pay.example/pay/app.js",
  "https://www.googletagmanager.com/gtag/js?id=G-PAY0001",
  "https://cdn.jsdelivr.net/npm/card-validator@10.0.0/dist/card-validator.min.js",
];

/** The hostile corpus: each looks like js.stripe.com to a person reading a report. */
const LOOKALIKES = {
  suffix: "https://js.stripe.com.evil.example/skimmer.js",
  userinfo: "https://js.stripe.com@evil.example/skimmer.js",
  zeroWidth: "https://js.stri\u200bpe.com/v3/",
  homograph: "https://js.xn--strpe-p2e.com/v3/",
  oneEdit: "https://js.strlpe.com/v3/",
};

async function setUp(): Promise<string> {
  await emu.admin("POST", "/zones", { name: NAME, plan: "enterprise" });
  await emu.admin("POST", "/inventory", {
    zone_id: ZID,
    scripts: 0,
    connections: 0,
    cookies: 0,
    malicious_ratio: 0,
    payment_pages: true,
  });
  return tempDir("zoneform-hostile-");
}

const seen = (url: string, page = PAGE) => emu.admin("POST", "/scripts", { zone_id: ZID, event: "seen", url, page });

function zoneFile(authorized: readonly string[], extra = ""): string {
  return [
    "version: 1",
    "zones:",
    `  - zone_id: ${ZID}`,
    `    name: ${NAME}`,
    "    page_shield:",
    ...(extra ? [extra] : []),
    "      script_inventory:",
    "        pages: [pay.example/checkout*, pay.example/pay/*]",
    "        authorized:",
    ...authorized.flatMap((u) => [
      `          - url: ${JSON.stringify(u)}`,
      "            justification: reviewed",
      "            owner: payments",
    ]),
    "",
  ].join("\n");
}

describe("look-alike hosts", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await setUp();
  });

  it("validate refuses a * that extends the host, with the fix, and audit -c stops before any call", async () => {
    const config = join(dir, "zoneform.yaml");
    await writeFile(config, zoneFile(["https://js.stripe.com*", "https://user@www.pay.example/assets/checkout.js"]));
    const v = await runCli(undefined, ["validate", "-c", config]);
    expect(v.code).toBe(3);
    expect(v.stderr).toMatch(
      /zoneform\.yaml:9:\d+ .*authorized\/0\/url .*would extend the host: it also covers https:\/\/js\.stripe\.com\.evil\.example\/…, another host; end the host with '\/': write https:\/\/js\.stripe\.com\/\* \(every script of that host\)/,
    );
    expect(v.stderr).toMatch(/zoneform\.yaml:12:\d+ .*authorized\/1\/url .*no user info/);
    await emu.clearRequests();
    const audit = await runCli(emu, ["audit", "-c", config]);
    expect(audit.code).toBe(3);
    expect(await emu.calls()).toEqual([]);
  });

  it("audit -c: each look-alike is its own finding in every format, fails the audit, and writes nothing", async () => {
    const config = join(dir, "zoneform.yaml");
    await writeFile(config, zoneFile(AUTHORIZED));
    const clean = await runCli(emu, ["audit", "-c", config]);
    expect(clean.code, clean.stdout + clean.stderr).toBe(0);

    for (const url of Object.values(LOOKALIKES)) await seen(url);
    await emu.clearRequests();
    const text = await runCli(emu, ["audit", "-c", config]);
    expect(text.code, text.stderr).toBe(2);
    // The malicious pass over every script, then the in-scope list; nothing but reads.
    expect(await emu.calls()).toEqual([
      LIST,
      `GET zones/${ZID}/page_shield/connections`,
      `GET zones/${ZID}/page_shield/cookies`,
      LIST,
    ]);
    expect(text.stdout).toContain("Scripts: 10 read, 0 malicious, 5 look-alike hosts");
    expect(text.stdout).toContain(
      "HIGH look-alike host: https://js.stripe.com.evil.example/skimmer.js (seen on pay.example/checkout) looks " +
        "like an authorized host, js.stripe.com: js.stripe.com.evil.example carries stripe.com in a longer name, " +
        "but is under evil.example; never authorize it",
    );
    // The zero-width character is shown as an escape, never as itself.
    expect(text.stdout).toContain("https://js.stri\\u200bpe.com/v3/");
    expect(text.stdout).not.toContain("\u200b");
    expect(text.stdout).toContain("punycode label xn--strpe-p2e (shown as js.strіpe.com)");
    expect(text.stdout).toContain("js.strlpe.com is 1 character away from js.stripe.com");
    expect(text.stdout).toMatch(/the URL carries user info \('js\.stripe\.com@'\)|\(sensitive\)/);
    expect(text.stdout.trimEnd().split("\n").pop()).toBe(
      "Findings: 0 malicious scripts, 0 malicious connections, 0 insecure cookies, 10 look-alike hosts, " +
        "5 unauthorized scripts, 0 unreviewed (draft) entries, 0 changed scripts, 0 stale authorizations.",
    );

    const json = await runCli(emu, ["audit", "-c", config, "--format", "json"]);
    expect(json.code).toBe(2);
    const doc = JSON.parse(json.stdout);
    const inv = doc.zones[0].script_inventory;
    expect(
      inv.findings
        .filter((f: { type: string }) => f.type === "lookalike")
        .map((f: { url: string; signals: string[] }) => [f.url, f.signals])
        .sort(),
    ).toEqual(
      [
        [LOOKALIKES.suffix, ["embedded"]],
        // A URL's user info is shown as (sensitive) in every report: it may hold a password.
        ["https://(sensitive)@evil.example/skimmer.js", ["userinfo"]],
        [LOOKALIKES.zeroWidth, ["invisible"]],
        [LOOKALIKES.homograph, ["idn", "mixed-script", "homoglyph"]],
        [LOOKALIKES.oneEdit, ["edit-distance"]],
      ].sort(),
    );
    expect(doc.zones[0].findings.filter((f: { lookalike?: unknown }) => f.lookalike)).toHaveLength(5);
    expect(doc.totals).toMatchObject({ lookalike_hosts: 10, unauthorized_scripts: 5, malicious_scripts: 0 });

    const csv = await runCli(emu, ["audit", "-c", config, "--format", "csv"]);
    const rows = csv.stdout.split("\r\n").filter((r) => !r.startsWith(",result,"));
    expect(rows.filter((r) => r.includes(",lookalike,"))).toHaveLength(10);
    const md = await runCli(emu, ["audit", "-c", config, "--format", "markdown"]);
    expect(md.stdout).toContain("| Look-alike host | 6.4.3 |");

    const sarif = await runCli(emu, ["audit", "-c", config, "--format", "sarif"], { cwd: dir });
    expect(sarif.code).toBe(2);
    const results = JSON.parse(sarif.stdout).runs[0].results as Array<{ ruleId: string }>;
    expect(results.filter((r) => r.ruleId === "zoneform/lookalike-host")).toHaveLength(10);
    expect(results.filter((r) => r.ruleId === "zoneform/unauthorized-script")).toHaveLength(5);

    // --fail-on picks them: lookalike alone fails, changed alone does not.
    expect((await runCli(emu, ["audit", "-c", config, "--fail-on", "lookalike"])).code).toBe(2);
    expect((await runCli(emu, ["audit", "-c", config, "--fail-on", "changed"])).code).toBe(0);
    expect(await emu.calls({ writesOnly: true })).toEqual([]);
  });

  it("inventory never drafts or merges a look-alike, says so, and leaves an unchanged file unwritten", async () => {
    for (const url of Object.values(LOOKALIKES)) await seen(url);
    const draft = await runCli(emu, ["inventory", "--zone", NAME, "--pages", "pay.example/checkout*"]);
    expect(draft.code, draft.stderr).toBe(0);
    expect(draft.stdout).not.toMatch(/url: .*(evil\.example|strlpe|xn--|\u200b)/);
    // Comment lines fit 80 columns: continuation lines joined back for the check.
    expect(draft.stdout.replace(/\n *#(?: {2}(?! )| {5,})/g, " ")).toContain(
      "# Left out, 5 look-alikes of a trusted host (never authorize; remove from the page):",
    );
    expect(draft.stderr.match(/^Warning: left out /gm)).toHaveLength(5);
    expect(draft.stderr).toContain("Warning: left out https://js.stri\\u200bpe.com/v3/: looks like js.stripe.com");

    const config = join(dir, "zoneform.yaml");
    await writeFile(config, zoneFile(AUTHORIZED));
    const before = await stat(config);
    await emu.clearRequests();
    const merge = await runCli(emu, ["inventory", "--zone", NAME, "--merge", config]);
    expect(merge.code, merge.stderr).toBe(0);
    expect(merge.stderr).toContain("inventory: 0 new scripts added");
    expect(merge.stderr.match(/^Warning: left out /gm)).toHaveLength(5);
    expect(await readFile(config, "utf8")).toBe(zoneFile(AUTHORIZED));
    expect((await stat(config)).mtimeMs).toBe(before.mtimeMs);
    expect(await emu.calls()).toEqual(["GET zones", LIST]);

    const sarif = await runCli(emu, ["inventory", "--zone", NAME, "--merge", config, "--format", "sarif"], {
      cwd: dir,
    });
    expect(sarif.code).toBe(0);
    const rules = (JSON.parse(sarif.stdout).runs[0].results as Array<{ ruleId: string }>).map((r) => r.ruleId);
    expect(rules.filter((r) => r === "zoneform/lookalike-host")).toHaveLength(5);
  });
});

describe("CSP values", () => {
  beforeEach(async () => {
    await setUp();
  });

  it("csp suggest keeps ';' and ',' of seen hosts out of the policy, which then applies and plans clean", async () => {
    await seen("https://a.example;report-uri/x.js");
    await seen("https://attacker.example/collect.js");
    await seen("https://js.stripe.com,script-src/x.js");
    await seen(LOOKALIKES.suffix);
    await emu.clearRequests();
    const r = await runCli(emu, ["csp", "suggest", "--zone", NAME, "--format", "yaml", "--description", "Pay"]);
    expect(r.code, r.stderr).toBe(0);
    expect(await emu.calls()).toEqual(["GET zones", LIST, `GET zones/${ZID}/page_shield/connections`]);
    expect(r.stderr).toContain(
      "Warning: csp suggest left out 3 item(s) whose URL or page host is not a valid CSP source or is a look-alike",
    );
    expect(r.stdout).toContain(
      "#   script https://a.example;report-uri/x.js: not a CSP source: its host: a ';' would end the directive",
    );
    expect(r.stdout).toContain("#   script https://js.stripe.com,script-src/x.js: not a CSP source: its host: a ','");
    const [policy] = parse(r.stdout) as Array<{ value: string }>;
    expect(policy!.value).toBe(
      "script-src 'self' https://attacker.example https://cdn.jsdelivr.net https://js.stripe.com " +
        "https://www.googletagmanager.com https://www.pay.example",
    );

    const text = await runCli(emu, ["csp", "suggest", "--zone", NAME]);
    expect(text.stdout).toContain("Left out, not a valid CSP source or from a look-alike host (never allow these):");
    expect(text.stdout).not.toMatch(/report-uri https|,script-src /);

    const indented = r.stdout
      .split("\n")
      .map((l) => (l ? `      ${l}` : l))
      .join("\n");
    const config = join(await tempDir("zoneform-csp-"), "zoneform.yaml");
    await writeFile(config, `version: 1\nzones:\n  - zone_id: ${ZID}\n    page_shield:\n      policies:\n${indented}`);
    expect((await runCli(undefined, ["validate", "-c", config])).code).toBe(0);
    await emu.clearRequests();
    const apply = await runCli(emu, ["apply", "-c", config, "--auto-approve"]);
    expect(apply.code, apply.stdout + apply.stderr).toBe(0);
    expect(await emu.calls({ writesOnly: true })).toEqual([`POST zones/${ZID}/page_shield/policies`]);
    const sent = (await emu.requests()).find((q) => q.method === "POST")!;
    expect((sent.body as { value: string }).value).toBe(policy!.value);
    const plan = await runCli(emu, ["plan", "-c", config, "--detailed-exitcode"]);
    expect(plan.code, plan.stdout).toBe(0);
  });

  it("validate, plan and apply refuse a policy value with ';' or ',' in a source, naming the line; nothing is sent", async () => {
    const config = join(await tempDir("zoneform-csp-"), "zoneform.yaml");
    await writeFile(
      config,
      [
        "version: 1",
        "zones:",
        `  - zone_id: ${ZID}`,
        "    page_shield:",
        "      policies:",
        "        - description: Pay",
        "          action: log",
        "          expression: 'true'",
        "          value: script-src 'self' https://a.example;report-uri https://attacker.example",
        "        - description: Second",
        "          action: allow",
        "          expression: 'true'",
        "          value: script-src https://js.stripe.com,script-src 'none'",
        "",
      ].join("\n"),
    );
    const v = await runCli(undefined, ["validate", "-c", config]);
    expect(v.code).toBe(3);
    expect(v.stderr).toMatch(/zoneform\.yaml:9:\d+ .*policies\/0\/value .*a ';' may only separate directives/);
    expect(v.stderr).toMatch(/zoneform\.yaml:13:\d+ .*policies\/1\/value .*would start a second policy/);
    await emu.clearRequests();
    expect((await runCli(emu, ["plan", "-c", config])).code).toBe(3);
    expect((await runCli(emu, ["apply", "-c", config, "--auto-approve"])).code).toBe(3);
    expect(await emu.calls()).toEqual([]);
  });
});

describe("${env:…} in a seen URL", () => {
  it("is written $${…} by inventory --merge: the file plans without the variable and never reads it", async () => {
    const dir = await setUp();
    const hostile = "https://www.pay.example/assets/${env:ZONEFORM_TEST_SECRET}.js";
    await seen(hostile);
    const config = join(dir, "zoneform.yaml");
    await writeFile(config, zoneFile(AUTHORIZED));
    const merge = await runCli(emu, ["inventory", "--zone", NAME, "--merge", config]);
    expect(merge.code, merge.stderr).toBe(0);
    expect(merge.stderr).toContain("inventory: 1 new script added");
    const text = await readFile(config, "utf8");
    expect(text).toContain("- url: https://www.pay.example/assets/$${env:ZONEFORM_TEST_SECRET}.js\n");

    // Unset: validate and plan go on (no missing variable), and plan has nothing to do.
    const v = await runCli(undefined, ["validate", "-c", config, "--require-env"]);
    expect(v.code, v.stderr).toBe(0);
    expect(v.stderr).not.toContain("ZONEFORM_TEST_SECRET");
    await emu.clearRequests();
    const plan = await runCli(emu, ["plan", "-c", config, "--detailed-exitcode"]);
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
    // Set: its value is not read into the file's text, and appears nowhere.
    const secret = "s3cr3t-value-never-shown";
    // A person reviews the merged draft (it authorizes nothing until then).
    await writeFile(
      config,
      text.replace(
        /^( *)justification: "TODO: why this script is needed on the payment page"$/m,
        (_m, indent: string) => `${indent}justification: reviewed\n${indent}owner: web`,
      ),
    );
    const audit = await runCli(emu, ["audit", "-c", config, "--format", "json"], {
      env: { ZONEFORM_TEST_SECRET: secret },
    });
    expect(audit.code, audit.stdout + audit.stderr).toBe(0);
    expect(audit.stdout + audit.stderr).not.toContain(secret);
    const row = JSON.parse(audit.stdout).zones[0].script_inventory.authorized.find((a: { url: string }) =>
      a.url.includes("env:"),
    );
    expect(row).toMatchObject({ url: hostile, state: "ok", scripts: 1 });

    // The policy csp suggest --from-inventory writes escapes it too (CSP percent-encodes its braces).
    const fromInv = await runCli(undefined, ["csp", "suggest", "--from-inventory", "-c", config, "--format", "yaml"]);
    expect(fromInv.code, fromInv.stderr).toBe(0);
    expect(fromInv.stdout).toContain("https://www.pay.example/assets/$%7Benv:ZONEFORM_TEST_SECRET%7D.js");
    expect(await emu.calls({ writesOnly: true })).toEqual([]);
  });
});
