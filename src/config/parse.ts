// YAML → plain value, keeping where every node was: a JSON pointer → line:column map built from the
// yaml package's node ranges and LineCounter (its documented API). Syntax errors and duplicate keys
// become findings at their position; alias bombs are refused. Merge keys (`<<: *anchor`) are allowed.
// A prototype key (`__proto__`, `constructor`, `prototype`) anywhere is refused at its line, and the
// file is then not read any further: no such key ever reaches interpolation, the schema or the rules.
import { isAlias, isMap, isPair, isScalar, isSeq, LineCounter, parseDocument, type Node } from "yaml";
import type { ConfigProblem } from "../errors.js";
import { childPointer, lastSegment, type Locator, type SourcePosition } from "./problems.js";

/** Mapping keys that name a JavaScript object's machinery, never a setting: refused wherever they stand. */
const PROTOTYPE_KEYS: ReadonlySet<string> = new Set(["__proto__", "constructor", "prototype"]);

/** More aliases than this in one file is a "billion laughs" attack, not a configuration. */
const MAX_ALIAS_COUNT = 100;

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

// logLevel "error": the yaml package reports nothing itself (it would call process.emitWarning, which Node
// prints raw on stderr); every warning it has is in doc.warnings and becomes a finding below.
const OPTIONS = { uniqueKeys: true, merge: true, prettyErrors: false, strict: true, logLevel: "error" } as const;

/** The file's value, its problems, and where each of its nodes is. */
export function parseYaml(text: string, file: string): ParsedYaml {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, ...OPTIONS });
  const spans = new Map<string, NodeSpan>();
  const prototypeKeys: Array<{ pointer: string; offset: number; key: string }> = [];
  const complexKeys: Array<{ pointer: string; offset: number; key: string }> = [];
  if (doc.contents) indexNode(doc.contents as Node, "", spans, { prototypeKeys, complexKeys });

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
      problems.push({
        file,
        ...pos,
        pointer,
        message: `duplicate key '${key}': a key may appear once in a mapping`,
        severity: "error",
      });
    } else {
      fatal = true;
      problems.push({
        file,
        ...pos,
        pointer: pointerAt(offset),
        message: `YAML syntax error: ${firstLine(err.message)}`,
        severity: "error",
      });
    }
  }
  for (const warning of doc.warnings) {
    problems.push({
      file,
      ...toPos(warning.pos[0]),
      pointer: pointerAt(warning.pos[0]),
      message: firstLine(warning.message),
      severity: "warning",
    });
  }

  for (const k of prototypeKeys) {
    fatal = true;
    problems.push({
      file,
      ...toPos(k.offset),
      pointer: k.pointer,
      message: `the key '${k.key}' is not allowed: it names JavaScript's object machinery, never a setting (remove it)`,
      severity: "error",
    });
  }

  for (const k of complexKeys) {
    fatal = true;
    problems.push({
      file,
      ...toPos(k.offset),
      pointer: k.pointer,
      message: `the key ${k.key} is a ${k.key.startsWith("[") ? "list" : "mapping"}: a key must be plain text (a name)`,
      severity: "error",
    });
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
        message:
          `YAML aliases expand too much (more than ${MAX_ALIAS_COUNT}): ` +
          `${err instanceof Error ? firstLine(err.message) : String(err)}`,
        severity: "error",
      });
    }
  }
  return { file, value, locate, problems };
}

function indexNode(
  node: Node,
  pointer: string,
  spans: Map<string, NodeSpan>,
  bad: Record<"prototypeKeys" | "complexKeys", Array<{ pointer: string; offset: number; key: string }>>,
  keyStart?: number,
): void {
  const range = node.range;
  const emptyNull =
    isScalar(node) && node.value === null && range !== undefined && range !== null && range[0] === range[1];
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
      if (PROTOTYPE_KEYS.has(key)) bad.prototypeKeys.push({ pointer: child, offset: kStart ?? start, key });
      // A list or mapping as a key (`? [a, b]`): JavaScript objects have text keys only.
      if (isMap(keyNode) || isSeq(keyNode))
        bad.complexKeys.push({ pointer: child, offset: kStart ?? start, key: String(keyNode).slice(0, 60) });
      if (pair.value) indexNode(pair.value as Node, child, spans, bad, kStart);
      else spans.set(child, { start: kStart ?? start, end: keyNode?.range?.[1] ?? start, keyStart: kStart });
    }
  } else if (isSeq(node)) {
    node.items.forEach((item, i) => {
      if (item) indexNode(item as Node, childPointer(pointer, i), spans, bad);
    });
  }
}

function firstLine(message: string): string {
  return message.split("\n")[0]!.replace(/ at line \d+, column \d+:?$/, "");
}
