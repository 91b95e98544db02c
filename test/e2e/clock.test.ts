// No time bombs: the emulator dates its seed and Page Shield data back from its clock, and the CLI counts
// its windows (audit's --stale-days, inventory's 90 days) from ZONEFORM_NOW, so the demo flow (plan,
// apply, plan, audit, inventory, audit of the inventory) gives the same findings whatever the date:
// run at one instant and a year later, the outputs are the same once each timestamp is written as its
// distance from the clock. Also: `npm run demo` itself a year apart, and the clock's bad values.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { runDemo } from "../../src/cli/demo.js";
import { memoryIO } from "../../src/cli/io.js";
import { NOW_ENV } from "../../src/instant.js";
import { TEST_NOW, TestEmulator, runCli, writeConfig, zoneId } from "../helpers/cli.js";

const DAY_MS = 86_400_000;
const YEAR_LATER = new Date(Date.parse(TEST_NOW) + 365 * DAY_MS).toISOString();
const ZONE = zoneId("example.com");
const DEMO_CONFIG = new URL("../../examples/demo/zoneform.yaml", import.meta.url).pathname;
const ENV = { DEMO_LOGS_TOKEN: "demo-logs-token-for-the-clock-test" };

/**
 * `text` with every timestamp written as seconds from `now`, and every date as days from it. Digests
 * are masked: a plan whose file references `${env:…}` binds their values with a salt drawn per plan,
 * and the audit's provenance hashes the configuration, which is dated (the drafted inventory's comments).
 */
function relativeTo(now: string, text: string): string {
  const t = Date.parse(now);
  return text
    .replace(/sha256:[0-9a-f]{64}/g, "sha256:<digest>")
    .replace(/"sha256":"[0-9a-f]{64}"/g, '"sha256":"<digest>"')
    .replace(
      /\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z\b/g,
      (ts) => `<now${signed((Date.parse(ts) - t) / 1000)}s>`,
    )
    .replace(
      /\b\d{4}-\d{2}-\d{2}\b/g,
      (d) => `<today${signed(Math.round((Date.parse(d) - Date.parse(now.slice(0, 10))) / DAY_MS))}d>`,
    );
}

const signed = (n: number) => (n >= 0 ? `+${n}` : `${n}`);

/** The demo flow against an emulator whose clock starts at `now`, the CLI told the same instant. */
async function demoFlow(now: string): Promise<Record<string, string>> {
  const emu = await TestEmulator.start({ now });
  expect(emu.now).toBe(now);
  try {
    const out: Record<string, string> = {};
    const step = async (name: string, argv: string[], code: number) => {
      const r = await runCli(emu, argv, { env: ENV });
      expect(r.code, `${name}: ${r.stderr}`).toBe(code);
      out[name] = relativeTo(now, r.stdout);
      return r.stdout;
    };
    await step("plan", ["plan", "-c", DEMO_CONFIG], 0);
    await step("apply", ["apply", "-c", DEMO_CONFIG, "--auto-approve"], 0);
    await step("plan again", ["plan", "-c", DEMO_CONFIG, "--detailed-exitcode"], 0);
    await step("audit", ["audit", "--zone", ZONE, "--format", "json"], 2);
    const draft = await step("inventory", ["inventory", "--zone", "example.com", "--pages", "example.com/*"], 0);

    // The drafted inventory, widened to www.example.com (its scripts are then unauthorized) and with
    // a script last seen more than 90 days ago authorized (a stale authorization, "N days ago").
    const since = Date.parse(now) - 90 * DAY_MS;
    const old = emu
      .state()
      .zones.find((z) => z.id === ZONE)!
      .scripts.filter(
        (s) =>
          Date.parse(s.last_seen_at as string) < since &&
          (s.page_urls as string[]).some((p) => p.startsWith("example.com/")),
      )
      .map((s) => s.url as string)
      .sort()[0];
    expect(old, "the seed has a script last seen more than 90 days ago").toBeDefined();
    const block = `${draft.replace("    - example.com/*\n", "    - example.com/*\n    - www.example.com/*\n").trimEnd()}\n    - url: ${old}\n      justification: kept from an older release\n`;
    const indented = block
      .split("\n")
      .map((l) => (l === "" ? l : `      ${l}`))
      .join("\n");
    const file = await writeConfig(
      `version: 1\nzones:\n  - zone_id: ${ZONE}\n    name: example.com\n    page_shield:\n${indented}\n`,
    );
    await step("audit of the inventory", ["audit", "-c", file, "--format", "json", "--limit", "0"], 2);
    out["audit of the inventory"] = out["audit of the inventory"]!.replaceAll(file, "<file>");
    return out;
  } finally {
    await emu.close();
  }
}

