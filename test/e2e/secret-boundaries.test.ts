// Where secrets and live text meet, end to end on the emulator:
// - live text holding `${env:X}` (a policy's description, value and expression, a Logpush job's
//   destination, filter and output options) is exported escaped, and plan with the export expands
//   nothing: no change, and the value of X (a secret-looking one, set) is never sent;
// - a saved plan binds the values of its references: apply with another value, or none, is refused
//   with nothing written, naming the reference, never a value; with the same value it applies.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { TestEmulator, ZONE, runCli, tempDir, writeConfig } from "../helpers/cli.js";
import { useHostileProxy } from "../attacks/helpers.js";

const emu = TestEmulator.perFile();
const hostile = useHostileProxy(emu);
const STACK = /Internal error|\n\s+at \S/;

/** A value that looks like a token: if it is ever sent or shown, the test sees it. */
const SECRET = "tok_9f8E7d6C5b4A3f2E1d0C9b8A7f6E5d4C";
const LIVE = "${env:LEAK}";

async function seedLiveText(): Promise<void> {
  await emu.api("POST", `zones/${ZONE.com}/page_shield/policies`, {
    description: `Report ${LIVE} here`,
    action: "log",
    expression: `http.request.uri.path contains "/${LIVE}"`,
    value: `script-src 'self' https://${LIVE}.example $\${env:LEAK}`,
    enabled: true,
  });
  await emu.api("POST", `zones/${ZONE.com}/logpush/jobs`, {
    name: "live-text",
    dataset: "http_requests",
    destination_conf: `https://logs.example.com/ingest/${LIVE}?tag=${LIVE}`,
    filter: JSON.stringify({ where: { key: "ClientRequestHost", operator: "eq", value: `${LIVE}.example.com` } }),
    output_options: { field_names: ["RayID"], output_type: "ndjson", record_prefix: `{"tag":"${LIVE}",` },
    enabled: true,
  });
}

/** Every request body the emulator received, as JSON text. */
async function sentBodies(): Promise<string> {
  return JSON.stringify((await emu.requests()).map((r) => r.body));
}

describe("live text never becomes a reference", () => {
  it("export writes ${ as $${; plan with the export shows no change and sends nothing of X", async () => {
    await seedLiveText();
    const out = join(await tempDir(), "exported.yaml");
    const exported = await runCli(
      emu,
      ["export", "--zone", ZONE.com, "--sections", "page_shield,logpush", "--out", out],
      { env: { LEAK: SECRET } },
    );
    expect(exported.code, exported.stderr).toBe(0);
    const text = await readFile(out, "utf8");
    expect(text).toContain("Report $${env:LEAK} here");
    expect(text).toContain("https://logs.example.com/ingest/$${env:LEAK}?tag=$${env:LEAK}");
    expect(text).toContain("$$${env:LEAK}");
    expect(text).not.toMatch(/(^|[^$])\$\{env:LEAK\}/m);

    const validated = await runCli(emu, ["validate", "-c", out], { env: { LEAK: SECRET } });
    expect(validated.code, validated.stderr).toBe(0);
    expect(validated.stderr).not.toContain("warning");

    await emu.clearRequests();
    const planned = await runCli(emu, ["plan", "-c", out, "--detailed-exitcode"], { env: { LEAK: SECRET } });
    expect(planned.stderr).not.toMatch(STACK);
    expect(planned.code, planned.stdout + planned.stderr).toBe(0);
    expect(planned.stdout).toContain("No changes.");
    const applied = await runCli(emu, ["apply", "-c", out, "--yes"], { env: { LEAK: SECRET } });
    expect(applied.code, applied.stderr).toBe(0);
    expect(await emu.calls({ writesOnly: true })).toEqual([]);
    for (const shown of [planned.stdout, planned.stderr, applied.stdout, applied.stderr])
      expect(shown).not.toContain(SECRET);
    expect(await sentBodies()).not.toContain(SECRET);
    // The live text is still the text, character for character.
    const policies = await emu.api<Array<{ description: string }>>("GET", `zones/${ZONE.com}/page_shield/policies`);
    expect(policies.map((p) => p.description)).toContain(`Report ${LIVE} here`);
  });
});

