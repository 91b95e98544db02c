// The YAML encoder of zoneform's drafts.
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

export function documentYaml(document: Record<string, unknown>): string {
  const doc = new Document(document, { aliasDuplicateObjects: false });
  visit(doc, {
    Seq(_key, node) {
      if (node.items.length > 0 && node.items.every((i) => isScalar(i))) node.flow = true;
    },
  });
  return safeYamlText(doc, { lineWidth: 0, flowCollectionPadding: false });
}
