// "A section is one folder": no file of src/ names a section's keys (where it sits in a zone of the
// file, e.g. `page_shield`, `logs.logpush_jobs`) or its resource kinds' names (`custom_fields_rule`)
// outside the section's folder (src/sections/<folder>/), the registry (src/sections/registry.ts) and the
// emulator's area of the same name (src/emulator/areas/<folder>/). Everything else goes through the
// registry or through what the section exports on purpose (its index.ts). Comments and import paths
// are not looked at: they may name a section.
//
// `logs` is the zone's container of two sections, not a section's key. A section's `name` is its last
// key (names.test.ts).
import { describe, expect, it } from "vitest";
import { SECTIONS } from "../../../src/sections/index.js";
import { codeOf, sourceFiles } from "./source.js";

/** Keys shared by several sections: never a section's own. */
const CONTAINERS = new Set(["logs"]);

/**
 * Files that may name a section's key, each with why. Keep this short: the cure is almost always a
 * helper exported by the section (its index.ts) or a walk over the registry.
 */
const EXCEPTIONS: Record<string, string> = {
  // The emulator speaks the Cloudflare API, whose paths name the products (`zones/{id}/page_shield`,
  // `custom_hostnames`); its areas are named after the API, not after the sections.
  "emulator/": "the emulator is Cloudflare's API: its paths are the products' names",
  // `waf-migration config` proposes a file holding the waf section, and its documented JSON output
  // (docs/commands/waf-migration.md) has a `waf` member: the section's key is the format.
  "migration/config-yaml.ts": "renders the waf section of the file `waf-migration config` writes",
  "cli/commands/waf-migration.ts": "its --format json output has a documented `waf` member",
};

interface Key {
  key: string;
  folder: string;
}

const KEYS: Key[] = SECTIONS.flatMap((s) => {
  const keys = new Set([...s.path.split(".").filter((k) => !CONTAINERS.has(k)), ...s.kinds.map((k) => k.name)]);
  return [...keys].map((key) => ({ key, folder: s.name }));
});

function allowed(file: string, folder: string): boolean {
  return (
    file.startsWith(`sections/${folder}/`) ||
    file === "sections/registry.ts" ||
    file.startsWith(`emulator/areas/${folder}/`) ||
    Object.keys(EXCEPTIONS).some((e) => (e.endsWith("/") ? file.startsWith(e) : file === e))
  );
}

/** Each key where it appears as a word (`page_shield`, not `page_shield_policy` nor `waf-migration`). */
function findKeys(files: ReturnType<typeof sourceFiles>): string[] {
  const found: string[] = [];
  for (const f of files) {
    const code = codeOf(f.text);
    for (const { key, folder } of KEYS) {
      if (allowed(f.file, folder)) continue;
      const re = new RegExp(`(?<![A-Za-z0-9_-])${key}(?![A-Za-z0-9_-])`, "g");
      for (const m of code.matchAll(re)) {
        const line = code.slice(0, m.index).split("\n").length;
        found.push(`src/${f.file}:${line}: ${key} (a key of src/sections/${folder}/)`);
      }
    }
  }
  return found;
}

describe("section keys", () => {
  it("are found by the scan (the keys come from the registry)", () => {
    const keys = KEYS.map((k) => k.key);
    expect(keys).toEqual(
      expect.arrayContaining(["page_shield", "waf", "custom_fields", "logpush_jobs", "custom_hostnames"]),
    );
    const probe = [
      {
        file: "cli/probe.ts",
        text: 'const x = zone.page_shield; // page_shield in a comment\nimport { y } from "../sections/waf/index.js";',
        imports: [],
      },
    ];
    expect(findKeys(probe)).toEqual(["src/cli/probe.ts:1: page_shield (a key of src/sections/page_shield/)"]);
  });

  it("appear only in their section's folder, the registry and the emulator", () => {
    expect(findKeys(sourceFiles())).toEqual([]);
  });
});
