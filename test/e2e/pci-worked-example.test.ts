// docs/pci-script-inventory.md's worked example, its steps as written, on the emulator as "Trying it on the
// emulator" sets it up: the skimmer on the checkout page is reported at the end whichever steps were
// followed. Issue 46: step 6 (`inventory --merge --headers`) used to merge every script seen, the skimmer
// included, as a TODO entry, and `audit -c` then reported 0 unauthorized scripts.
import { copyFile, readFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TestEmulator, runCli, tempDir } from "../helpers/cli.js";

const emu = TestEmulator.perFile({ now: "2026-11-25T12:00:00Z" });
const SHOP = "455c348a8c93c48cb1db08118a6f1b28";
const SKIMMER = "https://cdn.skimmer.example/s.js";

// The payment page, on 127.0.0.1 (so the fetches here take --allow-private-addresses).
let page: Server;
let pageUrl: string;
beforeAll(async () => {
  page = createServer((_req, res) =>
    res.writeHead(200, { "x-frame-options": "DENY", "referrer-policy": "no-referrer" }).end("<html></html>"),
  );
  await new Promise<void>((resolve) => page.listen(0, "127.0.0.1", resolve));
  pageUrl = `http://127.0.0.1:${(page.address() as { port: number }).port}/checkout`;
});
afterAll(() => new Promise<void>((resolve) => page.close(() => resolve())));

/** "Trying it on the emulator": shop.example's payment pages, a skimmer seen on checkout, checkout.js changed. */
async function setUp(): Promise<void> {
  await emu.admin("POST", "zones", { name: "shop.example", plan: "enterprise" });
  await emu.admin("POST", "inventory", {
    zone_id: SHOP,
    scripts: 0,
    connections: 0,
    cookies: 0,
    malicious_ratio: 0,
    payment_pages: true,
  });
  await emu.admin("POST", "scripts", { zone_id: SHOP, event: "seen", url: SKIMMER, page: "shop.example/checkout" });
  await emu.admin("POST", "scripts", {
    zone_id: SHOP,
    event: "changed",
    url: "https://www.shop.example/assets/checkout.js",
  });
}

describe("the PCI worked example, as written", () => {
  it("ends with the skimmer reported: step 6 pins headers and touches no script entry", async () => {
    await setUp();
    const dir = await tempDir();
    const config = join(dir, "zoneform.yaml");
    // Step 2's reviewed inventory (docs/samples/pci-shop.yaml is that file for shop.example).
    await copyFile(join(import.meta.dirname, "../../docs/samples/pci-shop.yaml"), config);
    const step4 = await runCli(emu, ["audit", "-c", config], { cwd: dir });
    expect(step4.code).toBe(2);
    expect(step4.stdout).toContain(`unauthorized script ${SKIMMER}`);

    // Step 6 as the docs write it (with the page on loopback: --allow-private-addresses).
    const before = await readFile(config, "utf8");
    const step6 = await runCli(
      emu,
      [
        "inventory",
        "--zone",
        "shop.example",
        "--merge",
        "zoneform.yaml",
        "--headers",
        pageUrl,
        "--allow-private-addresses",
      ],
      { cwd: dir },
    );
    expect(step6.code, step6.stderr).toBe(0);
    const after = await readFile(config, "utf8");
    expect(after).toContain("x-frame-options: DENY");
    expect(after).not.toContain(SKIMMER);
    expect(after.split("- url:").length).toBe(before.split("- url:").length);

    const audit = await runCli(emu, ["audit", "-c", config, "--allow-private-addresses"], { cwd: dir });
    expect(audit.code).toBe(2);
    expect(audit.stdout).toContain(`unauthorized script ${SKIMMER}`);

    // Even asked to add the scripts, the skimmer goes in as a draft: unreviewed, reported, failing.
    const scripts = await runCli(
      emu,
      ["inventory", "--zone", "shop.example", "--merge", "zoneform.yaml", "--headers", pageUrl, "--scripts"],
      { cwd: dir, env: { ZONEFORM_ALLOW_PRIVATE_ADDRESSES: "1" } },
    );
    expect(scripts.code, scripts.stderr).toBe(0);
    expect(await readFile(config, "utf8")).toContain(SKIMMER);
    const last = await runCli(emu, ["audit", "-c", config, "--format", "json", "--allow-private-addresses"], {
      cwd: dir,
    });
    expect(last.code).toBe(2);
    const zone = JSON.parse(last.stdout).zones.find((z: { zone_id: string }) => z.zone_id === SHOP);
    const rows = zone.script_inventory.authorized as Array<{ url: string; state: string }>;
    expect(rows.find((r) => r.url === SKIMMER)!.state).toBe("unreviewed");
    expect(rows.filter((r) => r.state === "ok").map((r) => r.url)).not.toContain(SKIMMER);
  });
});
