// Redaction exactly where secrets are (issue 15.6): the API token and key, values from ${env:},
// credential query parameters and token-looking values or path segments of destinations; never an
// environment variable zoneform did not use, never a short value inside unrelated text.
import { describe, expect, it } from "vitest";
import { memoryIO, redactingIO } from "../../src/cli/io.js";
import { parseConfigText } from "../../src/config/index.js";
import { destinationWithEnvRefs } from "../../src/sections/logpush_jobs/export.js";
import { newNotes } from "../../src/export/types.js";
import type { Plan } from "../../src/model/plan.js";
import { findSafetyViolations } from "../../src/engine/verify.js";
import { isSecretValue, Redactor, redactDestination } from "../../src/redact.js";

const Z = "0123456789abcdef0123456789abcdef";
const SUMO = "https://endpoint1.collection.sumologic.com/receiver/v1/http/ZaVnC4dhaV2Lkm9xQ3pT7wYbF1sRe8uJ";

describe("what looks like a credential", () => {
  it("is a long token mixing upper case, lower case and digits, not a bucket, region, date or hex id", () => {
    expect(isSecretValue("ZaVnC4dhaV2Lkm9xQ3pT7wYbF1sRe8uJ")).toBe(true);
    expect(isSecretValue("wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")).toBe(true);
    for (const plain of [
      "my-company-logs-2024",
      "us-east-1",
      "{DATE}",
      "0123456789abcdef0123456789abcdef",
      "ClientRequestHost",
    ]) {
      expect(isSecretValue(plain), plain).toBe(false);
    }
  });

  it(
    "is hidden in a destination shown to people: credential parameters, token-looking values and " + "path segments",
    () => {
      expect(redactDestination(`${SUMO}?region=us`)).toBe(
        "https://endpoint1.collection.sumologic.com/receiver/v1/http/(sensitive)?region=us",
      );
      expect(redactDestination("https://logs.example.com/ingest?code=Ab3dEf6hIj9kLm2nOp5q&region=eu")).toBe(
        "https://logs.example.com/ingest?code=(sensitive)&region=eu",
      );
      expect(redactDestination("r2://b/p?account-id=0123456789abcdef0123456789abcdef&secret-access-key=x1")).toBe(
        "r2://b/p?account-id=0123456789abcdef0123456789abcdef&secret-access-key=(sensitive)",
      );
    },
  );

  it("is written by export as an env reference, path segments included", () => {
    const ctx = { read: {} as never, zoneId: Z, notes: newNotes() };
    expect(destinationWithEnvRefs(`${SUMO}?code=Ab3dEf6hIj9kLm2nOp5q&region=eu`, ctx, "sumo")).toBe(
      "https://endpoint1.collection.sumologic.com/receiver/v1/http/${env:ZONEFORM_SUMO_PATH_1}?code=${env:ZONEFORM_SUMO_CODE}&region=eu",
    );
    expect(ctx.notes.env.map((e) => e.name)).toEqual(["ZONEFORM_SUMO_PATH_1", "ZONEFORM_SUMO_CODE"]);
  });
});

describe("env values", () => {
  it("are hidden inside text from 6 characters; a shorter one only as a whole string", () => {
    const r = new Redactor([{ value: "true" }, { value: "5aba" }, { value: "s3cr3t-value" }]);
    expect(r.redact("enabled: false → true")).toBe("enabled: false → true");
    expect(r.redact(`zones/5ababd603b22780302dd8d83498e5172`)).toBe(`zones/5ababd603b22780302dd8d83498e5172`);
    expect(r.redact("key=s3cr3t-value;")).toBe("key=(sensitive);");
    expect(r.redactDeep({ a: "true", b: true, c: "not true" })).toEqual({ a: "(sensitive)", b: true, c: "not true" });
  });

  it("are found among a thousand, anywhere in a text, the longest whole, URL-encoded too", () => {
    const secrets = Array.from({ length: 1000 }, (_, i) => ({
      value: `token-${String(i).padStart(4, "0")}-${"x".repeat(i % 7)}`,
      replacement: `\${env:T${i}}`,
    }));
    const r = new Redactor([...secrets, { value: "token-0001-x/and more", replacement: "${env:LONG}" }]);
    expect(r.redact("a token-0999-xxxxx b")).toBe("a ${env:T999} b");
    expect(r.redact("token-0001-x/and more, token-0001-x")).toBe("${env:LONG}, ${env:T1}");
    expect(r.redact(`q=${encodeURIComponent("token-0001-x/and more")}`)).toBe("q=${env:LONG}");
    expect(r.redact("token-000 token-01 nothing here")).toBe("token-000 token-01 nothing here");
    // Added after a first use: the matcher is built again.
    r.add("late-secret");
    expect(r.redact("see late-secret")).toBe("see (sensitive)");
  });

  it("used in the file are the only ones hidden by the terminal output, beside the API token and key", () => {
    const { io, stdout } = memoryIO({
      env: { CLOUDFLARE_API_TOKEN: "tok-123456789", AWS_SECRET_ACCESS_KEY: "unused-secret-123", FLAG: "true" },
    });
    const safe = redactingIO(io);
    safe.stdout.write("tok-123456789 unused-secret-123 enabled: true\n");
    expect(stdout()).toBe("(sensitive) unused-secret-123 enabled: true\n");
  });

  it("never come from zoneform's own credentials", () => {
    expect(() =>
      parseConfigText(
        `version: 1\nzones:\n  - zone_id: ${Z}\n    page_shield:\n      policies:\n        - { description: ` +
          `"\${env:CLOUDFLARE_API_TOKEN}", action: log, expression: "true", value: x }\n`,
        "z.yaml",
        { CLOUDFLARE_API_TOKEN: "t" },
      ),
    ).toThrow("'${env:CLOUDFLARE_API_TOKEN}' is zoneform's own API credential; it is never written into a zone");
  });

  it("keep the file as written for a saved plan: references and $${ escapes", () => {
    const { desired } = parseConfigText(
      `version: 1\nzones:\n  - zone_id: ${Z}\n    page_shield:\n      policies:\n        - { description: ` +
        `"a \${env:X} b $\${literal}", action: log, expression: "true", value: x }\n`,
      "z.yaml",
      { X: "interpolated-value-9" },
    );
    // The desired state holds the reference, never the value, in the one template syntax.
    expect(desired.zones[0]!.page_shield!.policies![0]!.description).toBe("a ${env:X} b $${literal}");
    expect((desired.zones[0]!.declared as any).page_shield.policies[0].description).toBe("a ${env:X} b $${literal}");
    expect(desired.secrets.names).toEqual(["X"]);
    expect(JSON.stringify(desired)).not.toContain("interpolated-value-9");
  });
});

describe("safety", () => {
  it("counts a replacement as a delete", () => {
    const change = (kind: "replace" | "delete") => ({
      kind,
      resource: "logpush_job",
      zone_id: Z,
      identity: kind,
      fields: [],
      operations: [],
    });
    const plan = {
      format_version: 5,
      created_at: "",
      summary: { create: 0, update: 0, replace: 1, delete: 1 },
      zones: [
        { zone_id: Z, changes: [change("replace"), change("delete")], fingerprints: {}, errors: [], warnings: [] },
      ],
    } as Plan;
    expect(findSafetyViolations(plan, 1)).toEqual([{ zone: Z, deletes: 2, max: 1 }]);
  });
});
