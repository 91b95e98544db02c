import { readFileSync } from "node:fs";
// `audit --format sarif` and `inventory --format sarif` end to end over real HTTP against the emulator
// (clock fixed): the log is valid against the official SARIF 2.1.0 schemas, has one result per finding
// with the expected rule, level and place in the configuration, keeps its fingerprints when dates and
// hashes change, and the commands read only (the exact calls from the emulator's request log) and exit
// as with the other formats.
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { FINGERPRINT_KEY } from "../../src/sarif/log.js";
import { TestEmulator, ZONE, runCli, tempDir, zoneId } from "../helpers/cli.js";
import { sarifSchemaErrors } from "../helpers/sarif.js";

/** The version SARIF names its tool with: package.json's. */
const PACKAGE_VERSION = (
  JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }
).version;

const emu = TestEmulator.perFile();

type Log = {
  runs: Array<{
    tool: { driver: { version: string; rules: Array<{ id: string }> } };
    automationDetails: { id: string };
    results: Result[];
  }>;
};
type Result = {
  ruleId: string;
  level: string;
  message: { text: string };
  locations: Array<{
    physicalLocation?: { artifactLocation: { uri: string }; region: { startLine: number } };
    logicalLocations: Array<{ name: string; fullyQualifiedName: string }>;
  }>;
  partialFingerprints: Record<string, string>;
  properties: Record<string, unknown>;
};

function parse(stdout: string): Log {
  const log = JSON.parse(stdout) as Log;
  expect(sarifSchemaErrors(log)).toEqual([]);
  return log;
}

const where = (r: Result) =>
  `${r.locations[0]!.physicalLocation?.artifactLocation.uri}:${r.locations[0]!.physicalLocation?.region.startLine}`;
const count = (results: Result[], rule: string) => results.filter((r) => r.ruleId === rule).length;

describe("audit --format sarif", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await tempDir("zoneform-sarif-");
    await writeFile(
      join(dir, "zoneform.yaml"),
      `version: 1\nzones:\n  - zone_id: ${ZONE.com}\n    name: example.com\n`,
    );
  });

  it(
    "one result per finding of the seed, located at the zone in zoneform.yaml; exit 2; only the three " + "lists read",
    async () => {
      await emu.clearRequests();
      const r = await runCli(emu, ["audit", "--zone", ZONE.com, "--format", "sarif"], { cwd: dir });
      expect(r.code, r.stderr).toBe(2);
      expect(await emu.calls()).toEqual([
        `GET zones/${ZONE.com}/page_shield/scripts`,
        `GET zones/${ZONE.com}/page_shield/connections`,
        `GET zones/${ZONE.com}/page_shield/cookies`,
      ]);
      expect(await emu.calls({ writesOnly: true })).toEqual([]);
      const log = parse(r.stdout);
      const run = log.runs[0]!;
      expect(run.tool.driver.version).toBe(PACKAGE_VERSION);
      expect(run.automationDetails.id).toBe("zoneform/audit/");
      const results = run.results;
      expect(results).toHaveLength(11);
      expect([
        count(results, "zoneform/malicious-script"),
        count(results, "zoneform/malicious-connection"),
        count(results, "zoneform/insecure-cookie"),
      ]).toEqual([4, 1, 6]);
      expect(
        results
          .filter((x) => x.ruleId === "zoneform/insecure-cookie")
          .map((x) => x.level)
          .sort(),
      ).toEqual(["note", "note", "warning", "warning", "warning", "warning"]);
      expect(new Set(results.map(where))).toEqual(new Set(["zoneform.yaml:3"]));
      expect(new Set(results.map((x) => JSON.stringify(x.locations[0]!.logicalLocations)))).toEqual(
        new Set([JSON.stringify([{ name: "example.com", fullyQualifiedName: `zone/${ZONE.com}`, kind: "module" }])]),
      );
      expect(
        results.find((x) => x.message.text.includes("https://cdn-staticfiles.top/js/pay-widget.js"))!.message.text,
      ).toBe(
        "Malicious script https://cdn-staticfiles.top/js/pay-widget.js (on example.com, first seen on page " +
          "example.com/): magecart_score 3 < 10; URL reported malicious (Magecart).",
      );
      // The same findings as the JSON format, by Page Shield id.
      const json = JSON.parse(
        (await runCli(emu, ["audit", "--zone", ZONE.com, "--format", "json"], { cwd: dir })).stdout,
      );
      expect(results.map((x) => x.properties.id).sort()).toEqual(
        json.zones[0].findings.map((f: { id: string }) => f.id).sort(),
      );
      // Fingerprints are distinct within a run.
      expect(new Set(results.map((x) => x.partialFingerprints[FINGERPRINT_KEY])).size).toBe(11);
    },
  );

  it(
    "keeps every fingerprint when the findings are seen again later; --fail-on none exits 0; without a " +
      "file, the zone only",
    async () => {
      const first = parse(
        (await runCli(emu, ["audit", "--zone", "example.com", "--format", "sarif"], { cwd: dir })).stdout,
      ).runs[0]!.results;
      await emu.admin("POST", "/scripts", {
        zone_id: ZONE.com,
        event: "seen",
        url: "https://analytics-sync.net/js/beacon.js",
        at: "2026-12-01T00:00:00Z",
      });
      const again = await runCli(emu, ["audit", "--zone", "example.com", "--format", "sarif", "--fail-on", "none"], {
        cwd: dir,
      });
      expect(again.code).toBe(0);
      const second = parse(again.stdout).runs[0]!.results;
      const beacon = (rs: Result[]) =>
        rs.find((x) => x.properties.subject === "https://analytics-sync.net/js/beacon.js")!;
      expect(beacon(second).properties.last_seen_at).toBe("2026-12-01T00:00:00Z");
      expect(beacon(first).properties.last_seen_at).not.toBe(beacon(second).properties.last_seen_at);
      const fps = (rs: Result[]) => rs.map((x) => x.partialFingerprints[FINGERPRINT_KEY]).sort();
      expect(fps(second)).toEqual(fps(first));

      const bare = await tempDir("zoneform-sarif-bare-");
      const noFile = parse(
        (await runCli(emu, ["audit", "--zone", "example.com", "--format", "sarif"], { cwd: bare })).stdout,
      ).runs[0]!.results;
      expect(
        noFile.every(
          (x) =>
            x.locations[0]!.physicalLocation === undefined &&
            x.locations[0]!.logicalLocations[0]!.name === "example.com",
        ),
      ).toBe(true);
      expect(fps(noFile)).toEqual(fps(first));
    },
  );

  it("--sarif-category names the analysis; it needs --format sarif and a printable value (exit 3)", async () => {
    const r = await runCli(
      emu,
      ["audit", "--zone", ZONE.com, "--format", "sarif", "--sarif-category", "zoneform/audit/example.com"],
      { cwd: dir },
    );
    expect(parse(r.stdout).runs[0]!.automationDetails.id).toBe("zoneform/audit/example.com/");
    await emu.clearRequests();
    const wrong = await runCli(emu, ["audit", "--zone", ZONE.com, "--sarif-category", "x"], { cwd: dir });
    expect(wrong.code).toBe(3);
    expect(wrong.stderr).toContain("--sarif-category goes with --format sarif");
    const spaced = await runCli(emu, ["audit", "--zone", ZONE.com, "--format", "sarif", "--sarif-category", "a b"], {
      cwd: dir,
    });
    expect(spaced.code).toBe(3);
    expect(await emu.calls()).toEqual([]);
  });
});