const CONFIG = `version: 1
zones:
  - zone_id: ${ZONE.com}
    page_shield:
      enabled: true
      policies:
        - description: Checkout
          action: log
          expression: 'http.request.uri.path contains "/checkout"'
          value: "script-src 'self' https://js.\${env:CDN_HOST}.example"
`;
const A = "cdn-alpha-7Qx2";
const B = "cdn-bravo-9Zk4";

describe("a saved plan binds its inputs", () => {
  async function savedPlan(): Promise<string> {
    const cfg = await writeConfig(CONFIG);
    const file = join(await tempDir(), "plan.json");
    const r = await runCli(emu, ["plan", "-c", cfg, "--out", file], { env: { CDN_HOST: A } });
    expect(r.code, r.stderr).toBe(0);
    return file;
  }

  it("records a salted hash per reference, never the value", async () => {
    const file = await savedPlan();
    const text = await readFile(file, "utf8");
    expect(text).not.toContain(A);
    const doc = JSON.parse(text);
    expect(doc.inputs.salt).toMatch(/^[0-9a-f]{32}$/);
    expect(doc.inputs.kdf).toEqual({ name: "scrypt", n: 16384, r: 10, p: 1 });
    expect(doc.inputs.names).toEqual(["CDN_HOST"]);
    expect(doc.inputs.hash).toMatch(/^[0-9a-f]{64}$/);
    // Another plan of the same file, zone and value: the same salt (derived from the plan), the same
    // hash and digest; the salt is the plan's own, so another plan gets another (src/plan/digest.ts).
    const again = JSON.parse(await readFile(await savedPlan(), "utf8"));
    expect(again.inputs).toEqual(doc.inputs);
    expect(again.digest).toBe(doc.digest);
  });

  it(
    "apply with another value is refused (exit 1; unset: exit 3), names the reference, writes nothing; " +
      "with the same value it applies",
    async () => {
      const file = await savedPlan();
      for (const [env, code] of [
        [{ CDN_HOST: B }, 1],
        [{}, 3],
      ] as Array<[Record<string, string>, number]>) {
        await emu.clearRequests();
        const r = await runCli(emu, ["apply", file], { env });
        expect(r.stderr).not.toMatch(STACK);
        expect(r.code, r.stderr).toBe(code);
        expect(r.stderr).toContain("CDN_HOST");
        expect(r.stderr + r.stdout).not.toContain(A);
        expect(r.stderr + r.stdout).not.toContain(B);
        expect(await emu.calls({ writesOnly: true })).toEqual([]);
        // Refused before anything was read either.
        expect(await emu.calls()).toEqual([]);
      }
      expect((await runCli(emu, ["apply", file], { env: { CDN_HOST: B } })).stderr).toContain(
        "${env:CDN_HOST} has another value than when the plan was made",
      );
      expect((await runCli(emu, ["apply", file], { env: {} })).stderr).toContain(
        "environment variable CDN_HOST is not set",
      );

      await emu.clearRequests();
      const ok = await runCli(emu, ["apply", file], { env: { CDN_HOST: A } });
      expect(ok.code, ok.stderr).toBe(0);
      const writes = await emu.calls({ writesOnly: true });
      expect(writes.length).toBeGreaterThan(0);
      expect(await sentBodies()).toContain(`https://js.${A}.example`);
      expect(await sentBodies()).not.toContain(B);
      const after = await runCli(emu, ["plan", "-c", await writeConfig(CONFIG), "--detailed-exitcode"], {
        env: { CDN_HOST: A },
      });
      expect(after.code, after.stdout).toBe(0);
    },
  );

  it("a plan file whose hash was edited, or that binds no hash for a reference it uses, is refused", async () => {
    const file = await savedPlan();
    const doc = JSON.parse(await readFile(file, "utf8"));
    // Without its inputs the digest no longer matches: refused as a changed file.
    const { inputs: _dropped, ...bare } = doc;
    const { writeFile } = await import("node:fs/promises");
    await writeFile(file, JSON.stringify(bare));
    await emu.clearRequests();
    const r = await runCli(emu, ["apply", file], { env: { CDN_HOST: A } });
    expect(r.code).toBe(1);
    expect(await emu.calls({ writesOnly: true })).toEqual([]);
    // Digest removed too (as a plan of an older zoneform would be): the unbound reference is refused.
    const { digest: _d, ...old } = bare;
    await writeFile(file, JSON.stringify(old));
    const o = await runCli(emu, ["apply", file], { env: { CDN_HOST: A } });
    expect(o.code, o.stderr).toBe(1);
    expect(o.stderr).toContain("${env:CDN_HOST} is used, but the plan records no hash");
    expect(await emu.calls({ writesOnly: true })).toEqual([]);
  });
});

