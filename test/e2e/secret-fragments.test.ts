// Redaction before truncation: with secrets of 8 to 400 characters in `${env:…}` references, no
// message, plan file, JSON output or --verbose log shows any piece of 6 characters or more of one —
// where zoneform quotes a long value in a validation message, where an API error (an HTML page, a
// malformed answer) echoes it back and zoneform cuts the echo short, in a saved plan and JSON plan.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { TestEmulator, ZONE, runCli, tempDir, writeConfig } from "../helpers/cli.js";
import { envelope, useHostileProxy } from "../attacks/helpers.js";
import { MIN_SUBSTRING } from "../../src/redact.js";

const emu = TestEmulator.perFile();
const hostile = useHostileProxy(emu);

/**
 * A secret of `length` characters, fixed for a length, from letters that are not hex digits (so no id,
 * digest or hash zoneform prints can hold a piece of it by chance).
 */
function secretOf(length: number): string {
  const alphabet = "GHJKMNPQRSTVWXYZghjkmnpqrstvwxyz";
  let x = length * 2654435761;
  let out = "";
  for (let i = 0; i < length; i++) {
    x = (x * 1103515245 + 12345) % 2147483648;
    out += alphabet[(x >>> 16) % alphabet.length];
  }
  return out;
}

/** Fails naming the first piece of MIN_SUBSTRING characters of `secret` that `text` shows. */
export function expectNoPieceOf(text: string, secret: string, what: string): void {
  for (let i = 0; i + MIN_SUBSTRING <= secret.length; i++) {
    const piece = secret.slice(i, i + MIN_SUBSTRING);
    const at = text.indexOf(piece);
    if (at >= 0)
      expect.fail(
        `${what} shows "${piece}" (characters ${i}-${i + MIN_SUBSTRING} of a ${secret.length}-character ` +
          `secret) at ${at}: …${text.slice(Math.max(0, at - 40), at + 40)}…`,
      );
  }
}

const LENGTHS = [8, 9, 37, 38, 41, 64, 121, 400];

const config = (action = "log") => `version: 1
zones:
  - zone_id: ${ZONE.com}
    page_shield:
      enabled: true
      policies:
        - description: "Checkout \${env:SECRET}"
          action: "${action}"
          expression: 'http.request.uri.path contains "/checkout"'
          value: "script-src 'self' https://\${env:SECRET}.example"
`;

describe("no piece of a secret is shown", () => {
  it("the helper sees a piece of 6 characters, and not one of 5", () => {
    expect(() => expectNoPieceOf("a GHJKMN b", "xxGHJKMNxx", "text")).toThrow(/"GHJKMN"/);
    expectNoPieceOf("a GHJKM b", "xxGHJKMNxx", "text");
  });

  for (const length of LENGTHS) {
    it(`secret of ${length} characters: validation messages, plan (text, JSON, file), --verbose apply`, async () => {
      const SECRET = secretOf(length);
      const env = { SECRET };
      // A validation message quoting the long value (the action is the secret).
      const bad = await runCli(emu, ["validate", "-c", await writeConfig(config("${env:SECRET}"))], { env });
      expect(bad.code, bad.stderr).toBe(3);
      expect(bad.stderr).toContain("(sensitive)");
      expectNoPieceOf(bad.stdout + bad.stderr, SECRET, "validate");

      const cfg = await writeConfig(config());
      const file = join(await tempDir(), "plan.json");
      const planned = await runCli(emu, ["plan", "-c", cfg, "--out", file, "--verbose"], { env });
      expect(planned.code, planned.stderr).toBe(0);
      expectNoPieceOf(planned.stdout + planned.stderr, SECRET, "plan --verbose");
      expectNoPieceOf(await readFile(file, "utf8"), SECRET, "the plan file");
      const json = await runCli(emu, ["plan", "-c", cfg, "--format", "json"], { env });
      expect(json.code, json.stderr).toBe(0);
      expectNoPieceOf(json.stdout + json.stderr, SECRET, "plan --format json");

      const applied = await runCli(emu, ["apply", file, "--verbose"], { env });
      expect(applied.code, applied.stderr).toBe(0);
      expectNoPieceOf(applied.stdout + applied.stderr, SECRET, "apply --verbose");
      // The value did reach the API: the test would see it if it were shown.
      expect(JSON.stringify((await emu.requests()).map((r) => r.body))).toContain(SECRET);
      const again = await runCli(emu, ["plan", "-c", cfg, "--detailed-exitcode"], { env });
      expect(again.code, again.stdout).toBe(0);
    });

    it(`secret of ${length} characters: API errors that echo it, cut short`, async () => {
      const SECRET = secretOf(length);
      const env = { SECRET };
      const cfg = await writeConfig(config());
      const url = hostile.proxy.url;
      // An HTML error page whose title echoes the value, past the 120 characters zoneform quotes.
      hostile.proxy.spoil = (req, res) => {
        if (req.method !== "GET" || !req.path.endsWith("page_shield/policies")) return false;
        res
          .writeHead(502, { "content-type": "text/html" })
          .end(`<html><title>${"x".repeat(90)} upstream refused ${SECRET} for good</title></html>`);
        return true;
      };
      const html = await runCli(emu, ["plan", "-c", cfg, "--api-url", url, "--retries", "0"], { env });
      expect(html.code, html.stderr).toBe(1);
      expect(html.stderr).toContain("not JSON");
      expectNoPieceOf(html.stdout + html.stderr, SECRET, "an HTML error page");

      // A malformed answer quoting the live policy: its action holds the value, cut at 60 characters.
      hostile.proxy.spoil = (req, res) => {
        if (req.method !== "GET" || !req.path.endsWith("page_shield/policies")) return false;
        res.writeHead(200, { "content-type": "application/json" }).end(
          envelope([
            {
              id: "0123456789abcdef0123456789abcdef",
              description: "Checkout",
              action: `x-${SECRET}`,
              expression: "true",
              value: "v",
              enabled: true,
            },
          ]),
        );
        return true;
      };
      const shape = await runCli(emu, ["plan", "-c", cfg, "--api-url", url, "--verbose"], { env });
      expect(shape.code, shape.stderr).toBe(1);
      expectNoPieceOf(shape.stdout + shape.stderr, SECRET, "a malformed answer");

      // An API error envelope whose message echoes the value whole.
      hostile.proxy.spoil = (req, res) => {
        if (req.method !== "GET" || !req.path.endsWith("page_shield/policies")) return false;
        res.writeHead(400, { "content-type": "application/json" }).end(
          JSON.stringify({
            success: false,
            errors: [{ code: 1000, message: `bad value ${SECRET}` }],
            messages: [],
            result: null,
          }),
        );
        return true;
      };
      const echoed = await runCli(emu, ["plan", "-c", cfg, "--api-url", url, "--format", "json"], { env });
      expect(echoed.code, echoed.stderr).toBe(1);
      expectNoPieceOf(echoed.stdout + echoed.stderr, SECRET, "an API error message");
      expect(await emu.calls({ writesOnly: true })).toEqual([]);
    });
  }
});
