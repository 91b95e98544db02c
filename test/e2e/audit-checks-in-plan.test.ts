// Issue 45, point 5: what audit checks is in the plan. A pull request that adds a page URL to the script
// inventory (which audit fetches itself, and nothing writes to Cloudflare) used to get "No changes". The
// plan now shows the inventory's diff with the base configuration (`plan --base`), in text, Markdown, the
// plan file and `show`; without a base, the pages audit fetches are listed.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { TestEmulator, ZONE, runCli, tempDir, writeConfig } from "../helpers/cli.js";

const emu = TestEmulator.perFile();

const inventory = (urls: string[], scripts: string[]) => `version: 1
zones:
  - zone_id: ${ZONE.com}
    name: example.com
    page_shield:
      script_inventory:
        pages: ["example.com/checkout*"]
        authorized:
${scripts.map((s) => `          - { url: "${s}", justification: "Payments", owner: "payments-team" }`).join("\n")}
        headers:
          urls: [${urls.map((u) => `"${u}"`).join(", ")}]
          pinned: { referrer-policy: no-referrer }
`;

const BASE = inventory(["https://example.com/checkout"], ["https://js.stripe.com/v3/"]);
const HEAD = inventory(
  ["https://example.com/checkout", "https://internal.example.com/admin"],
  ["https://js.stripe.com/v3/", "https://cdn.new.example/pay.js"],
);

describe("what audit checks, in the plan", () => {
  it("is shown as its diff with the base configuration, never as a write, in every format", async () => {
    const dir = await tempDir();
    const base = await writeConfig(BASE, "base.yaml", dir);
    const head = await writeConfig(HEAD, "head.yaml", dir);
    await emu.clearRequests();
    const text = await runCli(emu, ["plan", "-c", head, "--base", base, "--detailed-exitcode"]);
    // Nothing to write to Cloudflare: the exit says so, the text says what audit will check.
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain("~ script_inventory: checked by audit, not written to Cloudflare");
    expect(text.stdout).toContain('+ page fetched for its headers: "https://internal.example.com/admin"');
    expect(text.stdout).toContain('+ authorized script: "https://cdn.new.example/pay.js"');
    expect(text.stdout).not.toContain('page fetched for its headers: "https://example.com/checkout"');
    expect(text.stdout).toContain("What audit checks changes in 1 zone");
    expect(text.stdout).not.toContain("No changes.");
    expect((await emu.calls()).every((c) => c.startsWith("GET "))).toBe(true);

    const md = await runCli(emu, ["plan", "-c", head, "--base", base, "--format", "markdown"]);
    expect(md.stdout).toContain("**What audit checks changes in 1 zone**");
    expect(md.stdout).toContain('+     page fetched for its headers: "https://internal.example.com/admin"');

    const file = join(dir, "plan.json");
    expect((await runCli(emu, ["plan", "-c", head, "--base", base, "--out", file])).code).toBe(0);
    const saved = JSON.parse(await readFile(file, "utf8"));
    expect(saved.zones[0].audit.base).toHaveLength(4);
    expect(saved.zones[0].audit.lines).toHaveLength(6);
    const shown = await runCli(undefined, ["show", file]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain('+ page fetched for its headers: "https://internal.example.com/admin"');
    // The plan applies (nothing to write): the checks are the base's business, not apply's.
    expect((await runCli(emu, ["apply", file])).code).toBe(0);
  });

  it("shows nothing more when the inventory did not change, and lists what audit fetches without a base", async () => {
    const dir = await tempDir();
    const base = await writeConfig(BASE, "base.yaml", dir);
    const same = await runCli(emu, ["plan", "-c", base, "--base", base]);
    expect(same.stdout).toContain("No changes.");
    expect(same.stdout).not.toContain("script_inventory");
    const alone = await runCli(emu, ["plan", "-c", base]);
    expect(alone.stdout).toContain("No changes.");
    expect(alone.stdout).toContain(
      "Checked by audit, not written to Cloudflare: example.com's script inventory, 4 line(s); pages it " +
        'fetches: "https://example.com/checkout"',
    );
  });
});
