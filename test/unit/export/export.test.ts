import { describe, expect, it } from "vitest";
import { parseConfigText } from "../../../src/config/index.js";
import { renderExport } from "../../../src/export/document.js";
import {
  destinationWithEnvRefs,
  envNameFor,
  exportedOutputOptions,
  upperSnake,
} from "../../../src/sections/logpush_jobs/export.js";
import { escapeTemplates, newNotes, type SectionContext } from "../../../src/export/types.js";

const Z = "0123456789abcdef0123456789abcdef";
const ctx = (): SectionContext => ({ read: undefined as never, zoneId: Z, notes: newNotes() });

describe("logpush secrets", () => {
  it("replaces every secret query parameter with an ${env:ZONEFORM_<JOB>_<PARAM>} reference and notes it", () => {
    const c = ctx();
    const dest = destinationWithEnvRefs(
      "s3://logs/{DATE}?region=us-east-1&access-key-id=AKIA&secret-access-key=abc%2Fdef&sse=AES256",
      c,
      "http-to-s3",
    );
    expect(dest).toBe(
      "s3://logs/{DATE}?region=us-east-1&access-key-id=${env:ZONEFORM_HTTP_TO_S3_ACCESS_KEY_ID}&secret-access-key=${env:ZONEFORM_HTTP_TO_S3_SECRET_ACCESS_KEY}&sse=AES256",
    );
    expect(c.notes.env.map((e) => e.name)).toEqual([
      "ZONEFORM_HTTP_TO_S3_ACCESS_KEY_ID",
      "ZONEFORM_HTTP_TO_S3_SECRET_ACCESS_KEY",
    ]);
  });

  it("leaves destinations without credentials and empty values alone", () => {
    const c = ctx();
    expect(destinationWithEnvRefs("r2://logs/{DATE}", c, "j")).toBe("r2://logs/{DATE}");
    expect(destinationWithEnvRefs("https://h.example/p?token=&x=1", c, "j")).toBe("https://h.example/p?token=&x=1");
    expect(c.notes.env).toEqual([]);
  });

  it("gives a second use of a name the zone's id to stay unique", () => {
    const c = ctx();
    expect(envNameFor(c.notes, Z, "job", "key")).toBe("ZONEFORM_JOB_KEY");
    c.notes.env.push({ name: "ZONEFORM_JOB_KEY", zone_id: Z, purpose: "" });
    expect(envNameFor(c.notes, Z, "job", "key")).toBe("ZONEFORM_JOB_KEY_01234567");
    expect(upperSnake("header_DD-API-KEY")).toBe("HEADER_DD_API_KEY");
  });
});

describe("output options", () => {
  it("keeps field_names and what differs from the defaults, and names the keys the file cannot hold", () => {
    const { options, unknown } = exportedOutputOptions({
      field_names: ["RayID"],
      output_type: "ndjson",
      timestamp_format: "unixnano",
      sample_rate: 0.5,
      merge_subrequests: false,
      future_option: 1,
    });
    expect(options).toEqual({ field_names: ["RayID"], sample_rate: 0.5 });
    expect(unknown).toEqual(["future_option"]);
    expect(
      exportedOutputOptions({ field_names: [], output_type: "csv", record_prefix: "", record_suffix: "\n" }).options,
    ).toEqual({ field_names: [], output_type: "csv" });
  });
});

describe("the exported document", () => {
  it("escapes ${…} read from the API so that loading the file gives the same text back", () => {
    const value = "script-src 'self' https://x.test/${env:NOT_A_SECRET}";
    const doc = {
      version: 1,
      zones: [
        {
          zone_id: Z,
          page_shield: { policies: [escapeTemplates({ description: "d", action: "log", expression: "true", value })] },
        },
      ],
    };
    const text = renderExport(
      doc,
      {
        schemaRef: "../schemas/zoneform.schema.json",
        version: "0",
        exportedAt: new Date(0),
        zones: [Z],
        sections: ["page_shield"],
      },
      newNotes(),
    );
    expect(text.startsWith("# yaml-language-server: $schema=../schemas/zoneform.schema.json\n")).toBe(true);
    const { desired } = parseConfigText(text, "x.yaml", {});
    // Loaded in template syntax, the escape kept; it is the text `value` where it is sent.
    const loaded = desired.zones[0]!.page_shield!.policies![0]!.value;
    expect(desired.secrets.resolveForWrite(loaded)).toBe(value);
    expect(desired.secrets.names).toEqual([]);
  });
});
