// The official SDK's declarations (the `cloudflare` package, a dev dependency: node_modules/cloudflare/
// resources/**/*.d.ts) read with the TypeScript compiler API (the typescript5 dev dependency exposes the
// classic API), syntax only: the fields an interface declares, whether each is optional or deprecated,
// and the string literals a field's type allows, following type aliases across `import * as X` files.
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import ts from "typescript5";

const SDK_ROOT = resolve(import.meta.dirname, "../../node_modules/cloudflare");
const SDK_RESOURCES = join(SDK_ROOT, "resources");

/** The version of the `cloudflare` package installed. */
export function sdkVersion(): string {
  return (JSON.parse(readFileSync(join(SDK_ROOT, "package.json"), "utf8")) as { version: string }).version;
}

export interface SdkField {
  name: string;
  optional: boolean;
  /** The doc comment says `@deprecated`. */
  deprecated: boolean;
  /** The string literals its type allows (null and undefined left out), or undefined when it is not a literal union. */
  literals?: string[];
  /** The type as written. */
  type: string;
}

const files = new Map<string, ts.SourceFile>();

function source(path: string): ts.SourceFile {
  let sf = files.get(path);
  if (!sf) {
    sf = ts.createSourceFile(path, readFileSync(path, "utf8"), ts.ScriptTarget.Latest, true);
    files.set(path, sf);
  }
  return sf;
}

/** `a.b.c` → the interface or type alias `c` inside namespace `a.b` (or at the top level). */
function findDeclaration(
  statements: readonly ts.Statement[],
  path: readonly string[],
): ts.InterfaceDeclaration | ts.TypeAliasDeclaration | undefined {
  const [head, ...rest] = path;
  for (const st of statements) {
    if (rest.length === 0 && (ts.isInterfaceDeclaration(st) || ts.isTypeAliasDeclaration(st)) && st.name.text === head)
      return st;
    if (
      rest.length > 0 &&
      ts.isModuleDeclaration(st) &&
      st.name.text === head &&
      st.body &&
      ts.isModuleBlock(st.body)
    ) {
      const found = findDeclaration(st.body.statements, rest);
      if (found) return found;
    }
  }
  return undefined;
}

/** The file an `import * as Alias from "./x.js"` of `sf` names. */
function importedFile(sf: ts.SourceFile, alias: string): string | undefined {
  for (const st of sf.statements) {
    if (!ts.isImportDeclaration(st) || !ts.isStringLiteral(st.moduleSpecifier)) continue;
    const b = st.importClause?.namedBindings;
    if (b && ts.isNamespaceImport(b) && b.name.text === alias)
      return resolve(dirname(sf.fileName), st.moduleSpecifier.text.replace(/\.js$/, ".d.ts"));
  }
  return undefined;
}

/** The string literals a type allows, following aliases; undefined when it allows anything else. */
function literalsOf(sf: ts.SourceFile, node: ts.TypeNode, scope: readonly string[], depth = 0): string[] | undefined {
  if (depth > 8) return undefined;
  if (ts.isUnionTypeNode(node)) {
    const parts = node.types.map((t) => literalsOf(sf, t, scope, depth + 1));
    if (parts.some((p) => p === undefined)) return undefined;
    return (parts as string[][]).flat();
  }
  if (ts.isLiteralTypeNode(node)) {
    if (ts.isStringLiteral(node.literal)) return [node.literal.text];
    if (node.literal.kind === ts.SyntaxKind.NullKeyword) return [];
    return undefined;
  }
  if (node.kind === ts.SyntaxKind.UndefinedKeyword) return [];
  if (ts.isParenthesizedTypeNode(node)) return literalsOf(sf, node.type, scope, depth + 1);
  if (ts.isTypeReferenceNode(node)) {
    const name = node.typeName;
    let file = sf;
    let path: string[];
    if (ts.isQualifiedName(name) && ts.isIdentifier(name.left)) {
      const other = importedFile(sf, name.left.text);
      if (other) {
        file = source(other);
        path = [name.right.text];
      } else path = [name.left.text, name.right.text];
    } else path = [name.getText(sf)];
    // A name resolves in the namespace it is written in, then in each enclosing one.
    for (let i = scope.length; i >= 0; i--) {
      const decl = findDeclaration(file.statements, [...scope.slice(0, i), ...path]);
      if (decl && ts.isTypeAliasDeclaration(decl)) return literalsOf(file, decl.type, scope.slice(0, i), depth + 1);
      if (decl) return undefined;
    }
  }
  return undefined;
}

/**
 * The fields an interface declares: `file` relative to node_modules/cloudflare/resources, `path` its
 * name, dotted through namespaces (`CustomHostnameEditParams.SSL`). Throws when it is not there.
 */
export function sdkFields(file: string, path: string): SdkField[] {
  const sf = source(join(SDK_RESOURCES, file));
  const parts = path.split(".");
  const decl = findDeclaration(sf.statements, parts);
  if (!decl || !ts.isInterfaceDeclaration(decl))
    throw new Error(`the cloudflare package declares no interface ${path} in resources/${file}`);
  const scope = parts.slice(0, -1);
  const out: SdkField[] = [];
  for (const m of decl.members) {
    if (!ts.isPropertySignature(m) || !m.type) continue;
    const name = ts.isIdentifier(m.name) || ts.isStringLiteral(m.name) ? m.name.text : m.name.getText(sf);
    const docs = ts.getJSDocTags(m).map((t) => t.tagName.text);
    out.push({
      name,
      optional: m.questionToken !== undefined,
      deprecated: docs.includes("deprecated"),
      literals: literalsOf(sf, m.type, [...scope, parts.at(-1)!]),
      type: m.type.getText(sf),
    });
  }
  return out;
}
