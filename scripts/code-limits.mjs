// The size limits of src/ (docs/contributing.md, "Size and comments"), which `npm run lint` checks: at most
// 1.0 comment word per code line, file headers of at most 6 lines, no comment block over 60 words, no
// function over 100 lines, no file over 400 lines but those docs/architecture.md names. `--report` lists
// the densest files; folders given measure those alone. TypeScript's parser finds comments and functions.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript5";

const ROOT = resolve(fileURLToPath(import.meta.url), "../..");
export const LIMITS = { wordsPerCodeLine: 1.0, headerLines: 6, blockWords: 60, functionLines: 100, fileLines: 400 };

function sourceFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(path);
    return e.name.endsWith(".ts") && !e.name.endsWith(".d.ts") ? [path] : [];
  });
}

/** The comments of a source file, each with its first and last line (0-based) and its words. */
function commentsOf(source) {
  const text = source.text;
  const scanner = ts.createScanner(ts.ScriptTarget.Latest, false, ts.LanguageVariant.Standard, text);
  const lineOf = (pos) => source.getLineAndCharacterOfPosition(pos).line;
  const out = [];
  for (let kind = scanner.scan(); kind !== ts.SyntaxKind.EndOfFileToken; kind = scanner.scan()) {
    // The scanner alone misreads a regular expression literal: rescan where the parser would.
    if (kind === ts.SyntaxKind.SlashToken || kind === ts.SyntaxKind.SlashEqualsToken) {
      const node = nodeAt(source, scanner.getTokenStart());
      if (node && node.kind === ts.SyntaxKind.RegularExpressionLiteral) scanner.reScanSlashToken();
    }
    if (kind === ts.SyntaxKind.CloseBraceToken && inTemplate(source, scanner.getTokenStart()))
      scanner.reScanTemplateToken(false);
    if (kind !== ts.SyntaxKind.SingleLineCommentTrivia && kind !== ts.SyntaxKind.MultiLineCommentTrivia) continue;
    const body = scanner
      .getTokenText()
      .replace(/^\/\/|^\/\*+|\*+\/$/g, "")
      .replace(/^\s*\*/gm, "");
    out.push({
      start: lineOf(scanner.getTokenStart()),
      end: lineOf(scanner.getTokenEnd()),
      words: body.split(/\s+/).filter((w) => /\w/.test(w)).length,
    });
  }
  return out;
}

function nodeAt(source, pos) {
  let found;
  const visit = (node) => {
    if (pos < node.getStart(source) || pos >= node.end) return;
    found = node;
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function inTemplate(source, pos) {
  const node = nodeAt(source, pos);
  return node !== undefined && (node.kind === ts.SyntaxKind.TemplateMiddle || node.kind === ts.SyntaxKind.TemplateTail);
}

/** Consecutive line comments (and each block comment) as one block: what a reader reads at once. */
function blocksOf(comments) {
  const blocks = [];
  for (const c of comments) {
    const last = blocks.at(-1);
    if (last && c.start === last.end + 1) {
      last.end = c.end;
      last.words += c.words;
    } else blocks.push({ ...c });
  }
  return blocks;
}

/** Every function, method and arrow function with a body, with its name and lines. */
function functionsOf(source) {
  const out = [];
  const visit = (node) => {
    if (ts.isFunctionLike(node) && node.body) {
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const end = source.getLineAndCharacterOfPosition(node.end).line;
      const name =
        node.name?.getText(source) ??
        (ts.isVariableDeclaration(node.parent) ? node.parent.name.getText(source) : "(anonymous)");
      out.push({ name, start, lines: end - start + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

/** One file's measures and what breaks the limits (`longFileAllowed`: docs/architecture.md names it). */
export function measure(text, longFileAllowed = false) {
  const source = ts.createSourceFile("x.ts", text, ts.ScriptTarget.Latest, true);
  const comments = commentsOf(source);
  const commentLines = new Set(
    comments.flatMap((c) => Array.from({ length: c.end - c.start + 1 }, (_, i) => c.start + i)),
  );
  const lines = text.split("\n");
  // A code line: not blank, and not only comment (a line with code and a trailing comment counts).
  const code = lines.filter(
    (l, i) => l.trim() !== "" && (!commentLines.has(i) || !/^\s*(\/\/|\/\*|\*)/.test(l)),
  ).length;
  const nonBlank = lines.filter((l) => l.trim() !== "").length;
  const words = comments.reduce((n, c) => n + c.words, 0);
  const blocks = blocksOf(comments);
  const problems = [];
  const header = blocks[0]?.start === 0 ? blocks[0] : undefined;
  if (header && header.end + 1 > LIMITS.headerLines)
    problems.push(`1: a header of ${header.end + 1} lines (at most ${LIMITS.headerLines})`);
  for (const b of blocks)
    if (b.words > LIMITS.blockWords)
      problems.push(`${b.start + 1}: a comment of ${b.words} words (at most ${LIMITS.blockWords})`);
  for (const f of functionsOf(source))
    if (f.lines > LIMITS.functionLines)
      problems.push(`${f.start + 1}: ${f.name} is ${f.lines} lines (at most ${LIMITS.functionLines})`);
  if (lines.length > LIMITS.fileLines && !longFileAllowed)
    problems.push(`1: ${lines.length} lines (at most ${LIMITS.fileLines}, unless docs/architecture.md names it)`);
  return { code, nonBlank, words, problems };
}

/** The files docs/architecture.md allows over the file limit: the `src/…` paths of its "Size exceptions". */
function allowedLongFiles() {
  const doc = readFileSync(join(ROOT, "docs/architecture.md"), "utf8");
  const section = /## Size exceptions\n([\s\S]*?)(?=\n## |$)/.exec(doc)?.[1] ?? "";
  return new Set([...section.matchAll(/`(src\/[^`]+\.ts)`/g)].map((m) => m[1]));
}

function main(argv) {
  const allowed = allowedLongFiles();
  // Folders or files of src/ given on the command line: only those are measured (a part's own count).
  const parts = argv.filter((a) => !a.startsWith("--"));
  const perFile = sourceFiles(join(ROOT, "src"))
    .filter(
      (f) => parts.length === 0 || parts.some((p) => f === resolve(ROOT, p) || f.startsWith(`${resolve(ROOT, p)}/`)),
    )
    .sort()
    .map((file) => {
      const path = relative(ROOT, file);
      return { path, ...measure(readFileSync(file, "utf8"), allowed.has(path)) };
    });
  const sum = (k) => perFile.reduce((n, f) => n + f[k], 0);
  const density = sum("words") / sum("code");
  if (argv.includes("--report"))
    for (const f of [...perFile].sort((a, b) => b.words / b.code - a.words / a.code).slice(0, 30))
      console.log(`${(f.words / f.code).toFixed(2)}  ${f.words} words / ${f.code} lines  ${f.path}`);
  const problems = perFile.flatMap((f) => f.problems.map((p) => `${f.path}:${p}`));
  for (const p of problems) console.error(p);
  const scope = parts.length > 0 ? parts.join(", ") : "src/";
  const summary =
    `${scope}: ${sum("nonBlank")} non-blank lines; ${sum("words")} comment words over ${sum("code")} code lines, ` +
    `${density.toFixed(2)} a line (at most ${LIMITS.wordsPerCodeLine})`;
  if (density > LIMITS.wordsPerCodeLine || problems.length > 0) {
    console.error(`${summary}; ${problems.length} over the limits`);
    process.exitCode = 1;
  } else console.log(summary);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main(process.argv.slice(2));
