// Additions to a YAML file spliced into its text, so that every byte a person wrote (comments, quoting,
// each pinned value) stays. What cannot be spliced, or does not read back as the Document API's edit
// would, falls back to that edit and the whole file written again. Spec: docs/pci-script-inventory.md.
import equal from "fast-deep-equal";
import {
  Document,
  isCollection,
  isMap,
  isNode,
  isPair,
  isScalar,
  isSeq,
  Pair,
  parseDocument,
  type Node,
  type YAMLMap,
  type YAMLSeq,
} from "yaml";
import { safeYamlText } from "../safe-yaml.js";

export type YamlPath = ReadonlyArray<string | number>;

export type YamlAddition =
  | { path: YamlPath; kind: "seq"; items: unknown[] }
  | { path: YamlPath; kind: "map"; pairs: Array<[string, unknown]> };

interface Edit {
  at: number;
  remove: number;
  insert: string;
}

function lineStart(text: string, at: number): number {
  return text.lastIndexOf("\n", at - 1) + 1;
}

function column(text: string, at: number): number {
  return at - lineStart(text, at);
}

function afterLine(text: string, at: number): number {
  if (at > 0 && text[at - 1] === "\n") return at;
  const nl = text.indexOf("\n", at);
  return nl < 0 ? text.length : nl + 1;
}

function nodeOf(doc: Document, value: unknown): Node {
  return isNode(value) ? (value as Node) : (doc.createNode(value) as Node);
}

function collectionOf(doc: Document, add: YamlAddition, flow = false): YAMLSeq | YAMLMap {
  if (add.kind === "seq") {
    const seq = doc.createNode([]) as YAMLSeq;
    seq.items.push(...add.items.map((i) => nodeOf(doc, i)));
    // An empty one is written `[]` on its key's line.
    seq.flow = flow || seq.items.length === 0;
    return seq;
  }
  const map = doc.createNode({}) as YAMLMap;
  for (const [k, v] of add.pairs) map.items.push(new Pair(doc.createNode(k), nodeOf(doc, v)));
  map.flow = flow || map.items.length === 0;
  return map;
}

function block(value: Node, indent: number, eol: string): string {
  const doc = new Document();
  doc.contents = value;
  const text = safeYamlText(doc, { lineWidth: 0 }).replace(/\n$/, "");
  const pad = " ".repeat(indent);
  return `${text
    .split("\n")
    .map((l) => (l === "" ? l : pad + l))
    .join(eol)}${eol}`;
}

function flowInside(add: YamlAddition): string | undefined {
  const doc = new Document();
  // Plain values: a comment has no place in a flow collection.
  const plain: YamlAddition =
    add.kind === "seq"
      ? { ...add, items: add.items.map((i) => (isNode(i) ? (i as Node).toJSON() : i)) }
      : { ...add, pairs: add.pairs.map(([k, v]) => [k, isNode(v) ? (v as Node).toJSON() : v]) };
  doc.contents = collectionOf(doc, plain, true);
  const text = safeYamlText(doc, { lineWidth: 0 }).trim();
  const inside = text.slice(1, -1).trim();
  return inside === "" ? undefined : inside;
}

function keyOf(parent: unknown, node: unknown): Node | undefined {
  if (!isMap(parent)) return undefined;
  const pair = parent.items.find((p) => isPair(p) && p.value === node);
  return pair && isNode(pair.key) ? pair.key : undefined;
}

function blanksBefore(text: string, at: number): number {
  let from = at;
  while (from > 0 && (text[from - 1] === " " || text[from - 1] === "\t")) from--;
  return from;
}

function isEmptyScalar(text: string, node: unknown): node is Node {
  if (!isScalar(node) || node.value !== null || !node.range) return false;
  return /^(|~|null|Null|NULL)$/.test(text.slice(node.range[0], node.range[1]));
}