describe("the demo flow does not depend on the date", () => {
  it("gives the same plan, audit findings and inventory at one instant and a year later", async () => {
    const today = await demoFlow(TEST_NOW);
    const later = await demoFlow(YEAR_LATER);
    expect(later).toEqual(today);

    // The findings are there to compare: not an empty audit or inventory.
    const audit = JSON.parse(today.audit!) as { zones: Array<{ findings: Array<{ kind: string; severity: string }> }> };
    expect(audit.zones[0]!.findings.filter((f) => f.kind === "script" && f.severity === "high")).toHaveLength(4);
    expect(today.inventory!.match(/^ {4}- url: /gm)!.length).toBeGreaterThanOrEqual(5);
    const inventory = JSON.parse(today["audit of the inventory"]!) as {
      zones: Array<{ script_inventory: { findings: Array<{ type: string; message: string }> } }>;
    };
    const findings = inventory.zones[0]!.script_inventory.findings;
    const types = findings.map((f) => f.type);
    expect(types).toContain("unauthorized");
    expect(types).toContain("stale");
    expect(findings.find((f) => f.type === "stale")!.message).toMatch(/\(\d+ days ago\), more than 90 days/);
  });

  it("npm run demo prints the same a year later", async () => {
    const run = async (now: string) => {
      const { io, stdout, stderr } = memoryIO({ env: { [NOW_ENV]: now } });
      expect(await runDemo(io), stderr()).toBe(0);
      // The emulator's port, the ids it gives what the demo makes, and so the plan's digest, change
      // from run to run.
      return relativeTo(now, stdout())
        .replace(/127\.0\.0\.1:\d+/g, "127.0.0.1:<port>")
        .replace(/\b[0-9a-f]{32}\b/g, (id) => (id === ZONE ? id : "<id>"))
        .replace(/sha256:[0-9a-f]{64}/g, "sha256:<digest>");
    };
    const today = await run(TEST_NOW);
    expect(today).toContain("5. zoneform audit");
    expect(await run(YEAR_LATER)).toBe(today);
  });
});

describe("the clock's settings", () => {
  it("the emulator's seed is dated back from its clock: the same items, a year apart", async () => {
    const a = await TestEmulator.start({ now: TEST_NOW });
    const b = await TestEmulator.start({ now: YEAR_LATER });
    try {
      const scripts = async (e: TestEmulator) =>
        (await e.call("GET", `zones/${ZONE}/page_shield/scripts?status=active,infrequent,inactive`)).body.result;
      const [sa, sb] = [await scripts(a), await scripts(b)];
      expect(sa.length).toBeGreaterThan(0);
      expect(sb.map((s: { id: string }) => s.id)).toEqual(sa.map((s: { id: string }) => s.id));
      expect(Date.parse(sb[0].last_seen_at) - Date.parse(sa[0].last_seen_at)).toBe(365 * DAY_MS);
      // The API's Date header comes from the emulator's clock too.
      const answer = await b.call("GET", `zones/${ZONE}/page_shield`);
      expect(answer.headers.get("date")).toBe(new Date(YEAR_LATER).toUTCString());
    } finally {
      await a.close();
      await b.close();
    }
  });

  it("refuses a ZONEFORM_NOW that is not an instant, with exit 3 and no stack trace", async () => {
    const emu = await TestEmulator.start();
    try {
      for (const bad of ["yesterday", "2026-11-25T12:00:00", "2026-13-01"]) {
        const r = await runCli(emu, ["audit", "--zone", ZONE], { env: { [NOW_ENV]: bad } });
        expect(r.code).toBe(3);
        expect(r.stderr).toContain(
          `${NOW_ENV}=${JSON.stringify(bad)} is not an ISO 8601 date or date-time with Z or an offset`,
        );
        expect(r.stderr).not.toMatch(/\n\s+at /);
      }
      const emulator = await runCli(undefined, ["emulator", "--now", "noon"]);
      expect(emulator.code).toBe(3);
      expect(emulator.stderr).toContain('--now "noon": expected an ISO 8601 date or date-time');
    } finally {
      await emu.close();
    }
  });

  it("the docs name the clock's settings", () => {
    const doc = readFileSync(new URL("../../docs/emulator.md", import.meta.url), "utf8");
    for (const name of ["| `now` |", "| `--now INSTANT` |", `| \`${NOW_ENV}\` |`]) expect(doc).toContain(name);
  });
});