describe("the script inventory as SARIF", () => {
  const NAME = "pay.example";
  const ZID = zoneId(NAME);
  const OWN = "https://www.pay.example/assets/checkout.js";
  let dir: string;
  let config: string;
  const FILE = (ownHash: string) =>
    [
      "version: 1", // 1
      "zones:", // 2
      `  - zone_id: ${ZID}`, // 3
      `    name: ${NAME}`, // 4
      "    page_shield:", // 5
      "      script_inventory:", // 6
      '        pages: ["pay.example/checkout*"]', // 7
      "        authorized:", // 8
      "          - url: https://js.stripe.com/v3/*", // 9
      "            justification: Stripe Elements card form", // 10
      `          - url: ${OWN}`, // 11
      "            justification: our checkout", // 12
      `            hash: ${ownHash}`, // 13
      "          - url: https://retired.example/widget.js", // 14
      "            justification: retired widget", // 15
      "",
    ].join("\n");

  beforeEach(async () => {
    await emu.admin("POST", "/zones", { name: NAME, plan: "enterprise" });
    await emu.admin("POST", "/inventory", {
      zone_id: ZID,
      scripts: 0,
      connections: 0,
      cookies: 0,
      malicious_ratio: 0,
      payment_pages: true,
    });
    dir = await tempDir("zoneform-sarif-inv-");
    config = join(dir, "zoneform.yaml");
    const listed = (
      await emu.api<Array<{ url: string; hash: string }>>(
        "GET",
        `zones/${ZID}/page_shield/scripts?per_page=100&status=active,infrequent,inactive`,
      )
    ).find((s) => s.url === OWN)!;
    await writeFile(config, FILE(listed.hash));
  });

  it(
    "audit -c: unauthorized at the authorized list, changed at its entry, stale at its entry; the changed " +
      "fingerprint survives a second change",
    async () => {
      await emu.admin("POST", "/scripts", {
        zone_id: ZID,
        event: "seen",
        url: "https://evil.example/skimmer.js",
        page: "pay.example/checkout",
      });
      await emu.admin("POST", "/scripts", { zone_id: ZID, event: "changed", url: OWN });
      await emu.clearRequests();
      const r = await runCli(emu, ["audit", "-c", "zoneform.yaml", "--format", "sarif"], { cwd: dir });
      expect(r.code, r.stderr).toBe(2);
      expect(await emu.calls({ writesOnly: true })).toEqual([]);
      const inv = parse(r.stdout).runs[0]!.results.filter((x) => /unauthorized|changed|stale/.test(x.ruleId));
      const byRule = Object.fromEntries(
        inv
          .filter(
            (x) =>
              x.ruleId !== "zoneform/unauthorized-script" || x.properties.url === "https://evil.example/skimmer.js",
          )
          .map((x) => [x.ruleId, x]),
      );
      expect([count(inv, "zoneform/changed-script"), count(inv, "zoneform/stale-authorization")]).toEqual([1, 1]);
      expect(new Set(inv.filter((x) => x.ruleId === "zoneform/unauthorized-script").map(where))).toEqual(
        new Set(["zoneform.yaml:8"]),
      );
      expect(where(byRule["zoneform/changed-script"]!)).toBe("zoneform.yaml:11");
      expect(where(byRule["zoneform/stale-authorization"]!)).toBe("zoneform.yaml:14");
      expect(byRule["zoneform/unauthorized-script"]!.message.text).toMatch(
        /^unauthorized script https:\/\/evil\.example\/skimmer\.js: seen on pay\.example\/checkout/,
      );
      expect(byRule["zoneform/changed-script"]!.level).toBe("error");
      expect(byRule["zoneform/stale-authorization"]!.level).toBe("note");

      await emu.admin("POST", "/scripts", { zone_id: ZID, event: "changed", url: OWN });
      const again = parse(
        (await runCli(emu, ["audit", "-c", "zoneform.yaml", "--format", "sarif"], { cwd: dir })).stdout,
      ).runs[0]!.results;
      const changedAgain = again.find((x) => x.ruleId === "zoneform/changed-script")!;
      expect(changedAgain.properties.seen_hash).not.toBe(byRule["zoneform/changed-script"]!.properties.seen_hash);
      expect(changedAgain.partialFingerprints).toEqual(byRule["zoneform/changed-script"]!.partialFingerprints);
    },
  );

  it(
    "inventory --merge FILE --format sarif: the findings against FILE, which stays as it was; one list " +
      "read; exit 0; --out",
    async () => {
      await emu.admin("POST", "/scripts", {
        zone_id: ZID,
        event: "seen",
        url: "https://evil.example/skimmer.js",
        page: "pay.example/checkout",
      });
      const before = await readFile(config, "utf8");
      await emu.clearRequests();
      const r = await runCli(emu, ["inventory", "--zone", NAME, "--merge", "zoneform.yaml", "--format", "sarif"], {
        cwd: dir,
      });
      expect(r.code, r.stderr).toBe(0);
      expect(await emu.calls()).toEqual(["GET zones", `GET zones/${ZID}/page_shield/scripts`]);
      expect(await readFile(config, "utf8")).toBe(before);
      const run = parse(r.stdout).runs[0]!;
      expect(run.automationDetails.id).toBe("zoneform/inventory/");
      const unauthorized = run.results.filter((x) => x.ruleId === "zoneform/unauthorized-script");
      expect(unauthorized.map((x) => x.properties.url)).toContain("https://evil.example/skimmer.js");
      expect(new Set(unauthorized.map(where))).toEqual(new Set(["zoneform.yaml:8"]));
      expect(
        run.results.find((x) => x.ruleId === "zoneform/stale-authorization") &&
          where(run.results.find((x) => x.ruleId === "zoneform/stale-authorization")!),
      ).toBe("zoneform.yaml:14");
      expect(count(run.results, "zoneform/changed-script")).toBe(0);
      // The same unauthorized scripts audit -c reports, with the same fingerprints.
      const audit = parse(
        (await runCli(emu, ["audit", "-c", "zoneform.yaml", "--format", "sarif"], { cwd: dir })).stdout,
      ).runs[0]!.results.filter((x) => x.ruleId === "zoneform/unauthorized-script");
      expect(unauthorized.map((x) => x.partialFingerprints[FINGERPRINT_KEY]).sort()).toEqual(
        audit.map((x) => x.partialFingerprints[FINGERPRINT_KEY]).sort(),
      );

      const out = await runCli(
        emu,
        ["inventory", "--zone", NAME, "--merge", "zoneform.yaml", "--format", "sarif", "--out", "inventory.sarif"],
        { cwd: dir },
      );
      expect(out.code, out.stderr).toBe(0);
      expect(out.stdout).toBe("");
      expect(parse(await readFile(join(dir, "inventory.sarif"), "utf8")).runs[0]!.results).toHaveLength(
        run.results.length,
      );
      expect(
        (
          await runCli(
            emu,
            ["inventory", "--zone", NAME, "--merge", "zoneform.yaml", "--format", "sarif", "--out", "inventory.sarif"],
            { cwd: dir },
          )
        ).code,
      ).toBe(3);

      await emu.clearRequests();
      const pin = await runCli(
        emu,
        ["inventory", "--zone", NAME, "--pages", "pay.example/checkout*", "--format", "sarif", "--pin-hashes"],
        { cwd: dir },
      );
      expect(pin.code).toBe(3);
      expect(pin.stderr).toContain("--format sarif drafts nothing");
      expect(
        (
          await runCli(emu, ["inventory", "--zone", NAME, "--pages", "pay.example/checkout*", "--format", "xml"], {
            cwd: dir,
          })
        ).code,
      ).toBe(3);
      expect(await emu.calls()).toEqual([]);
    },
  );
});
