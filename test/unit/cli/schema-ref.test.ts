// The `# yaml-language-server: $schema=` line `export` and `waf-migration config` write: relative to
// the project's node_modules/zoneform when zoneform is installed there, else to the running checkout's
// schemas/ for a file inside that checkout, else no line; in each case in the exported and proposed
// files themselves.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { EDITOR_SCHEMA_PATH, RUNNING_PACKAGE_ROOT, schemaRefFrom } from "../../../src/cli/schema-ref.js";
import { headerComment } from "../../../src/export/document.js";
import { newNotes } from "../../../src/export/types.js";
import { renderMigrationYaml } from "../../../src/migration/config-yaml.js";

const tmp = realpathSync(mkdtempSync(join(tmpdir(), "zoneform-schema-ref-")));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function touch(path: string): void {
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, "{}\n");
}

/** A zoneform checkout (or installed package) at `root`, with its editor schema. */
function fakePackage(root: string): string {
  touch(join(root, ...EDITOR_SCHEMA_PATH));
  return root;
}

describe("schemaRefFrom", () => {
  const otherCheckout = fakePackage(join(tmp, "checkout"));

  it("points into node_modules/zoneform when zoneform is installed in the project, from any folder below it", () => {
    const project = join(tmp, "project");
    fakePackage(join(project, "node_modules", "zoneform"));
    mkdirSync(join(project, "zones", "prod"), { recursive: true });
    expect(schemaRefFrom(project, otherCheckout)).toBe("./node_modules/zoneform/schemas/zoneform.schema.draft-07.json");
    expect(schemaRefFrom(join(project, "zones", "prod"), otherCheckout)).toBe(
      "../../node_modules/zoneform/schemas/zoneform.schema.draft-07.json",
    );
  });

  it("points into the running checkout's schemas/ for a file inside that checkout", () => {
    mkdirSync(join(otherCheckout, "examples", "mine"), { recursive: true });
    expect(schemaRefFrom(join(otherCheckout, "examples", "mine"), otherCheckout)).toBe(
      "../../schemas/zoneform.schema.draft-07.json",
    );
    expect(schemaRefFrom(otherCheckout, otherCheckout)).toBe("./schemas/zoneform.schema.draft-07.json");
  });

  it("gives no reference outside both (a path into a global install holds on one machine only)", () => {
    const elsewhere = join(tmp, "elsewhere", "zones");
    mkdirSync(elsewhere, { recursive: true });
    expect(schemaRefFrom(elsewhere, otherCheckout)).toBeUndefined();
    // A checkout whose schema is missing is no reference either.
    expect(schemaRefFrom(join(tmp, "bare"), join(tmp, "bare"))).toBeUndefined();
  });

  it("finds this checkout's committed draft-07 schema from its examples", () => {
    expect(schemaRefFrom(join(RUNNING_PACKAGE_ROOT, "examples"))).toBe("../schemas/zoneform.schema.draft-07.json");
  });
});

describe("the written header", () => {
  const header = {
    version: "0.1.0",
    exportedAt: new Date(0),
    zones: ["5ababd603b22780302dd8d83498e5172"],
    sections: ["page_shield"] as const,
  };

  it("export: the $schema line first when there is a reference, none when there is not", () => {
    expect(
      headerComment(
        { ...header, schemaRef: "./node_modules/zoneform/schemas/zoneform.schema.draft-07.json" },
        newNotes(),
      ).split("\n")[0],
    ).toBe("# yaml-language-server: $schema=./node_modules/zoneform/schemas/zoneform.schema.draft-07.json");
    const without = headerComment({ ...header, schemaRef: undefined }, newNotes());
    expect(without).not.toContain("yaml-language-server");
    expect(without.startsWith("# Exported by zoneform 0.1.0 export")).toBe(true);
  });

  it("waf-migration config: the same", () => {
    const waf = { owasp: { enabled: true } } as Parameters<typeof renderMigrationYaml>[0]["waf"];
    const opts = { zoneId: "5ababd603b22780302dd8d83498e5172", waf, header: ["Proposed."] };
    expect(renderMigrationYaml({ ...opts, schemaRef: "../schemas/zoneform.schema.draft-07.json" }).split("\n")[0]).toBe(
      "# yaml-language-server: $schema=../schemas/zoneform.schema.draft-07.json",
    );
    const without = renderMigrationYaml(opts);
    expect(without).not.toContain("yaml-language-server");
    expect(without.split("\n")[0]).toBe("# Proposed.");
  });
});
