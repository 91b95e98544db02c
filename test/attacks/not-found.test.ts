// Issue 15, "malformed answers": "not found" is the API's own JSON envelope saying so (404, code
// 10003), never an HTML page or an empty body with a 404 (a proxy, a wrong base URL, a CDN error
// page). Taking an HTML 404 on an entry point read for "this zone has no entry point yet" made apply
// POST a new entry point on top of one that may well exist.
import { describe, expect, it } from "vitest";
import { ACCOUNT, TestEmulator, TOKEN, ZONE, writeConfig } from "../helpers/cli.js";
import { changingWrites, expectFailure, runBuilt, STACK, useHostileProxy } from "./helpers.js";

const emu = TestEmulator.perFile();
const hostile = useHostileProxy(emu);

const Z = ZONE.com;
const WAF_PHASE = "http_request_firewall_managed";
const LOG_PHASE = "http_log_custom_fields";
const entrypoint = (phase: string) => `zones/${Z}/rulesets/phases/${phase}/entrypoint`;

const CONFIG = `version: 1
account_id: ${ACCOUNT}
zones:
  - zone_id: ${Z}
    name: example.com
    waf:
      owasp: { enabled: true, paranoia_level: 2, score_threshold: medium, action: block }
    logs:
      custom_fields: { request_headers: [user-agent] }
`;

const HTML_404 =
  "<html><head><title>404 Not Found</title></head><body><center><h1>404 Not " +
  "Found</h1></center><hr><center>nginx</center></body></html>";

const NOT_THE_API: Array<[string, { headers: Record<string, string>; body: string }]> = [
  ["an HTML 404 page", { headers: { "content-type": "text/html" }, body: HTML_404 }],
  ["an empty 404", { headers: {}, body: "" }],
  [
    "a JSON 404 that is not a Cloudflare envelope",
    { headers: { "content-type": "application/json" }, body: '{"error":"not found"}' },
  ],
];

describe("a 404 on an entry point read that is not the API's own", () => {
  for (const [what, answer] of NOT_THE_API) {
    it(`${what} on the WAF entry point is not "no entry point": plan and apply fail with exit 1 and nothing ` +
      `is POSTed`, async () => {
      const config = await writeConfig(CONFIG);
      hostile.proxy.spoil = (req, res) => {
        if (req.method !== "GET" || req.path !== entrypoint(WAF_PHASE)) return false;
        res.writeHead(404, answer.headers).end(answer.body);
        return true;
      };
      for (const command of [["plan"], ["apply", "--auto-approve"]]) {
        const r = await runBuilt([...command, "-c", config, "--api-url", hostile.proxy.url], { deadlineMs: 10_000 });
        expectFailure(r, 1);
        expect(r.stderr).toContain("Error: 1 zone could not be planned; nothing was changed:\n");
        // Not the API saying so: the zone is not blamed, and the base URL is questioned.
        expect(r.stderr).toContain(
          `  [example.com] reading waf_managed_rules: not found: GET ${entrypoint(WAF_PHASE)} (the answer was `,
        );
        expect(r.stderr).toContain("; is --api-url / CLOUDFLARE_API_BASE_URL right?");
        expect(r.stderr).not.toContain("not accessible with this token");
        expect(r.stderr).not.toContain("POST");
      }
      expect(hostile.proxy.log.some((l) => l.spoiled)).toBe(true);
      expect(changingWrites(await emu.calls())).toEqual([]);
    }, 15_000);
  }

  it('an HTML 404 on the log fields entry point is not "no entry point" either: apply fails with exit 1 and ' +
    "writes nothing", async () => {
    const config = await writeConfig(CONFIG);
    hostile.proxy.spoil = (req, res) => {
      if (req.method !== "GET" || req.path !== entrypoint(LOG_PHASE)) return false;
      res.writeHead(404, { "content-type": "text/html" }).end(HTML_404);
      return true;
    };
    const r = await runBuilt(["apply", "-c", config, "--auto-approve", "--api-url", hostile.proxy.url], {
      deadlineMs: 10_000,
    });
    expectFailure(r, 1);
    expect(r.stderr).toContain(
      `[example.com] reading custom_fields_rule: not found: GET ${entrypoint(LOG_PHASE)} (the answer was not JSON`,
    );
    expect(changingWrites(await emu.calls())).toEqual([]);
  }, 15_000);
});

describe("the API's own JSON 404 (code 10003)", () => {
  it('is "no entry point yet": plan shows the entry point created with one POST', async () => {
    // What the API answers for a zone without a WAF entry point: its envelope, 404, code 10003.
    const res = await fetch(`${emu.url}/${entrypoint(WAF_PHASE)}`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(404);
    expect((await res.json()) as unknown).toMatchObject({ success: false, errors: [{ code: 10003 }] });

    const config = await writeConfig(CONFIG);
    const r = await runBuilt(["plan", "-c", config, "--detailed-exitcode", "--api-url", hostile.proxy.url], {
      deadlineMs: 10_000,
    });
    expect(r.code, r.stdout + r.stderr).toBe(2);
    expect(r.stderr).not.toMatch(STACK);
    expect(r.stdout).toContain('+ waf_managed_rules "owasp"');
    expect(r.stdout).toContain(`POST zones/${Z}/rulesets`);
    expect(changingWrites(await emu.calls())).toEqual([]);
  }, 15_000);
});