describe("prototype keys", () => {
  it("a file with __proto__ is refused at its line (exit 3) before any call", async () => {
    const cfg = await writeConfig(
      `version: 1\nzones:\n  - zone_id: ${ZONE.com}\n    __proto__:\n      page_shield: { enabled: false }\n`,
    );
    await emu.clearRequests();
    for (const command of ["validate", "plan"]) {
      const r = await runCli(emu, [command, "-c", cfg]);
      expect(r.code, r.stderr).toBe(3);
      expect(r.stderr).toMatch(/zoneform\.yaml:4:5 +\/zones\/0\/__proto__ +the key '__proto__' is not allowed/);
    }
    expect(await emu.calls()).toEqual([]);
  });

  it("an API answer with __proto__ keys pollutes nothing: plan and export read it as data", async () => {
    await emu.api("POST", `zones/${ZONE.com}/logpush/jobs`, {
      name: "proto-job",
      dataset: "http_requests",
      destination_conf: "https://logs.example.com/ingest",
      output_options: { field_names: ["RayID"], output_type: "ndjson" },
      enabled: true,
    });
    await emu.clearRequests();
    const evil = (text: string) =>
      text.replace(
        /"output_options":\{/g,
        '"output_options":{"__proto__":{"polluted":"options"},"constructor":{"prototype":{"polluted":"ctor"}},',
      );
    hostile.proxy.spoil = async (req, res, forward) => {
      if (req.method !== "GET" || !/logpush\/jobs$|page_shield\/policies$/.test(req.path)) return false;
      const up = await forward();
      let text = up.body.toString("utf8");
      text = evil(text).replace(/"result":\[\{/, '"result":[{"__proto__":{"polluted":"item"},');
      res.writeHead(up.status, { "content-type": "application/json" }).end(text);
      return true;
    };
    const cfg = await writeConfig(
      `version: 1\nzones:\n  - zone_id: ${ZONE.com}\n    logs:\n      prune: false\n      logpush_jobs: []\n`,
    );
    const planned = await runCli(emu, ["plan", "-c", cfg, "--api-url", hostile.proxy.url]);
    expect(planned.stderr).not.toMatch(STACK);
    const out = join(await tempDir(), "exported.yaml");
    const exported = await runCli(emu, [
      "export",
      "--zone",
      ZONE.com,
      "--sections",
      "page_shield,logpush",
      "--out",
      out,
      "--api-url",
      hostile.proxy.url,
    ]);
    expect(exported.stderr).not.toMatch(STACK);
    expect(planned.code, planned.stderr).toBe(0);
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stderr).toContain("output option(s) __proto__, constructor left out");
    expect(hostile.proxy.seen("GET", /logpush\/jobs$/)).toBeGreaterThan(0);
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty("polluted");
    expect((Object as unknown as { polluted?: unknown }).polluted).toBeUndefined();
    expect(await emu.calls({ writesOnly: true })).toEqual([]);
  });
});
