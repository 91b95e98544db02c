// The YAML encoder of zoneform's drafts (`csp suggest`, `inventory`, `export`): text from the API in a
// YAML file is shown as the characters it is, as printable() shows it on a terminal. A string holding a
// control, invisible or bidirectional character (safe-text.ts) is written double-quoted, where YAML
// escapes it (`\u202e`, `\U000E0041`), so that the file reads back as the same value while an editor,
// a diff or a pull request shows nothing hidden or reordered. Comments are the caller's: printable().
import {
  Document,
  isScalar,
  Scalar,
  visit,
  type CreateNodeOptions,
  type DocumentOptions,
  type ToStringOptions,
} from "yaml";
import { hasUnsafe, replaceUnsafe } from "./safe-text.js";

/** A raw character printable() escapes, as a YAML double-quoted escape. */
function yamlEscape(ch: string): string {
  const code = ch.codePointAt(0)!;
  return code > 0xffff ? `\\U${code.toString(16).padStart(8, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
}

/** Every string scalar holding such a character is written double-quoted (in place). */
function quoteUnsafeScalars(doc: Document): void {
  visit(doc, {
    Scalar(_key, node) {
      if (typeof node.value === "string" && hasUnsafe(node.value)) node.type = Scalar.QUOTE_DOUBLE;
    },
  });
}

/**
 * A document's text with every raw character printable() escapes written as a YAML escape: call it on
 * a document whose scalars went through quoteUnsafeScalars, whose comments are printable, so that such
 * characters are only ever inside double quotes. A raw newline is the text's own.
 */
export function safeYamlText(doc: Document, opts?: ToStringOptions): string {
  quoteUnsafeScalars(doc);
  return replaceUnsafe(doc.toString(opts), yamlEscape);
}

/** `yaml`'s stringify, safe as above. */
export function safeYamlStringify(
  value: unknown,
  opts: DocumentOptions & CreateNodeOptions & ToStringOptions = {},
): string {
  return safeYamlText(new Document(value, opts), opts);
}

/**
 * A zoneform document as YAML, as zoneform writes files: lists of plain values (field names, header
 * names) on one line (`[RayID, ClientIP]`), text with hidden characters escaped (safe-yaml.ts).
 */
export function documentYaml(document: Record<string, unknown>): string {
  const doc = new Document(document, { aliasDuplicateObjects: false });
  visit(doc, {
    Seq(_key, node) {
      if (node.items.length > 0 && node.items.every((i) => isScalar(i))) node.flow = true;
    },
  });
  return safeYamlText(doc, { lineWidth: 0, flowCollectionPadding: false });
}
