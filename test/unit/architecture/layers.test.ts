// Layers that point one way. Each top-level folder of src/ may import only the folders its row names
// (and itself); the files at the top of src/ are split in two: `index.ts`, the library's entry, and
// the rest, small shared modules ("base": errors, redaction, safe text, templates, file reading and
// writing, the clock) that import only each other. No import circle between files either (type-only
// imports and dynamic `import()` count: a circle of types is a circle).
//
// The allowed edges (docs/architecture.md describes them):
//
//   action       → index.ts, cli, plan, model, base                     the GitHub Action, over the CLI
//                                                                       and the library
//   cli          → every folder below but action                        commands, options, output
//   index.ts     → engine, plan, export, audit, config, sections, cloudflare, model, base   the library
//   audit        → inventory, sarif, sections, cloudflare, base         `audit`
//   csp          → inventory                                            `csp suggest`
//   sarif        → inventory, config, sections, base                    SARIF output of audit/inventory
//   inventory    → sections, cloudflare, base                           Page Shield's live scripts, verdicts
//   migration    → sections, model                                      the WAF migration's decisions
//   export       → engine, sections, cloudflare, base                   live zones → the file
//   engine       → plan, config, sections, cloudflare, model, base      read, plan, verify, apply, lock
//   plan         → sections, model, base                                the pure planner, rendering
//   config       → sections, model, base                                loading and checking the file
//   sections     → cloudflare, model, base                              one folder per section + registry
//   secrets      → cloudflare, model, base                              the one holder of `${env:…}` values
//   cloudflare   → model, base                                          the HTTP client (no product names)
//   emulator     → base                                                 apart: the fake Cloudflare API
//   model        → (nothing)                                            plain types
//   base         → base
//
// Every layer (a folder of src/) is entered through its front door, `<layer>/index.ts`: an import from
// another layer names that file only, and what it exports is what the layer offers on purpose. Inside a
// layer, files import each other directly (never their own index.ts: that would make circles). Likewise
// a section's folder (src/sections/<name>/) is imported from outside it only through its index.ts. The
// table is as tight as the code: an allowed edge that no import uses is an error too.
import path from "node:path";
import { describe, expect, it } from "vitest";
import { sourceFiles, type SourceFile } from "./source.js";

const BELOW_CLI = [
  "audit",
  "csp",
  "sarif",
  "inventory",
  "migration",
  "export",
  "engine",
  "plan",
  "config",
  "sections",
  "secrets",
  "cloudflare",
  "emulator",
  "model",
  "base",
];

export const ALLOWED: Readonly<Record<string, readonly string[]>> = {
  action: ["index.ts", "cli", "plan", "model", "base"],
  cli: BELOW_CLI,
  "index.ts": ["engine", "plan", "export", "audit", "config", "sections", "cloudflare", "model", "base"],
  audit: ["inventory", "sarif", "sections", "cloudflare", "base"],
  csp: ["inventory"],
  sarif: ["inventory", "config", "sections", "base"],
  inventory: ["sections", "cloudflare", "base"],
  migration: ["sections", "model"],
  export: ["engine", "sections", "secrets", "cloudflare", "base"],
  engine: ["plan", "config", "sections", "secrets", "cloudflare", "model", "base"],
  plan: ["sections", "secrets", "model", "base"],
  config: ["sections", "secrets", "model", "base"],
  sections: ["cloudflare", "model", "base"],
  secrets: ["cloudflare", "model", "base"],
  cloudflare: ["model", "base"],
  emulator: ["base"],
  model: [],
  base: ["base"],
};

/** The layer of a file of src/: its top-level folder, `index.ts`, or `base` for the other top files. */
export function layerOf(file: string): string {
  const slash = file.indexOf("/");
  if (slash >= 0) return file.slice(0, slash);
  return file === "index.ts" ? "index.ts" : "base";
}

function upwardImports(files: readonly SourceFile[]): string[] {
  const out: string[] = [];
  for (const f of files) {
    const from = layerOf(f.file);
    for (const target of f.imports) {
      const to = layerOf(target);
      if (to === from || (ALLOWED[from] ?? []).includes(to)) continue;
      out.push(`src/${f.file} → src/${target} (${from} may not import ${to})`);
    }
  }
  return out;
}

