// The authorized-script inventory of payment pages (issue 20) end to end over real HTTP: `inventory`
// drafts a block from the emulator's payment-page scripts; `audit -c` with it exits 0; an unauthorized
// script appears (exit 2); a pinned script changes hash (exit 2, "changed script … fetched at …"); an
// authorization goes stale (reported, exit 0 unless --fail-on stale); `inventory --merge` then `audit`
// exits 0; with the inventory in the file's `defaults:`, the merge adds there (refused while other zones
// share it, unless --into-defaults) and `--format sarif` points at its lines. Exact calls from the
// emulator's request log: one list per zone, details only when needed.
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { TestEmulator, runCli, tempDir, zoneId } from "../helpers/cli.js";

const emu = TestEmulator.perFile();
const NAME = "pay.example";
const ZID = zoneId(NAME);
const PAGES = ["pay.example/checkout*", "pay.example/pay/*"];
const STRIPE = "https://js.stripe.com/v3/";
const OWN = "https://www.pay.example/assets/checkout.js";

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
  return tempDir("zoneform-inventory-");
}

function zoneFile(block: string): string {
  const indented = block
    .split("\n")
    .map((l) => (l === "" ? l : `      ${l}`))
    .join("\n");
  return `version: 1\nzones:\n  - zone_id: ${ZID}\n    name: ${NAME}\n    page_shield:\n${indented}\n`;
}

/** The draft as a person reviews it: each TODO justification written, and an owner named. */
function reviewed(block: string): string {
  return block.replace(
    /^( *)justification: "TODO: why this script is needed on the payment page"$/gm,
    (_m, indent: string) =>
      `${indent}justification: "reviewed: the payment provider's script"\n${indent}owner: payments-team`,
  );
}

const scriptCalls = async () => (await emu.calls()).filter((c) => c.includes("/page_shield/scripts"));