function planAddition(text: string, doc: Document, add: YamlAddition, eol: string): Edit | undefined {
  const node = doc.getIn(add.path, true);
  const empty = add.kind === "seq" ? add.items.length === 0 : add.pairs.length === 0;
  if (node !== undefined && !isEmptyScalar(text, node)) {
    if (add.kind === "seq" ? !isSeq(node) : !isMap(node)) return undefined;
    const coll = node as YAMLSeq | YAMLMap;
    if (empty) return { at: 0, remove: 0, insert: "" };
    if (!coll.range) return undefined;
    if (coll.flow) {
      const close = coll.range[1] - 1;
      if (text[close] !== (isSeq(coll) ? "]" : "}")) return undefined;
      if (coll.items.length > 0) {
        const inside = flowInside(add);
        if (inside === undefined) return undefined;
        // After the last item, before any space and the closing bracket.
        let at = close;
        while (at > coll.range[0] + 1 && /\s/.test(text[at - 1]!)) at--;
        return { at, remove: 0, insert: `, ${inside}` };
      }
      // An empty flow collection (`[]`, `{}`): removed, and the items go below its key as a block.
      const key = keyOf(doc.getIn(add.path.slice(0, -1), true) ?? doc.contents, coll);
      if (!key?.range) return undefined;
      const at = afterLine(text, coll.range[1]);
      const from = blanksBefore(text, coll.range[0]);
      return {
        at: from,
        remove: at - from,
        insert:
          text.slice(coll.range[1], at).replace(/\r?\n$/, "") +
          eol +
          block(collectionOf(doc, add), column(text, key.range[0]) + 2, eol),
      };
    }
    const last = coll.items[coll.items.length - 1];
    const end = Math.max(coll.range[1], endOf(last));
    const at = afterLine(text, end);
    const lead = at === text.length && !text.endsWith("\n") ? eol : "";
    return { at, remove: 0, insert: lead + block(collectionOf(doc, add), column(text, coll.range[0]), eol) };
  }
  // Absent (or a null): created in the nearest mapping on the way, with what is missing below it.
  for (let i = add.path.length - 1; i >= 0; i--) {
    const parent = i === 0 ? doc.contents : doc.getIn(add.path.slice(0, i), true);
    // Missing too, or a null: created from further up.
    if (parent === undefined || (i > 0 && isEmptyScalar(text, parent))) continue;
    const rest = add.path.slice(i);
    if (typeof rest[0] !== "string") return undefined;
    const nested = nestedValue(doc, rest, add);
    if (parent === null || isEmptyScalar(text, parent)) {
      // An empty document (comments at most): the block goes at its end.
      const lead = text === "" || text.endsWith("\n") ? "" : eol;
      return { at: text.length, remove: 0, insert: lead + block(nested.whole, 0, eol) };
    }
    if (!isMap(parent) || parent.flow || !parent.range) return undefined;
    const here = parent.get(rest[0], true);
    if (here !== undefined) {
      // A key holding nothing (`key:`, `key: ~`): the block goes below it.
      const key = keyOf(parent, here);
      if (!isEmptyScalar(text, here) || !key?.range || !here.range) return undefined;
      const at = afterLine(text, here.range[1]);
      const from = blanksBefore(text, here.range[0]);
      return {
        at: from,
        remove: at - from,
        insert:
          text.slice(here.range[1], at).replace(/\r?\n$/, "") +
          eol +
          block(nested.value, column(text, key.range[0]) + 2, eol),
      };
    }
    const last = parent.items[parent.items.length - 1];
    const at = afterLine(text, Math.max(parent.range[1], endOf(last)));
    const lead = at === text.length && !text.endsWith("\n") ? eol : "";
    return { at, remove: 0, insert: lead + block(nested.whole, column(text, parent.range[0]), eol) };
  }
  return undefined;
}

function endOf(item: unknown): number {
  if (isPair(item)) {
    const v = item.value as Node | null;
    if (v && isNode(v) && v.range) return Math.max(v.range[1], isCollection(v) ? v.range[2] : v.range[1]);
    const k = item.key as Node | null;
    return k && isNode(k) && k.range ? k.range[1] : 0;
  }
  if (isNode(item) && item.range) return isCollection(item) ? item.range[2] : item.range[1];
  return 0;
}

function nestedValue(doc: Document, rest: YamlPath, add: YamlAddition): { whole: Node; value: Node } {
  let value: Node = collectionOf(doc, add);
  for (let i = rest.length - 1; i >= 1; i--) {
    const map = doc.createNode({}) as YAMLMap;
    map.items.push(new Pair(doc.createNode(rest[i]), value));
    value = map;
  }
  const whole = doc.createNode({}) as YAMLMap;
  whole.items.push(new Pair(doc.createNode(rest[0]), value));
  return { whole, value };
}

export class YamlShapeError extends Error {
  constructor(readonly path: YamlPath) {
    super(`expected a ${path.length === 0 ? "mapping" : "collection"} at ${path.join(".") || "the top level"}`);
  }
}

function addByDocument(doc: Document, additions: readonly YamlAddition[]): void {
  for (const add of additions) {
    // Each mapping on the way, created where absent or null.
    let parent: unknown = doc.contents;
    for (let i = 0; i < add.path.length; i++) {
      const key = add.path[i]!;
      if (parent === null && i === 0) {
        doc.contents = doc.createNode({}) as YAMLMap;
        parent = doc.contents;
      }
      if (!isMap(parent) && !isSeq(parent)) throw new YamlShapeError(add.path.slice(0, i));
      let child: unknown = parent.get(key, true);
      const last = i === add.path.length - 1;
      if (child === undefined || (isScalar(child) && child.value === null)) {
        child = doc.createNode(last && add.kind === "seq" ? [] : {});
        parent.set(key, child);
      }
      parent = child;
    }
    if (add.kind === "seq" && isSeq(parent)) parent.items.push(...add.items.map((i) => nodeOf(doc, i)));
    else if (add.kind === "map" && isMap(parent))
      for (const [k, v] of add.pairs) parent.items.push(new Pair(doc.createNode(k), nodeOf(doc, v)));
    else throw new YamlShapeError(add.path);
  }
}

/** Throws YamlShapeError when a scalar (or another collection) stands where a collection must be. */
export function addToYaml(text: string, additions: readonly YamlAddition[]): { text: string; spliced: boolean } {
  const reference = parseDocument(text);
  addByDocument(reference, additions);
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  let out = text;
  let spliced = true;
  for (const add of additions) {
    const doc = parseDocument(out);
    const edit = doc.errors.length === 0 ? planAddition(out, doc, add, eol) : undefined;
    if (!edit) {
      spliced = false;
      break;
    }
    out = out.slice(0, edit.at) + edit.insert + out.slice(edit.at + edit.remove);
  }
  if (spliced) {
    const check = parseDocument(out);
    if (check.errors.length === 0 && equal(check.toJS(), reference.toJS())) return { text: out, spliced: true };
  }
  return { text: safeYamlText(reference, { lineWidth: 0 }), spliced: false };
}
