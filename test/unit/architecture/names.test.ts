// One name per section (docs/architecture.md, "Names"): its `name` is the last key of its `path`, its
// folder under src/sections/ and, when the emulator has an area for its API, that area's folder; every
// folder there is snake_case. Resource kinds are `<section>_<object>` or the section's name in the singular.
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SECTIONS } from "../../../src/sections/index.js";

const ROOT = join(import.meta.dirname, "../../..");
const SNAKE = /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/;
/** Folders under src/sections/ that are not a section. */
const NOT_SECTIONS = new Set(["shared"]);

const foldersOf = (dir: string) =>
  readdirSync(join(ROOT, dir)).filter((f) => statSync(join(ROOT, dir, f)).isDirectory());

describe("names", () => {
  it("a section's name is the last key of its path, snake_case", () => {
    const off = SECTIONS.filter((s) => !SNAKE.test(s.name) || s.path.split(".").at(-1) !== s.name);
    expect(off.map((s) => `${s.name} (path ${s.path})`)).toEqual([]);
  });

  it("each folder under src/sections/ is a section of that name, and each section has its folder", () => {
    const folders = foldersOf("src/sections").filter((f) => !NOT_SECTIONS.has(f));
    expect(folders.sort()).toEqual(SECTIONS.map((s) => s.name).sort());
    for (const s of SECTIONS) expect(existsSync(join(ROOT, "src/sections", s.name, "index.ts")), s.name).toBe(true);
  });

  it("the emulator's areas are snake_case folders", () => {
    expect(foldersOf("src/emulator/areas").filter((f) => !SNAKE.test(f))).toEqual([]);
  });

  it("a former name is no section's name", () => {
    const names = new Set(SECTIONS.map((s) => s.name));
    const former = SECTIONS.flatMap((s) => s.formerNames ?? []);
    expect(former.filter((n) => names.has(n))).toEqual([]);
    expect(new Set(former).size).toBe(former.length);
  });

  it("a resource kind is <section>_<object>, or the section's name in the singular", () => {
    const kinds = SECTIONS.flatMap((s) =>
      [...s.kinds, ...(s.account?.kinds ?? [])].map((k) => ({ section: s.name, kind: k.name })),
    );
    const fits = ({ section, kind }: { section: string; kind: string }) =>
      kind.startsWith(`${section}_`) || kind === section || kind === section.replace(/s$/, "");
    const off = kinds.filter((k) => !fits(k) || !SNAKE.test(k.kind));
    expect(off).toEqual([]);
  });
});
