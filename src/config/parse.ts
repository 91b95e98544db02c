// YAML → plain value, keeping where every node was.
import { isAlias, isMap, isPair, isScalar, isSeq, LineCounter, parseDocument, type Node } from "yaml";
import type { ConfigProblem } from "../errors.js";
import { childPointer, lastSegment, type Locator, type SourcePosition } from "./problems.js";

const PROTOTYPE_KEYS: ReadonlySet<string> = new Set(["__proto__", "constructor", "prototype"]);

const MAX_ALIAS_COUNT = 100;

export interface ParsedYaml {
  file: string;
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

const OPTIONS = { uniqueKeys: true, merge: true, prettyErrors: false, strict: true, logLevel: "error" } as const;

/** The file's value, its problems, and where each of its nodes is. */
export function parseYaml(text: string, file: string): ParsedYaml {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, ...OPTIONS });
  const prototypeKeys: KeyFound[] = [];
  const complexKeys: KeyFound[] = [];
  const root = doc.contents as Node | null;
  if (root) checkKeys(root, [], { prototypeKeys, complexKeys });

  const toPos = (offset: number): SourcePosition => {
    const { line, col } = lineCounter.linePos(Math.max(0, Math.min(offset, text.length)));
    return { line, column: col };
  };
  const locate: Locator = (pointer, at = "value") => {
    // The deepest node of the pointer the tree holds (a pointer past an alias or a missing key: its parent).
    const found = root ? spanAt(root, pointer) : undefined;
    if (!found) return { line: 1, column: 1 };
    const { span, whole } = found;
    return toPos(whole && at === "key" && span.keyStart !== undefined ? span.keyStart : span.start);
  };
  let spans: Map<string, NodeSpan> | undefined;
  const pointerAt = (offset: number): string => {
    if (!spans) {
      spans = new Map();
      if (root) indexNode(root, "", spans);
    }
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

  const badKeys = keyProblems(file, toPos, prototypeKeys, complexKeys);
  if (badKeys.length > 0) fatal = true;
  problems.push(...badKeys);

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

type KeyFound = { pointer: string; offset: number; key: string };

function keyProblems(
  file: string,
  toPos: (offset: number) => SourcePosition,
  prototypeKeys: KeyFound[],
  complexKeys: KeyFound[],
): ConfigProblem[] {
  const at = (k: KeyFound, message: string): ConfigProblem => ({
    file,
    ...toPos(k.offset),
    pointer: k.pointer,
    message,
    severity: "error",
  });
  return [
    ...prototypeKeys.map((k) =>
      at(k, `the key '${k.key}' is not allowed: it names JavaScript's object machinery, never a setting (remove it)`),
    ),
    ...complexKeys.map((k) =>
      at(k, `the key ${k.key} is a ${k.key.startsWith("[") ? "list" : "mapping"}: a key must be plain text (a name)`),
    ),
  ];
}

function keyText(keyNode: Node | null): string {
  return isScalar(keyNode) ? String(keyNode.value) : String(keyNode);
}

/** Where a node stands: `keyStart` is its key's, when it is a mapping's value. */
function spanOf(node: Node, keyStart?: number): NodeSpan {
  const range = node.range;
  const emptyNull =
    isScalar(node) && node.value === null && range !== undefined && range !== null && range[0] === range[1];
  const start = emptyNull && keyStart !== undefined ? keyStart : (range?.[0] ?? keyStart ?? 0);
  return { start, end: range?.[1] ?? start, keyStart };
}

function keySpan(keyNode: Node | null, parentStart: number): NodeSpan {
  const kStart = keyNode?.range?.[0];
  return { start: kStart ?? parentStart, end: keyNode?.range?.[1] ?? parentStart, keyStart: kStart };
}

function checkKeys(
  node: Node,
  path: Array<string | number>,
  bad: Record<"prototypeKeys" | "complexKeys", Array<{ pointer: string; offset: number; key: string }>>,
): void {
  if (isMap(node)) {
    const start = spanOf(node).start;
    for (const pair of node.items) {
      if (!isPair(pair)) continue;
      const keyNode = pair.key as Node | null;
      const key = keyText(keyNode);
      const offset = keyNode?.range?.[0] ?? start;
      const pointer = () => [...path, key].reduce<string>((p, k) => childPointer(p, k), "");
      if (PROTOTYPE_KEYS.has(key)) bad.prototypeKeys.push({ pointer: pointer(), offset, key });
      if (isMap(keyNode) || isSeq(keyNode))
        bad.complexKeys.push({ pointer: pointer(), offset, key: String(keyNode).slice(0, 60) });
      if (pair.value) {
        path.push(key);
        checkKeys(pair.value as Node, path, bad);
        path.pop();
      }
    }
  } else if (isSeq(node)) {
    node.items.forEach((item, i) => {
      if (!item) return;
      path.push(i);
      checkKeys(item as Node, path, bad);
      path.pop();
    });
  }
}

function spanAt(root: Node, pointer: string): { span: NodeSpan; whole: boolean } {
  const segments = pointer === "" ? [] : pointer.slice(1).split("/").map(unescapeSegment);
  let node = root;
  let span = spanOf(root);
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i]!;
    if (isAlias(node)) return { span, whole: false };
    let next: { node: Node | null; span: NodeSpan } | undefined;
    if (isMap(node)) {
      for (const pair of node.items) {
        if (!isPair(pair) || keyText(pair.key as Node | null) !== segment) continue;
        const keyNode = pair.key as Node | null;
        next = pair.value
          ? { node: pair.value as Node, span: spanOf(pair.value as Node, keyNode?.range?.[0]) }
          : { node: null, span: keySpan(keyNode, span.start) };
      }
    } else if (isSeq(node) && /^(0|[1-9]\d*)$/.test(segment)) {
      const item = node.items[Number(segment)] as Node | null | undefined;
      if (item) next = { node: item, span: spanOf(item) };
    }
    if (!next) return { span, whole: false };
    span = next.span;
    if (!next.node) return { span, whole: i === segments.length - 1 };
    node = next.node;
  }
  return { span, whole: true };
}

function unescapeSegment(segment: string): string {
  return segment.replace(/~1/g, "/").replace(/~0/g, "~");
}

function indexNode(node: Node, pointer: string, spans: Map<string, NodeSpan>, keyStart?: number): void {
  const span = spanOf(node, keyStart);
  spans.set(pointer, span);
  if (isAlias(node)) return;
  if (isMap(node)) {
    for (const pair of node.items) {
      if (!isPair(pair)) continue;
      const keyNode = pair.key as Node | null;
      const child = childPointer(pointer, keyText(keyNode));
      if (pair.value) indexNode(pair.value as Node, child, spans, keyNode?.range?.[0]);
      else spans.set(child, keySpan(keyNode, span.start));
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
