// `export --sections` takes each section's name and a renamed section's former name
// (docs/architecture.md, "Names"), in the registry's order, each once; anything else is a usage error.
import { describe, expect, it } from "vitest";
import { parseSections } from "../../../src/cli/commands/export.js";
import { UsageError } from "../../../src/errors.js";
import { EXPORT_SECTIONS, exportSectionNamed } from "../../../src/export/index.js";
import { SECTIONS } from "../../../src/sections/index.js";

describe("export section names", () => {
  it("every section's name, in the registry's order by default", () => {
    expect(parseSections(undefined)).toEqual(SECTIONS.map((s) => s.name));
    expect(parseSections([...EXPORT_SECTIONS].reverse())).toEqual([...EXPORT_SECTIONS]);
  });

  it("logpush_jobs, and logpush, its former name, for the same section", () => {
    expect(parseSections(["logpush_jobs"])).toEqual(["logpush_jobs"]);
    expect(parseSections(["logpush"])).toEqual(["logpush_jobs"]);
    expect(parseSections(["logpush", "waf", "logpush_jobs"])).toEqual(["waf", "logpush_jobs"]);
    expect(exportSectionNamed("logpush")).toBe("logpush_jobs");
  });

  it("refuses a name no section has had, listing the names (not the former ones)", () => {
    expect(() => parseSections(["page-shield", "waf"])).toThrow(UsageError);
    expect(() => parseSections(["page-shield"])).toThrow(
      `--sections page-shield: expected some of ${EXPORT_SECTIONS.join(", ")}`,
    );
    expect(EXPORT_SECTIONS).not.toContain("logpush");
    expect(exportSectionNamed("page-shield")).toBeUndefined();
  });
});
