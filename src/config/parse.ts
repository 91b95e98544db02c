// YAML → plain value, keeping where every node was: a JSON pointer → line:column map built from the
// yaml package's node ranges and LineCounter. Syntax errors and duplicate keys become findings at
// their position; alias bombs are refused. Merge keys (`<<: *anchor`) are allowed. A file is first
// read by fast-yaml.ts (js-yaml, without that map) and, when that reading is sure, only its zones'
// positions (which every zone carries) are kept; the yaml package reads it, with every position, when
// the fast reading is not sure (an error, an anchor, a tag …) or the first time any other position is
// asked for (a problem to report), so a large valid file costs no more than its fast parse.
import { createRequire } from "node:module";
import type { Node } from "yaml";
import { fastParse } from "./fast-yaml.js";
import type { ConfigProblem } from "../errors.js";
import { childPointer, lastSegment, type Locator, type SourcePosition } from "./problems.js";

/** More aliases than this in one file is a "billion laughs" attack, not a configuration. */
export const MAX_ALIAS_COUNT = 100;

export interface ParsedYaml {
  file: string;
  /** The document as plain data; undefined when the text could not be parsed at all. */
  value: unknown;
  locate: Locator;
  /** Syntax errors (severity error) and YAML warnings. */
  problems: ConfigProblem[];
}

interface NodeSpan {
  start: number;
  end: number;
  keyStart?: number;
}

// The yaml package, loaded the first time a file needs it: a valid file never does. Inside
// withYamlOnDemand it is loaded as a module of its own (`import()`, a chunk of the bundled CLI);
// elsewhere (synchronous callers) with `require`.
const require = createRequire(import.meta.url);
type YamlPackage = typeof import("yaml");
let yamlPackage: YamlPackage | undefined;
let loadSync = true;
class YamlNotLoaded extends Error {}
function yaml(): YamlPackage {
  if (yamlPackage) return yamlPackage;
  if (!loadSync) throw new YamlNotLoaded("the yaml package is not loaded yet");
  yamlPackage = require("yaml") as YamlPackage;
  return yamlPackage;
}

/** Runs a synchronous check of files; if it needs the yaml package, loads it and runs the check again. */
export async function withYamlOnDemand<T>(check: () => T): Promise<T> {
  if (!yamlPackage) {
    loadSync = false;
    try {
      return check();
    } catch (err) {
      if (!(err instanceof YamlNotLoaded)) throw err;
    } finally {
      loadSync = true;
    }
    // A CommonJS package: Node's import() gives its exports as `default` too, a bundle only there.
    const mod = (await import("yaml")) as YamlPackage & { default?: YamlPackage };
    yamlPackage = mod.default ?? mod;
  }
  return check();
}

const OPTIONS = { uniqueKeys: true, merge: true, prettyErrors: false, strict: true } as const;

export function parseYaml(text: string, file: string): ParsedYaml {
  // Most files are valid: read fast, without positions (fast-yaml.ts says when it cannot be sure).
  const fast = fastParse(text);
  if (fast === undefined || fast.value === undefined) return parsePositioned(text, file);
  // Where each zone starts (`/zones/<i>`), as the positioned map would say; the rest on demand.
  const { value, zoneStarts } = fast;
  let lines: number[] | undefined;
  let positioned: Locator | undefined;
  const locate: Locator = (pointer, at = "value") => {
    const m = /^\/zones\/(\d+)$/.exec(pointer);
    const start = m ? zoneStarts[Number(m[1])] : undefined;
    if (start !== undefined) return linePos((lines ??= lineStarts(text)), start);
    return (positioned ??= parsePositioned(text, file).locate)(pointer, at);
  };
  return { file, value, locate, problems: [] };
}

/** Offsets at which each line starts. */
function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) starts.push(i + 1);
  return starts;
}

/** 1-based line and column of an offset, as LineCounter.linePos gives them. */
function linePos(starts: number[], offset: number): SourcePosition {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]! <= offset) lo = mid;
    else hi = mid - 1;
  }
  return { line: lo + 1, column: offset - starts[lo]! + 1 };
}

