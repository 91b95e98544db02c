// The source files of src/ and their relative imports, for the architecture tests. Read with a few
// regular expressions (no TypeScript parser): every import of src/ is written one of these ways.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const SRC = fileURLToPath(new URL("../../../src/", import.meta.url));

export interface SourceFile {
  /** Relative to src/, with forward slashes: `sections/waf/index.ts`. */
  file: string;
  text: string;
  /** The src/ files it imports (static, re-exports, type-only and dynamic), relative to src/. */
  imports: string[];
}

const STATIC = /^\s*(?:import|export)\b[^;]*?\bfrom\s*["']([^"']+)["']/gms;
const BARE = /^\s*import\s*["']([^"']+)["']/gm;
const DYNAMIC = /\bimport\(\s*["']([^"']+)["']\s*\)/g;

function walk(dir: string, out: string[]): void {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) walk(p, out);
    else if (e.name.endsWith(".ts")) out.push(p);
  }
}

export function sourceFiles(): SourceFile[] {
  const paths: string[] = [];
  walk(SRC, paths);
  return paths.sort().map((abs) => {
    const text = readFileSync(abs, "utf8");
    const specs = [...text.matchAll(STATIC), ...text.matchAll(BARE), ...text.matchAll(DYNAMIC)].map((m) => m[1]!);
    const imports = specs
      .filter((s) => s.startsWith("."))
      .map((s) =>
        path
          .relative(SRC, path.resolve(path.dirname(abs), s))
          .split(path.sep)
          .join("/")
          .replace(/\.js$/, ".ts"),
      );
    return { file: path.relative(SRC, abs).split(path.sep).join("/"), text, imports: [...new Set(imports)] };
  });
}

/** The text without comments and without the module specifiers of its imports (what the code says). */
export function codeOf(text: string): string {
  return text
    .replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, " "))
    .replace(/(^|[\s;{}(),])\/\/[^\n]*/g, "$1")
    .replace(STATIC, (m) => m.replace(/["'][^"']+["']\s*$/, '""'))
    .replace(BARE, 'import ""')
    .replace(DYNAMIC, 'import("")');
}