/** Imports from another layer that do not go through its index.ts (the files at the top of src/ have none). */
function layerInternals(files: readonly SourceFile[]): string[] {
  const out: string[] = [];
  for (const f of files) {
    const from = layerOf(f.file);
    for (const target of f.imports) {
      const to = layerOf(target);
      if (to === from || to === "base" || to === "index.ts" || target === `${to}/index.ts`) continue;
      out.push(`src/${f.file} → src/${target} (use what src/${to}/index.ts exports)`);
    }
  }
  return out;
}

/** The allowed edges of the table that no import uses. */
function unusedEdges(files: readonly SourceFile[]): string[] {
  const used = new Set(files.flatMap((f) => f.imports.map((t) => `${layerOf(f.file)} → ${layerOf(t)}`)));
  return Object.entries(ALLOWED).flatMap(([from, tos]) =>
    tos.filter((to) => !used.has(`${from} → ${to}`)).map((to) => `${from} → ${to}`),
  );
}

/** Imports into a section's folder from outside it that do not go through its index.ts. */
function sectionInternals(files: readonly SourceFile[]): string[] {
  const folderOf = (file: string) => /^sections\/([^/]+)\/[^/]+$/.exec(file)?.[1];
  const out: string[] = [];
  for (const f of files) {
    for (const target of f.imports) {
      const folder = folderOf(target);
      if (
        !folder ||
        folder === "shared" ||
        f.file.startsWith(`sections/${folder}/`) ||
        path.posix.basename(target) === "index.ts"
      )
        continue;
      out.push(`src/${f.file} → src/${target} (use what src/sections/${folder}/index.ts exports)`);
    }
  }
  return out;
}

/** Every import circle between files (strongly connected components of more than one file). */
function circles(files: readonly SourceFile[]): string[][] {
  const graph = new Map(files.map((f) => [f.file, f.imports.filter((t) => t !== f.file)]));
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

describe("layers", () => {
  const files = sourceFiles();

  it("the table names every top-level folder of src/", () => {
    expect(files.length).toBeGreaterThan(100);
    expect(files.find((f) => f.file === "config/rules/index.ts")?.imports).toContain("sections/index.ts");
    const layers = new Set(files.map((f) => layerOf(f.file)));
    expect([...layers].filter((l) => !(l in ALLOWED))).toEqual([]);
  });

  it("the checks catch what they look for", () => {
    const probe: SourceFile[] = [
      { file: "sections/a/x.ts", text: "", imports: ["config/index.ts"] },
      { file: "plan/p.ts", text: "", imports: ["sections/a/x.ts", "plan/q.ts"] },
      { file: "plan/q.ts", text: "", imports: ["plan/p.ts"] },
      { file: "cli/c.ts", text: "", imports: ["engine/apply.ts", "engine/index.ts", "errors.ts"] },
    ];
    expect(upwardImports(probe)).toEqual([
      "src/sections/a/x.ts → src/config/index.ts (sections may not import config)",
    ]);
    expect(sectionInternals(probe)).toEqual([
      "src/plan/p.ts → src/sections/a/x.ts (use what src/sections/a/index.ts exports)",
    ]);
    expect(circles(probe)).toEqual([["plan/p.ts", "plan/q.ts"]]);
    expect(layerInternals(probe)).toEqual([
      "src/plan/p.ts → src/sections/a/x.ts (use what src/sections/index.ts exports)",
      "src/cli/c.ts → src/engine/apply.ts (use what src/engine/index.ts exports)",
    ]);
    expect(unusedEdges(probe)).toContain("cli → audit");
    expect(unusedEdges(probe)).not.toContain("cli → engine");
  });

  it("every import points down the table", () => {
    expect(upwardImports(files)).toEqual([]);
  });

  it("a layer is entered through its index.ts", () => {
    expect(layerInternals(files)).toEqual([]);
  });

  it("every allowed edge of the table is used", () => {
    expect(unusedEdges(files)).toEqual([]);
  });

  it("a section's folder is entered through its index.ts", () => {
    expect(sectionInternals(files)).toEqual([]);
  });

  it("no import circle", () => {
    expect(circles(files)).toEqual([]);
  });
});