describe("script inventory of payment pages", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await setUp();
  });

  it("inventory drafts the block, audit -c passes, then flags unauthorized, changed and stale scripts", async () => {
    const draft = join(dir, "inventory.yaml");
    const inv = await runCli(emu, [
      "inventory",
      "--zone",
      NAME,
      "--pages",
      PAGES[0]!,
      "--pages",
      PAGES[1]!,
      "--pin-hashes",
      "--out",
      draft,
    ]);
    expect(inv.code, inv.stderr).toBe(0);
    const block = await readFile(draft, "utf8");
    expect(block).toContain("script_inventory:");
    expect(block).toContain(`- url: ${STRIPE}`);
    expect(block).toContain('justification: "TODO: why this script is needed on the payment page"');
    expect(block).toMatch(/hash: [0-9a-f]{64}/);
    // One zone lookup, one list of the pages in scope, no detail.
    expect(await emu.calls()).toEqual(["GET zones", `GET zones/${ZID}/page_shield/scripts`]);
    const list = (await emu.requests()).find((r) => r.path.endsWith("/scripts"))!;
    expect(list.query).toMatchObject({ page_url: PAGES.join(","), status: "active,infrequent,inactive" });

    // Refuses to overwrite without --force.
    const again = await runCli(emu, ["inventory", "--zone", NAME, "--pages", PAGES[0]!, "--out", draft]);
    expect(again.code).toBe(3);
    expect(again.stderr).toContain("--force");

    const config = join(dir, "zoneform.yaml");
    await writeFile(config, zoneFile(block));
    const valid = await runCli(undefined, ["validate", "-c", config]);
    expect(valid.code, valid.stderr).toBe(0);
    expect(valid.stderr).toContain("the justification is still a TODO");
    expect(valid.stderr).toContain("the entry names no owner");
    // The draft as it is authorizes nothing: every entry is reported unreviewed, and the audit fails.
    const drafted = await runCli(emu, ["audit", "-c", config]);
    expect(drafted.code, drafted.stdout).toBe(2);
    expect(drafted.stdout).toContain(`unreviewed script ${STRIPE}: its inventory entry is a draft`);
    // A person reviews each entry: why it is needed, and who owns it.
    await writeFile(config, zoneFile(reviewed(block)));

    await emu.clearRequests();
    const clean = await runCli(emu, ["audit", "-c", config, "--format", "markdown"]);
    expect(clean.code, clean.stdout + clean.stderr).toBe(0);
    expect(clean.stdout).toContain("Script inventory of the payment pages (PCI DSS v4.0 6.4.3 and 11.6.1)");
    expect(clean.stdout).toContain("No unauthorized or changed script was seen");
    // The malicious audit's scripts list and the in-scope list; every pin matches: no detail read.
    expect(await scriptCalls()).toEqual([
      `GET zones/${ZID}/page_shield/scripts`,
      `GET zones/${ZID}/page_shield/scripts`,
    ]);

    // An unauthorized script appears on the checkout page.
    await emu.admin("POST", "/scripts", {
      zone_id: ZID,
      event: "seen",
      url: "https://evil.example/skimmer.js",
      page: "pay.example/checkout",
    });
    const unauthorized = await runCli(emu, ["audit", "-c", config]);
    expect(unauthorized.code).toBe(2);
    expect(unauthorized.stdout).toContain(
      "unauthorized script https://evil.example/skimmer.js: seen on pay.example/checkout",
    );
    expect(unauthorized.stdout).toContain(
      "1 unauthorized script, 0 unreviewed (draft) entries, 0 changed scripts, 0 stale authorizations",
    );
    expect((await runCli(emu, ["audit", "-c", config, "--fail-on", "changed"])).code).toBe(0);

    // A pinned script changes hash: its detail is read (the only one), and the new version's fetch time shown.
    await emu.admin("POST", "/scripts", {
      zone_id: ZID,
      event: "seen",
      url: "https://evil.example/skimmer.js",
      page: "pay.example/checkout",
    });
    const changedScript = await emu.admin<{ id: string; fetched_at: string }>("POST", "/scripts", {
      zone_id: ZID,
      event: "changed",
      url: OWN,
    });
    await emu.clearRequests();
    const changed = await runCli(emu, ["audit", "-c", config, "--fail-on", "changed", "--format", "json"]);
    expect(changed.code).toBe(2);
    const doc = JSON.parse(changed.stdout);
    const found = doc.zones[0].script_inventory.findings.find((f: { type: string }) => f.type === "changed");
    expect(found.message).toContain(`changed script ${OWN}: pinned hash`);
    expect(found.message).toContain(`(new version fetched at ${changedScript.fetched_at})`);
    expect(found.requirement).toBe("11.6.1");
    expect(doc.zones[0].script_inventory.details_read).toBe(1);
    expect((await scriptCalls()).filter((c) => /scripts\/[0-9a-f]{32}$/.test(c))).toEqual([
      `GET zones/${ZID}/page_shield/scripts/${changedScript.id}`,
    ]);

    // An authorization goes stale: reported, exit 0 unless --fail-on says.
    const fresh = join(dir, "fresh.yaml");
    await writeFile(fresh, zoneFile(reviewed(block.replace(/\n\s+hash: [0-9a-f]{64}/g, ""))));
    await emu.admin("POST", "/scripts", {
      zone_id: ZID,
      event: "unseen",
      url: "https://cdn.jsdelivr.net/npm/card-validator@10.0.0/dist/card-validator.min.js",
      days_ago: 120,
    });
    // The skimmer is gone (not seen for 200 days): no longer reported.
    await emu.admin("POST", "/scripts", {
      zone_id: ZID,
      event: "unseen",
      url: "https://evil.example/skimmer.js",
      days_ago: 200,
    });
    const stale = await runCli(emu, ["audit", "-c", fresh, "--format", "csv"]);
    expect(stale.code, stale.stdout).toBe(0);
    expect(stale.stdout).toMatch(
      /stale authorization https:\/\/cdn\.jsdelivr\.net\/npm\/card-validator@10\.0\.0\/dist\/card-validator\.min\.js: last seen .* \(120 days ago\)/,
    );
    expect((await runCli(emu, ["audit", "-c", fresh, "--fail-on", "stale"])).code).toBe(2);
  });

  it("inventory --merge adds only what is new, keeping justifications and comments; audit then exits 0", async () => {
    const config = join(dir, "zoneform.yaml");
    await writeFile(
      config,
      [
        "# our payment pages",
        "version: 1",
        "zones:",
        `  - zone_id: ${ZID}`,
        `    name: ${NAME}`,
        "    page_shield:",
        "      script_inventory:",
        `        pages: ["${PAGES[0]}"]`,
        "        authorized:",
        "          # reviewed 2026-10-01 by the payments team",
        "          - url: https://js.stripe.com/v3/*",
        "            justification: Stripe Elements card form # PCI scope reduced",
        "            owner: payments",
        "",
      ].join("\n"),
    );
    // plan and apply ignore the inventory: nothing is read or planned for it.
    await emu.clearRequests();
    const plan = await runCli(emu, ["plan", "-c", config, "--detailed-exitcode"]);
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
    expect((await emu.calls()).filter((c) => c.includes("page_shield"))).toEqual([]);
    const before = await runCli(emu, ["audit", "-c", config]);
    expect(before.code).toBe(2);
    const merged = await runCli(emu, ["inventory", "--zone", ZID, "--pages", PAGES[1]!, "--merge", config]);
    expect(merged.code, merged.stderr).toBe(0);
    const text = await readFile(config, "utf8");
    expect(text).toContain("# our payment pages");
    expect(text).toContain("# reviewed 2026-10-01 by the payments team");
    expect(text).toContain("justification: Stripe Elements card form # PCI scope reduced");
    expect(text).not.toContain(`url: ${STRIPE}\n`);
    expect(text).toContain(`url: ${OWN}`);
    expect(text).toContain(PAGES[1]);
    // What the merge added is a draft: it authorizes nothing until a person has reviewed it.
    const drafted = await runCli(emu, ["audit", "-c", config]);
    expect(drafted.code, drafted.stdout + drafted.stderr).toBe(2);
    expect(drafted.stdout).toContain(`unreviewed script ${OWN}`);
    expect(drafted.stdout).not.toContain(`unreviewed script https://js.stripe.com/v3/*`);
    // A second merge adds nothing.
    const twice = await runCli(emu, ["inventory", "--zone", ZID, "--merge", config]);
    expect(twice.stderr).toContain("0 new scripts");
    expect(await readFile(config, "utf8")).toBe(text);
    await writeFile(config, reviewed(text));
    const after = await runCli(emu, ["audit", "-c", config]);
    expect(after.code, after.stdout + after.stderr).toBe(0);

    const csp = await runCli(undefined, ["csp", "suggest", "--from-inventory", "-c", config, "--format", "yaml"]);
    expect(csp.code, csp.stderr).toBe(0);
    expect(csp.stdout).toContain("action: allow");
    expect(csp.stdout).toContain("https://js.stripe.com/v3/");
    expect(csp.stdout).toContain('(http.host eq "pay.example" and starts_with(http.request.uri.path, "/checkout"))');
  });

  it("inventory --merge into defaults: refused while another zone shares it, --into-defaults adds there", async () => {
    const OTHER = "other.example";
    await emu.admin("POST", "/zones", { name: OTHER, plan: "enterprise" });
    const config = join(dir, "zoneform.yaml");
    const file = [
      "version: 1", // 1
      "defaults:", // 2
      "  page_shield:", // 3
      "    script_inventory:", // 4
      `      pages: ["${PAGES[0]}", "${PAGES[1]}"]`, // 5
      "      authorized:", // 6
      "        - url: https://js.stripe.com/v3/*", // 7
      "          justification: Stripe Elements card form # reviewed", // 8
      "          owner: payments", // 9
      "zones:", // 10
      `  - zone_id: ${ZID}`, // 11
      `    name: ${NAME}`, // 12
      `  - zone_id: ${zoneId(OTHER)}`, // 13
      `    name: ${OTHER}`, // 14
      "",
    ].join("\n");
    await writeFile(config, file);

    // --format sarif reads the zone's entries from defaults and points at them there.
    const sarif = await runCli(emu, ["inventory", "--zone", NAME, "--merge", config, "--format", "sarif"]);
    expect(sarif.code, sarif.stderr).toBe(0);
    const results = JSON.parse(sarif.stdout).runs[0].results as any[];
    expect(results.length).toBeGreaterThan(0);
    expect(results.some((r) => r.message.text.includes(STRIPE))).toBe(false);
    expect(results.map((r) => [r.ruleId, r.locations[0].physicalLocation.region.startLine])).toEqual(
      results.map(() => ["zoneform/unauthorized-script", 6]),
    );

    await emu.clearRequests();
    const refused = await runCli(emu, ["inventory", "--zone", NAME, "--merge", config]);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain(
      "zone pay.example takes page_shield.script_inventory.authorized from defaults:, as do other.example;",
    );
    expect(refused.stderr).toContain("--into-defaults");
    expect(refused.stderr).not.toMatch(/\n\s+at /);
    expect(await readFile(config, "utf8")).toBe(file);
    expect(await emu.calls()).toEqual(["GET zones", `GET zones/${ZID}/page_shield/scripts`]);

    const merged = await runCli(emu, ["inventory", "--zone", NAME, "--merge", config, "--into-defaults"]);
    expect(merged.code, merged.stderr).toBe(0);
    expect(merged.stderr).toContain(`added to defaults.page_shield.script_inventory of ${config}`);
    const text = await readFile(config, "utf8");
    // Spliced into defaults' list: the file above and the zones below it as written.
    expect(text.startsWith(file.split("zones:")[0]!)).toBe(true);
    expect(text.endsWith(`zones:${file.split("zones:")[1]}`)).toBe(true);
    expect(text.indexOf(`url: ${OWN}`)).toBeLessThan(text.indexOf("zones:"));
    const valid = await runCli(undefined, ["validate", "-c", config]);
    expect(valid.code, valid.stderr).toBe(0);
    const twice = await runCli(emu, ["inventory", "--zone", NAME, "--merge", config]);
    expect(twice.code, twice.stderr).toBe(0);
    expect(twice.stderr).toContain("0 new scripts");
    expect(await readFile(config, "utf8")).toBe(text);
    // The drafts added authorize nothing until a person has reviewed them.
    expect((await runCli(emu, ["audit", "-c", config])).code).toBe(2);
    await writeFile(config, reviewed(text));
    const after = await runCli(emu, ["audit", "-c", config]);
    expect(after.code, after.stdout + after.stderr).toBe(0);
  });
});