/** The parse with every node's position: for files with problems, and for any position asked of a valid one. */
function parsePositioned(text: string, file: string): ParsedYaml {
  const { LineCounter, parseDocument } = yaml();
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, ...OPTIONS });
  const spans = new Map<string, NodeSpan>();
  if (doc.contents) indexNode(doc.contents as Node, "", spans);

  const toPos = (offset: number): SourcePosition => {
    const { line, col } = lineCounter.linePos(Math.max(0, Math.min(offset, text.length)));
    return { line, column: col };
  };
  const locate: Locator = (pointer, at = "value") => {
    let p = pointer;
    for (;;) {
      const span = spans.get(p);
      if (span) return toPos(at === "key" && span.keyStart !== undefined ? span.keyStart : span.start);
      if (p === "") return { line: 1, column: 1 };
      p = p.slice(0, p.lastIndexOf("/"));
      at = "value";
    }
  };
  const pointerAt = (offset: number): string => {
    let best = "";
    let bestSize = Infinity;
    for (const [pointer, span] of spans) {
      const from = span.keyStart ?? span.start;
      if (offset >= from && offset < Math.max(span.end, from + 1) && span.end - from <= bestSize) {
        best = pointer;
        bestSize = span.end - from;
      }
    }
    return best;
  };

  const problems: ConfigProblem[] = [];
  let fatal = false;
  for (const err of doc.errors) {
    const offset = err.pos[0];
    const pos = toPos(offset);
    if (err.code === "DUPLICATE_KEY") {
      const key = /^\s*["']?([^:"'\n]*?)["']?\s*:/.exec(text.slice(offset))?.[1] ?? "";
      const found = pointerAt(offset);
      const pointer = lastSegment(found) === key ? found : childPointer(found, key);
      problems.push({ file, ...pos, pointer, message: `duplicate key '${key}': a key may appear once in a mapping`, severity: "error" });
    } else {
      fatal = true;
      problems.push({ file, ...pos, pointer: pointerAt(offset), message: `YAML syntax error: ${firstLine(err.message)}`, severity: "error" });
    }
  }
  for (const warning of doc.warnings) {
    problems.push({ file, ...toPos(warning.pos[0]), pointer: pointerAt(warning.pos[0]), message: firstLine(warning.message), severity: "warning" });
  }

  let value: unknown;
  if (!fatal) {
    try {
      value = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
    } catch (err) {
      problems.push({
        file,
        line: 1,
        column: 1,
        pointer: "",
        message: `YAML aliases expand too much (more than ${MAX_ALIAS_COUNT}): ${err instanceof Error ? firstLine(err.message) : String(err)}`,
        severity: "error",
      });
    }
  }
  return { file, value, locate, problems };
}

function indexNode(node: Node, pointer: string, spans: Map<string, NodeSpan>, keyStart?: number): void {
  const { isAlias, isMap, isPair, isScalar, isSeq } = yaml();
  const range = node.range;
  const emptyNull = isScalar(node) && node.value === null && range !== undefined && range !== null && range[0] === range[1];
  const start = emptyNull && keyStart !== undefined ? keyStart : (range?.[0] ?? keyStart ?? 0);
  spans.set(pointer, { start, end: range?.[1] ?? start, keyStart });
  if (isAlias(node)) return;
  if (isMap(node)) {
    for (const pair of node.items) {
      if (!isPair(pair)) continue;
      const keyNode = pair.key as Node | null;
      const key = isScalar(keyNode) ? String(keyNode.value) : String(keyNode);
      const child = childPointer(pointer, key);
      const kStart = keyNode?.range?.[0];
      if (pair.value) indexNode(pair.value as Node, child, spans, kStart);
      else spans.set(child, { start: kStart ?? start, end: keyNode?.range?.[1] ?? start, keyStart: kStart });
    }
  } else if (isSeq(node)) {
    node.items.forEach((item, i) => {
      if (item) indexNode(item as Node, childPointer(pointer, i), spans);
    });
  }
}

function firstLine(message: string): string {
  return message.split("\n")[0]!.replace(/ at line \d+, column \d+:?$/, "");
}
